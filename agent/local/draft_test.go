package local_test

import (
	"context"
	"testing"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/sampler"
)

// TestDraftSameReply completes the same requests, with tools and without,
// on a client that drafts (Options.DraftMax) and on one that does not:
// the replies and what streamed are the same.
func TestDraftSameReply(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	tools, err := chat.ParseTools([]byte(seedTool))
	if err != nil {
		t.Fatal(err)
	}
	plain := client(t, m, "")
	drafting, err := local.New(m, local.Options{ContextSize: 2048, Threads: 1, DraftMax: 6})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { drafting.Close() })
	inCalls, err := local.New(m, local.Options{ContextSize: 2048, Threads: 1, DraftMax: 6, DraftInCalls: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inCalls.Close() })
	msgs := userMessages(t, `[{"role": "user", "content": "Read pom.xml, then pom.xml again, then pom.xml once more."}]`)
	sc := model.Sampling{User: sampler.Overrides{Seed: sampler.Ptr[uint32](3)}}
	for _, mode := range []grammar.ChoiceMode{grammar.ChoiceAuto, grammar.ChoiceRequired, grammar.ChoiceNone} {
		run := func(c *local.Client) (*local.Response, string) {
			var streamed string
			resp, err := c.Complete(context.Background(), local.Request{Messages: msgs, Tools: tools, ToolChoice: grammar.Choice{Mode: mode},
				Sampling: sc, MaxTokens: 64, IDSeed: 1, OnDelta: func(d callformat.Delta) { streamed += d.Content + d.Reasoning }})
			if err != nil {
				t.Fatal(err)
			}
			return resp, streamed
		}
		want, wantStreamed := run(plain)
		got, gotStreamed := run(drafting)
		if got.Text != want.Text || gotStreamed != wantStreamed || got.FinishReason != want.FinishReason {
			t.Errorf("tool_choice %v: drafting wrote %q (%s), without %q (%s)", mode, got.Text, got.FinishReason, want.Text, want.FinishReason)
		}
		if diff := cmp.Diff(want.Message, got.Message); diff != "" {
			t.Errorf("tool_choice %v: the message differs (-plain +drafting):\n%s", mode, diff)
		}
		// Drafting in calls only: the same reply; no draft without a
		// call grammar, some under the required one (the whole reply is
		// a call).
		got, gotStreamed = run(inCalls)
		if got.Text != want.Text || gotStreamed != wantStreamed {
			t.Errorf("tool_choice %v: drafting in calls wrote %q, without %q", mode, got.Text, want.Text)
		}
		if d := got.Usage.DraftN; (mode == grammar.ChoiceNone && d != 0) || (mode == grammar.ChoiceRequired && d == 0) {
			t.Errorf("tool_choice %v: drafting in calls verified %d draft tokens", mode, d)
		}
		if mode != grammar.ChoiceNone {
			continue
		}
		// An answer that quotes the last tool result (AnswerSources,
		// here the answer itself) is drafted from it outside calls, to
		// the same reply.
		var streamed string
		got, err := inCalls.Complete(context.Background(), local.Request{Messages: msgs, Tools: tools, ToolChoice: grammar.Choice{Mode: mode},
			Sampling: sc, MaxTokens: 64, IDSeed: 1, AnswerSources: []string{want.Text},
			OnDelta: func(d callformat.Delta) { streamed += d.Content + d.Reasoning }})
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || streamed != wantStreamed {
			t.Errorf("drafting from answer sources wrote %q, without %q", got.Text, want.Text)
		}
		if got.Usage.DraftNAccepted == 0 {
			t.Errorf("an answer that copies its answer source: %d draft tokens verified, none accepted", got.Usage.DraftN)
		}
	}
}

// TestDraftKeptReply completes the same call twice on one client that
// drafts in calls, as `loop run`'s does: the client keeps its first
// reply (engine.Pace), and the second, the same call, comes mostly from
// drafts of it; both are the plain client's reply. After ForgetReplies
// the same call drafts as the first did.
func TestDraftKeptReply(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	tools, err := chat.ParseTools([]byte(seedTool))
	if err != nil {
		t.Fatal(err)
	}
	plain := client(t, m, "")
	inCalls, err := local.New(m, local.Options{ContextSize: 2048, Threads: 1, DraftMax: 16, DraftInCalls: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { inCalls.Close() })
	msgs := userMessages(t, `[{"role": "user", "content": "Read pom.xml."}]`)
	req := local.Request{Messages: msgs, Tools: tools, ToolChoice: grammar.Choice{Mode: grammar.ChoiceRequired},
		Sampling: model.Sampling{User: sampler.Overrides{Seed: sampler.Ptr[uint32](3)}}, MaxTokens: 64, IDSeed: 1}
	want, err := plain.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	var accepted [3]int
	for i := range 3 {
		if i == 2 {
			inCalls.ForgetReplies()
		}
		got, err := inCalls.Complete(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text {
			t.Fatalf("reply %d: drafting wrote %q, without %q", i, got.Text, want.Text)
		}
		t.Logf("reply %d: %d tokens, %d of %d draft tokens accepted", i, got.Usage.CompletionTokens, got.Usage.DraftNAccepted, got.Usage.DraftN)
		accepted[i] = got.Usage.DraftNAccepted
		if i == 1 && got.Usage.DraftNAccepted < got.Usage.CompletionTokens/2 {
			t.Errorf("the same call again: %d of its %d tokens came from accepted drafts; want at least half", got.Usage.DraftNAccepted, got.Usage.CompletionTokens)
		}
	}
	if accepted[2] >= accepted[1] {
		t.Errorf("after ForgetReplies the same call took %d tokens from accepted drafts, as many as with the kept reply (%d)", accepted[2], accepted[1])
	}
}
