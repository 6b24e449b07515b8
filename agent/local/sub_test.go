package local_test

import (
	"context"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/sampler"
)

// TestSub: a subagent's client gets its own slot and the whole window;
// after Release the parent's next request reuses its whole prompt, as if
// the subagent had never run.
func TestSub(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	c, err := local.New(m, local.Options{ContextSize: 2048, Threads: 1, Subagents: true})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	greedy := model.Sampling{User: sampler.Overrides{Greedy: ptr(true)}}
	var text string
	ask := func(cl *local.Client, msgs ...chat.Message) local.Usage {
		t.Helper()
		resp, err := cl.Complete(context.Background(), local.Request{Messages: msgs, MaxTokens: 8, Sampling: greedy})
		if err != nil {
			t.Fatal(err)
		}
		text = resp.Text
		return resp.Usage
	}
	task := chat.Message{Role: "user", Content: "Where are order ids parsed?"}
	first := ask(c, task)
	sub, err := c.Sub()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Sub(); err == nil {
		t.Error("a second Sub while one runs was allowed")
	}
	if u := ask(sub, chat.Message{Role: "user", Content: "Grep for Order.parse and report file and line, in a long and different prompt of its own."}); u.CacheN != 0 {
		t.Errorf("the subagent's first request took %d tokens from a cache it never filled", u.CacheN)
	}
	if err := sub.Release(); err != nil {
		t.Fatal(err)
	}
	next := ask(c, task, chat.Message{Role: "assistant", Content: "Let me look."}, chat.Message{Role: "user", Content: "Go on."})
	if next.CacheN < first.PromptTokens-1 {
		t.Errorf("after the subagent the parent reused %d of its %d prompt tokens", next.CacheN, first.PromptTokens)
	}
	// The restored cache is the parent's own: a fresh client writes the
	// same greedy reply.
	got := text
	fresh := client(t, m, "")
	ask(fresh, task, chat.Message{Role: "assistant", Content: "Let me look."}, chat.Message{Role: "user", Content: "Go on."})
	if got != text {
		t.Errorf("after the subagent the parent wrote %q, a fresh client %q", got, text)
	}
}
