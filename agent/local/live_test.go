package local_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/sampler"
)

// seedTool is seed 000 Example 2's tool, as its request sends it.
const seedTool = `[{"type": "function", "function": {"name": "read_file", "description": "Read a text file from the workspace",
  "parameters": {"type": "object", "properties": {"path": {"type": "string", "enum": ["pom.xml", "src/Main.java"]}}, "required": ["path"]}}}]`

func newClient(t *testing.T) *local.Client {
	t.Helper()
	m := loadModel(t, testmodels.TinyQwen15F32)
	c, err := local.New(m, local.Options{ContextSize: 2048, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// liveRow is one request of the run, printed like the seed's jq line.
type liveRow struct {
	cfg, finish, content string
	seed                 int
	calls                []string
	violations           int
}

func (r liveRow) String() string {
	calls, _ := json.Marshal(r.calls)
	content, _ := json.Marshal(r.content)
	return fmt.Sprintf(`{"cfg":%q,"seed":%d,"finish":%q,"calls":%s,"content":%s,"violations":%d}`,
		r.cfg, r.seed, r.finish, calls, content, r.violations)
}

// TestLiveSeedRun repeats seed 000 Example 2 in process with the tiny random
// Qwen-vocabulary model: the same question, the same tool with its enum, 4
// configurations × 6 seeds at temperature 0.8, through the whole path:
// render with the model's Qwen 2.5 template, generate under the format's
// grammar, stream-parse, validate. The seed's llama-server got 11 calls in
// 6 requests plus one cut off, and only with a prefill and a logit bias;
// loop's required configurations give exactly one complete, valid call in
// 12 of 12, with and without the prefill and without a logit bias.
func TestLiveSeedRun(t *testing.T) {
	c := newClient(t)
	tools, err := chat.ParseTools([]byte(seedTool))
	if err != nil {
		t.Fatal(err)
	}
	user := chat.Message{Role: "user", Content: "What is in pom.xml?"}
	prefill := chat.Message{Role: "assistant", Content: "<tool_call>\n"}
	configs := []struct {
		name      string
		choice    grammar.ChoiceMode
		prefill   bool
		maxTokens int
	}{
		{"auto prefill=no", grammar.ChoiceAuto, false, 40},
		{"none prefill=yes", grammar.ChoiceNone, true, 40},
		{"required prefill=no", grammar.ChoiceRequired, false, 200},
		{"required prefill=yes", grammar.ChoiceRequired, true, 200},
	}
	var table strings.Builder
	complete := 0
	for _, cfg := range configs {
		for seed := 1; seed <= 6; seed++ {
			sc, _ := sampler.Resolve(nil, sampler.Overrides{Temperature: sampler.Ptr[float32](0.8), Seed: sampler.Ptr(uint32(seed))})
			msgs := []chat.Message{user}
			if cfg.prefill {
				msgs = append(msgs, prefill)
			}
			resp, err := c.Complete(context.Background(), local.Request{Messages: msgs, Tools: tools,
				ToolChoice: grammar.Choice{Mode: cfg.choice}, Sampling: sc, MaxTokens: cfg.maxTokens, IDSeed: uint64(seed)})
			if err != nil {
				t.Fatalf("%s seed %d: %v", cfg.name, seed, err)
			}
			row := liveRow{cfg: cfg.name, seed: seed, finish: resp.FinishReason, violations: len(resp.Violations)}
			for _, call := range resp.Message.ToolCalls {
				var args struct{ Path string }
				json.Unmarshal([]byte(call.Function.Arguments), &args)
				row.calls = append(row.calls, args.Path)
			}
			row.content = resp.Message.Content
			if len(row.content) > 30 {
				row.content = row.content[:30]
			}
			fmt.Fprintln(&table, row)
			switch cfg.choice {
			case grammar.ChoiceRequired:
				if len(resp.Message.ToolCalls) != 1 || len(resp.Violations) != 0 || resp.FinishReason != "tool_calls" {
					t.Errorf("%s seed %d: %s, violations %v, problems %v", cfg.name, seed, row, resp.Violations, resp.Parsed.Problems)
				} else {
					complete++
				}
			default:
				if len(resp.Message.ToolCalls) != 0 {
					t.Errorf("%s seed %d: a random model produced a call: %s", cfg.name, seed, row)
				}
			}
		}
	}
	t.Logf("required: %d of 12 requests gave exactly one complete, valid call\n%s", complete, table.String())
}

// TestPromptBasedFallback runs a template without tool support (Phi-3.5):
// the tools go into the system message in seed 004 Example 12's format,
// the grammar is its oneOf of calls and an answer, and the reply parses to
// a valid call.
func TestPromptBasedFallback(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	src, err := os.ReadFile(filepath.Join(testmodels.ChatTemplates(), "microsoft-Phi-3.5-mini-instruct.jinja"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := local.New(m, local.Options{ContextSize: 2048, Threads: 1, ChatTemplate: string(src)})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if d := c.Detection(); d.Format != "prompt" {
		t.Fatalf("Phi-3.5 detected as %s (%s), want prompt", d.Format, d.Reason)
	}
	tools, _ := chat.ParseTools([]byte(seedTool))
	sc, _ := sampler.Resolve(nil, sampler.Overrides{Seed: sampler.Ptr[uint32](1)})
	resp, err := c.Complete(context.Background(), local.Request{
		Messages: []chat.Message{{Role: "user", Content: "What is in pom.xml?"}}, Tools: tools,
		ToolChoice: grammar.Choice{Mode: grammar.ChoiceRequired}, Sampling: sc, MaxTokens: 200, IDSeed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Prompt, "You can use these tools:\n- read_file: Read a text file from the workspace") {
		t.Errorf("the prompt does not describe the tools:\n%s", resp.Prompt)
	}
	if len(resp.Message.ToolCalls) != 1 || len(resp.Violations) != 0 {
		t.Errorf("prompt-based reply: %+v, violations %v, problems %v", resp.Message, resp.Violations, resp.Parsed.Problems)
	}
}
