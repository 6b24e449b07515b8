package local_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/window"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// sessionStep is one step of seed 000 Example 10's session: a call and
// the size of its result in characters.
type sessionStep struct {
	tool, target string
	chars        int
}

var seedSession = []sessionStep{
	{"read_file", "OrderService.java", 6000}, {"read_file", "OrderTest.java", 4500},
	{"shell", "mvn test", 9000}, {"edit_file", "OrderService.java", 300},
	{"read_file", "OrderService.java", 6100}, {"shell", "mvn test", 8000},
	{"grep", "total(", 1500}, {"edit_file", "OrderService.java", 300},
	{"read_file", "OrderService.java", 6100}, {"shell", "mvn test", 2500},
}

// addMessage appends msg to mgr as the agent's loop does: a tool result
// is capped on entry (Cap), then appended.
func addMessage(t *testing.T, mgr *window.Manager, msg chat.Message) {
	t.Helper()
	if msg.Role == "tool" {
		msg.Content = mgr.Cap(msg.Name, msg.Content, false)
	}
	if err := mgr.Append(msg); err != nil {
		t.Fatal(err)
	}
}

// stepMessages are the call and the result of step i, with a result of
// the step's size made of numbered lines.
func stepMessages(i int, s sessionStep) (chat.Message, chat.Message) {
	var args string
	switch s.tool {
	case "read_file":
		args = fmt.Sprintf(`{"path": %q}`, s.target)
	case "shell":
		args = fmt.Sprintf(`{"command": %q}`, s.target)
	case "grep":
		args = fmt.Sprintf(`{"pattern": %q, "path": "."}`, s.target)
	default:
		args = fmt.Sprintf(`{"path": %q, "old_string": "return sum;", "new_string": "return sum + tax;"}`, s.target)
	}
	id := fmt.Sprintf("call%d", i)
	var b strings.Builder
	for l := 1; b.Len() < s.chars; l++ {
		fmt.Fprintf(&b, "%d| step %d: line %d of %s, some code or log text here;\n", l, i, l, s.target)
	}
	result := b.String()[:s.chars]
	call := chat.Message{Role: "assistant", NullContent: true, ToolCalls: []chat.ToolCall{{ID: id, Type: "function",
		Function: chat.FunctionCall{Name: s.tool, Arguments: args}}}}
	return call, chat.Message{Role: "tool", ToolCallID: id, Name: s.tool, Content: result}
}

// sessionPolicy is a context policy of seed 000 Example 10.
type sessionPolicy struct {
	name  string
	cap   int  // characters, negative: none
	stale bool // stale results stubbed before every request
}

// TestRealSession runs seed 000 Example 10's 11-request session through
// the context manager and the tiny Qwen-vocabulary model, with exact
// token counts and one slot: per policy, the prompt tokens sent, the
// tokens computed after cache reuse, and the largest prompt. An
// append-only history computes only its new tokens on every request.
func TestRealSession(t *testing.T) {
	if testing.Short() {
		t.Skip("11 requests of up to 17,000 tokens per policy")
	}
	m := loadModel(t, testmodels.TinyQwen15F32)
	c, err := local.New(m, local.Options{ContextSize: 20480, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	toolDefs, err := chat.ParseTools(tools.Default().Definitions())
	if err != nil {
		t.Fatal(err)
	}
	var keepAllSent int
	for _, p := range []sessionPolicy{{"keep-all", -1, false}, {"cap", 1200, false}, {"cap+stale", 1200, true}} {
		mgr := window.New(window.Config{Window: 20480, ToolCap: p.cap, System: chat.Message{Role: "system", Content: loop.DefaultSystem},
			Counter: tokenCount{m}, CompactAt: 1 << 30})
		addMessage(t, mgr, chat.Message{Role: "user", Content: "OrderTest.total fails. Fix OrderService.java."})
		var sent, computed, largest, prev int
		var rows []string
		for i := 0; i <= len(seedSession); i++ {
			req, err := mgr.Request(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			msgs := req.Messages
			if p.stale {
				msgs, _ = window.StubStale(msgs, window.DefaultClassify)
			}
			resp, err := c.Complete(context.Background(), local.Request{Messages: msgs, Tools: toolDefs, MaxTokens: 1})
			if err != nil {
				t.Fatal(err)
			}
			u := resp.Usage
			sent, computed, largest = sent+u.PromptTokens, computed+u.PromptN, max(largest, u.PromptTokens)
			rows = append(rows, fmt.Sprintf("%2d %6d %6d %6d", i+1, u.PromptTokens, u.CacheN, u.PromptN))
			// Append-only: only the tokens past the last prompt are
			// computed (+1: the generation prompt's last token).
			if !p.stale && i > 0 && u.PromptN > u.PromptTokens-prev+1 {
				t.Errorf("%s request %d: %d tokens computed, %d new", p.name, i+1, u.PromptN, u.PromptTokens-prev)
			}
			prev = u.PromptTokens
			if i < len(seedSession) {
				call, result := stepMessages(i, seedSession[i])
				addMessage(t, mgr, call)
				addMessage(t, mgr, result)
			}
		}
		if p.name == "keep-all" {
			keepAllSent = sent
		}
		t.Logf("%-9s sent %6d  computed %6d (%.1f%% of keep-all's sent)  largest %6d\n   req prompt cache_n prompt_n\n   %s",
			p.name, sent, computed, 100*float64(computed)/float64(keepAllSent), largest, strings.Join(rows, "\n   "))
		if computed*5 > keepAllSent {
			t.Errorf("%s computed %d tokens, over 20%% of keep-all's %d sent", p.name, computed, keepAllSent)
		}
	}
}

// tokenCount counts with the model's tokenizer.
type tokenCount struct{ m *llama.Model }

func (c tokenCount) Count(text string) int {
	toks, err := c.m.Tokenize(text, false, false)
	if err != nil {
		return len(text) / 3
	}
	return len(toks)
}

// TestCacheLayouts reproduces seed 002 Example 11 in process: three
// layouts of a two-request conversation on a fresh slot, the tiny model
// with the Qwen 2.5 template and one tool. The seed measured llama-server:
// stable 188/0/188 then 248/188/60; volatile 207/29/178 then 267/40/227;
// volatile data at the end 200/29/171 then 272/200/72
// (prompt/cache_n/prompt_n).
func TestCacheLayouts(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	c := client(t, m, "")
	tool, err := chat.ParseTools([]byte(`[{"type": "function", "function": {"name": "read", "description": "Read a file of the workspace.",
		"parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	const sys = "You are loop, a coding agent. Use the tools to read, edit, and run code in the workspace. Keep answers short."
	user := func(s string) chat.Message { return chat.Message{Role: "user", Content: s} }
	call := chat.Message{Role: "assistant", NullContent: true, ToolCalls: []chat.ToolCall{{ID: "call1", Type: "function",
		Function: chat.FunctionCall{Name: "read", Arguments: `{"path": "src/Order.java"}`}}}}
	result := func(s string) chat.Message {
		return chat.Message{Role: "tool", ToolCallID: "call1", Name: "read", Content: s}
	}
	const task, file = "Fix the failing test in OrderTest.java.", "class Order { int total() { return 0; } }"
	type usage struct{ prompt, cacheN, promptN int }
	send := func(system string, msgs ...chat.Message) usage {
		msgs = append([]chat.Message{{Role: "system", Content: system}}, msgs...)
		resp, err := c.Complete(context.Background(), local.Request{Messages: msgs, Tools: tool, MaxTokens: 1})
		if err != nil {
			t.Fatal(err)
		}
		return usage{resp.Usage.PromptTokens, resp.Usage.CacheN, resp.Usage.PromptN}
	}
	stable1 := send(sys, user(task))
	stable2 := send(sys, user(task), call, result(file))
	vol1 := send(sys+" Current time: 10:41:07. Open todos: 1.", user(task))
	vol2 := send(sys+" Current time: 10:41:19. Open todos: 0.", user(task), call, result(file))
	end1 := send(sys, user(task+" Current time: 10:41:07."))
	end2 := send(sys, user(task+" Current time: 10:41:07."), call, result(file+"\nCurrent time: 10:41:19."))
	t.Logf("layout                  loop: prompt cache_n prompt_n   seed (llama-server)")
	for _, r := range []struct {
		name string
		u    usage
		seed string
	}{{"stable 1", stable1, "188 0 188"}, {"stable 2", stable2, "248 188 60"}, {"volatile 1", vol1, "207 29 178"},
		{"volatile 2", vol2, "267 40 227"}, {"volatile at end 1", end1, "200 29 171"}, {"volatile at end 2", end2, "272 200 72"}} {
		t.Logf("%-22s %6d %7d %8d   %s", r.name, r.u.prompt, r.u.cacheN, r.u.promptN, r.seed)
	}
	if stable2.cacheN != stable1.prompt-1 && stable2.cacheN != stable1.prompt {
		t.Errorf("stable: the second request reused %d of the first's %d tokens", stable2.cacheN, stable1.prompt)
	}
	if vol2.promptN <= 2*stable2.promptN {
		t.Errorf("volatile: %d computed, not much more than stable's %d", vol2.promptN, stable2.promptN)
	}
	if end2.cacheN < end1.prompt-1 {
		t.Errorf("volatile at the end: the second request reused %d of the first's %d tokens", end2.cacheN, end1.prompt)
	}
}

// TestModelSummarizes: the manager's compaction asks the model itself for
// the summary (loop.Summarizer), which comes back in <summary> tags in
// place of the old turns; the prompt fits the window afterwards.
func TestModelSummarizes(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	c := client(t, m, "")
	mgr := window.New(window.Config{Window: 2048, System: chat.Message{Role: "system", Content: loop.DefaultSystem},
		Counter: tokenCount{m}, Summarize: loop.Summarizer(c, 32)})
	addMessage(t, mgr, chat.Message{Role: "user", Content: "OrderTest.total fails. Fix OrderService.java."})
	for i, s := range seedSession {
		call, result := stepMessages(i, s)
		addMessage(t, mgr, call)
		addMessage(t, mgr, result)
	}
	req, err := mgr.Request(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if req.Compaction == nil {
		t.Fatalf("no compaction at %d tokens on a 2048-token window", req.Tokens)
	}
	h := req.Messages
	if !strings.HasPrefix(h[1].Content, "<summary>") && !strings.Contains(h[1].Content, "<summary>") {
		t.Errorf("the second message is not the model's summary: %q", h[1].Content)
	}
	t.Logf("compaction %+v; summary %q", *req.Compaction, h[1].Content)
}
