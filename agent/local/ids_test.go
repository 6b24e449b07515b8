package local_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/sampler"
)

// growCalls runs steps requests with tool_choice required on one growing
// conversation, each reply and a result for each of its calls appended,
// and returns the ids of the calls in the order the client gave them.
func growCalls(t *testing.T, c *local.Client, steps int, idSeed uint64) []string {
	t.Helper()
	tools, err := chat.ParseTools([]byte(seedTool))
	if err != nil {
		t.Fatal(err)
	}
	msgs := []chat.Message{{Role: "user", Content: "What is in pom.xml?"}}
	var ids []string
	for step := range steps {
		sc := model.Sampling{User: sampler.Overrides{Temperature: sampler.Ptr[float32](0.8), Seed: sampler.Ptr(uint32(step + 1))}}
		resp, err := c.Complete(context.Background(), local.Request{Messages: msgs, Tools: tools,
			ToolChoice: grammar.Choice{Mode: grammar.ChoiceRequired}, Sampling: sc, MaxTokens: 120, IDSeed: idSeed})
		if err != nil {
			t.Fatalf("step %d: %v", step, err)
		}
		if len(resp.Message.ToolCalls) == 0 {
			t.Fatalf("step %d: no call (finish %s, problems %v): %q", step, resp.FinishReason, resp.Parsed.Problems, resp.Text)
		}
		msgs = append(msgs, resp.Message)
		for _, call := range resp.Message.ToolCalls {
			ids = append(ids, call.ID)
			msgs = append(msgs, chat.Message{Role: "tool", ToolCallID: call.ID, Content: "<project>demo</project>"})
		}
	}
	return ids
}

// repeated returns the first id that repeats, or "".
func repeated(ids []string) string {
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return id
		}
		seen[id] = true
	}
	return ""
}

// TestCallIDsUnique: every call of a conversation gets its own id. The
// client used to seed the ids of every request alike, so a 12-step run
// had one id for all 12 calls, and a new call took the id its history
// already held. With Request.IDSeed the ids are reproducible, and still
// never one the history holds.
func TestCallIDsUnique(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	c := client(t, m, "")
	ids := growCalls(t, c, 3, 0)
	if id := repeated(ids); id != "" {
		t.Errorf("IDSeed 0: id %s repeats in %v", id, ids)
	}
	seeded := growCalls(t, c, 2, 7)
	if id := repeated(seeded); id != "" {
		t.Errorf("IDSeed 7: id %s repeats in %v", id, seeded)
	}
	again := growCalls(t, client(t, m, ""), 2, 7)
	if strings.Join(again, " ") != strings.Join(seeded, " ") {
		t.Errorf("IDSeed 7 on a new client: ids %v, want %v", again, seeded)
	}
}

// TestPoolCallIDs: the clients of one pool do not give the same ids for
// the same request.
func TestPoolCallIDs(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	cs, err := local.NewPool(m, local.Options{ContextSize: 2048, Threads: 1}, 2)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range cs {
		defer c.Close()
		ids = append(ids, growCalls(t, c, 1, 0)...)
	}
	if id := repeated(ids); id != "" {
		t.Errorf("pooled clients both gave id %s: %v", id, ids)
	}
}

// TestMistralLongID: the Mistral Nemo template raises on a call id that is
// not 9 characters; a 32-character id in the history, as other formats
// and llama-server give, is renamed for the prompt, and the reply's call
// gets an id no call of the history has, as the caller holds it or as the
// model saw it.
func TestMistralLongID(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	c := client(t, m, testmodels.ChatTemplate(t, "mistralai-Mistral-Nemo-Instruct-2407"))
	if f := c.Detection().Format; f != "mistral" {
		t.Fatalf("Mistral Nemo detected as %s", f)
	}
	tools, err := chat.ParseTools([]byte(seedTool))
	if err != nil {
		t.Fatal(err)
	}
	long := "760izblm3iA8z54miRDQttP6bf5d1OuD"
	msgs := userMessages(t, fmt.Sprintf(`[{"role": "user", "content": "What is in pom.xml?"},
		{"role": "assistant", "content": null, "tool_calls": [{"id": %q, "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"pom.xml\"}"}}]},
		{"role": "tool", "tool_call_id": %[1]q, "content": "<project>demo</project>"},
		{"role": "assistant", "content": "It is a Maven project."},
		{"role": "user", "content": "And src/Main.java?"}]`, long))
	sc := model.Sampling{User: sampler.Overrides{Seed: sampler.Ptr[uint32](1)}}
	resp, err := c.Complete(context.Background(), local.Request{Messages: msgs, Tools: tools,
		ToolChoice: grammar.Choice{Mode: grammar.ChoiceRequired}, Sampling: sc, MaxTokens: 120})
	if err != nil {
		t.Fatalf("Complete with a 32-character id on Mistral Nemo: %v", err)
	}
	if strings.Contains(resp.Prompt, long) {
		t.Errorf("the prompt has the 32-character id:\n%s", resp.Prompt)
	}
	i := strings.Index(resp.Prompt, `"call_id": "`)
	if i < 0 {
		t.Fatalf("the prompt has no tool result:\n%s", resp.Prompt)
	}
	shown := resp.Prompt[i+len(`"call_id": "`):][:9]
	if !strings.Contains(resp.Prompt, `"id": "`+shown+`"}]`) {
		t.Errorf("the call and its result have different ids in the prompt:\n%s", resp.Prompt)
	}
	if len(resp.Message.ToolCalls) != 1 {
		t.Fatalf("reply %+v, problems %v", resp.Message, resp.Parsed.Problems)
	}
	if id := resp.Message.ToolCalls[0].ID; id == long || id == shown || len(id) != 9 {
		t.Errorf("reply call id %q: want 9 characters, neither %q nor %q", id, long, shown)
	}
}
