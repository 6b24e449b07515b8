package local_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/paths"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/validate"
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
// 12 of 12 at 200 tokens, with and without the prefill and without a logit
// bias. At the seed's 40 tokens some calls are cut off: each ends with
// finish reason "length", and a call read from it carries the length
// violation that keeps the agent from running it.
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
		// The seed's own budget: a call cut off at 40 tokens is reported
		// as such (finish "length", and the length violation on any call
		// read, which the agent never runs).
		{"required prefill=no n=40", grammar.ChoiceRequired, false, 40},
		{"required prefill=yes n=40", grammar.ChoiceRequired, true, 40},
	}
	var table strings.Builder
	complete, complete40, cut40, most := 0, 0, 0, 0
	for _, cfg := range configs {
		for seed := 1; seed <= 6; seed++ {
			sc := model.Sampling{User: sampler.Overrides{Temperature: sampler.Ptr[float32](0.8), Seed: sampler.Ptr(uint32(seed))}}
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
			switch {
			case cfg.maxTokens == 40 && cfg.choice == grammar.ChoiceRequired:
				switch {
				case resp.FinishReason == "length" && (len(resp.Message.ToolCalls) == 0 || hasCheck(resp.Violations, validate.CheckLength)):
					cut40++
				case resp.FinishReason == "tool_calls" && len(resp.Message.ToolCalls) == 1 && len(resp.Violations) == 0:
					complete40++
				default:
					t.Errorf("%s seed %d: neither a complete call nor a cut-off reply without calls: %s, violations %v", cfg.name, seed, row, resp.Violations)
				}
			case cfg.choice == grammar.ChoiceRequired:
				most = max(most, resp.Usage.CompletionTokens)
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
	if cut40 == 0 {
		t.Errorf("at the seed's 40 tokens no required call was cut off: the budget no longer tests the cut-off path")
	}
	t.Logf("required: %d of 12 requests gave exactly one complete, valid call at 200 tokens (the longest took %d tokens); at 40 tokens, %d complete and %d cut off, each flagged\n%s",
		complete, most, complete40, cut40, table.String())
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
	sc := model.Sampling{User: sampler.Overrides{Seed: sampler.Ptr[uint32](1)}}
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

// TestLiveGrammarTools narrows the grammar alone (agent/paths): the prompt
// shows read_file with a free path, GrammarTools give the same tool with
// an enum of two files. A random model then calls only those files; with
// the free grammar it makes paths up, or writes one until the token limit.
func TestLiveGrammarTools(t *testing.T) {
	c := newClient(t)
	free, err := chat.ParseTools([]byte(strings.Replace(seedTool, `, "enum": ["pom.xml", "src/Main.java"]`, "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	narrow, err := chat.ParseTools([]byte(seedTool))
	if err != nil {
		t.Fatal(err)
	}
	user := []chat.Message{{Role: "user", Content: "What is in pom.xml?"}}
	madeUp := 0
	for seed := 1; seed <= 4; seed++ {
		for _, narrowed := range []bool{true, false} {
			sc := model.Sampling{User: sampler.Overrides{Temperature: sampler.Ptr[float32](0.8), Seed: sampler.Ptr(uint32(seed))}}
			req := local.Request{Messages: user, Tools: free, ToolChoice: grammar.Choice{Mode: grammar.ChoiceRequired},
				Sampling: sc, MaxTokens: 200, IDSeed: uint64(seed)}
			if narrowed {
				req.GrammarTools = narrow
			}
			resp, err := c.Complete(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Message.ToolCalls) != 1 {
				if narrowed {
					t.Fatalf("seed %d: %d calls, finish %s", seed, len(resp.Message.ToolCalls), resp.FinishReason)
				}
				madeUp++ // a free path that ran to the token limit
				continue
			}
			var args struct{ Path string }
			json.Unmarshal([]byte(resp.Message.ToolCalls[0].Function.Arguments), &args)
			known := args.Path == "pom.xml" || args.Path == "src/Main.java"
			switch {
			case narrowed && !known:
				t.Errorf("seed %d: narrowed grammar wrote path %q", seed, args.Path)
			case !narrowed && !known:
				madeUp++
			}
		}
	}
	if madeUp == 0 {
		t.Error("the free grammar never made a path up: the test shows nothing")
	}
}

// TestLiveEditGrammar: with edit_file narrowed to a file the conversation
// read (agent/paths), a random model's every edit names that file and an
// old_string the file holds, so the edit applies; the prompt's tools are
// the real ones.
func TestLiveEditGrammar(t *testing.T) {
	c := newClient(t)
	dir := t.TempDir()
	src := "package cart\n\n// Charge returns unit times count.\nfunc Charge(unit, count int) int {\n\treturn unit + count\n}\n"
	if err := os.WriteFile(filepath.Join(dir, "cart.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := tools.NewWorkspace(dir, tools.Config{})
	if err != nil {
		t.Fatal(err)
	}
	set, err := tools.Default().Subset("read_file", "edit_file")
	if err != nil {
		t.Fatal(err)
	}
	defs, err := chat.ParseTools(set.Definitions())
	if err != nil {
		t.Fatal(err)
	}
	narrow := paths.Narrow(context.Background(), defs, set, ws, []string{"cart.go"})
	user := []chat.Message{{Role: "user", Content: "Fix Charge in cart.go."}}
	for seed := 1; seed <= 6; seed++ {
		sc := model.Sampling{User: sampler.Overrides{Temperature: sampler.Ptr[float32](0.8), Seed: sampler.Ptr(uint32(seed))}}
		resp, err := c.Complete(context.Background(), local.Request{Messages: user, Tools: defs, GrammarTools: narrow,
			ToolChoice: grammar.Choice{Mode: grammar.ChoiceFunction, Function: "edit_file"}, Sampling: sc, MaxTokens: 120, IDSeed: uint64(seed)})
		if err != nil {
			t.Fatal(err)
		}
		var args tools.EditFileParams
		if len(resp.Message.ToolCalls) == 1 {
			if err := json.Unmarshal([]byte(resp.Message.ToolCalls[0].Function.Arguments), &args); err != nil {
				t.Fatal(err)
			}
		} else {
			// A random model may write new_string until the token limit;
			// old_string came before it.
			m := regexp.MustCompile(`"path"\s*:\s*"([^"]*)"\s*,\s*"old_string"\s*:\s*("(?:[^"\\]|\\.)*")`).FindStringSubmatch(resp.Text)
			if m == nil || resp.FinishReason != "length" {
				t.Fatalf("seed %d: %d calls, finish %s: %q", seed, len(resp.Message.ToolCalls), resp.FinishReason, resp.Text)
			}
			args.Path = m[1]
			if err := json.Unmarshal([]byte(m[2]), &args.OldString); err != nil {
				t.Fatal(err)
			}
		}
		if args.Path != "cart.go" || args.OldString == "" || !strings.Contains(src, args.OldString) {
			t.Errorf("seed %d: edit of %q with old_string %q, not in the file", seed, args.Path, args.OldString)
		}
	}
}

// hasCheck reports whether a violation of kind c is among vs.
func hasCheck(vs []validate.Violation, c validate.Check) bool {
	for _, v := range vs {
		if v.Check == c {
			return true
		}
	}
	return false
}
