package window

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
	"github.com/loopagent/loop/internal/testmodels"
)

// add appends msgs as the agent's loop does (addResult, each a
// successful command's result).
func add(t testing.TB, m *Manager, msgs ...chat.Message) {
	t.Helper()
	for _, x := range msgs {
		if _, _, err := addResult(m, x, false); err != nil {
			t.Fatal(err)
		}
	}
}

// addResult appends msg as the agent's loop does: a tool result is capped
// on entry (Cap, by the name of its call; failed says its command
// failed), then appended as it is. before and after are the result's
// length in characters around the cap.
func addResult(m *Manager, msg chat.Message, failed bool) (before, after int, err error) {
	if msg.Role == "tool" {
		text := msg.Text()
		capped := m.Cap(callName(m.History(), msg.ToolCallID), text, failed)
		before, after = utf8.RuneCountInString(text), utf8.RuneCountInString(capped)
		msg.Content, msg.Parts = capped, nil
	}
	return before, after, m.Append(msg)
}

// callName is the name of the newest call in history with the id.
func callName(history []chat.Message, id string) string {
	for i := len(history) - 1; i >= 0; i-- {
		for _, c := range history[i].ToolCalls {
			if c.ID == id {
				return c.Function.Name
			}
		}
	}
	return ""
}

// scriptedSummary is a summarizer that records its prompts.
type scriptedSummary struct{ prompts []string }

func (s *scriptedSummary) summarize(_ context.Context, prompt string) (string, error) {
	s.prompts = append(s.prompts, prompt)
	return fmt.Sprintf("## Goal and constraints\nFix the order total.\n## Done and in progress\nsummary %d", len(s.prompts)), nil
}

// longTurn is a 30-step session in one user turn, as `loop run` makes
// one: reads, edits and test runs of a handful of files, results of
// 300 to 4,000 characters.
func longTurn(steps int) []chat.Message {
	files := []string{"order.go", "order_test.go", "total.go", "tax.go", "README.md"}
	var h []chat.Message
	for i := range steps {
		id := fmt.Sprintf("call_%d", i)
		file := files[i*7%len(files)]
		var call chat.Message
		var result string
		switch i % 3 {
		case 0:
			call = namedCall(id, "read_file", `{"path":"`+file+`"}`)
			result = strings.Repeat("func f() { return }\n", 40+i*37%150)
		case 1:
			call = namedCall(id, "shell", `{"command":"go test ./..."}`)
			result = goTestFailure()
		case 2:
			call = namedCall(id, "edit_file", `{"path":"`+file+`","old":"a","new":"b"}`)
			result = "edited " + file
		}
		h = append(h, call, resultMsg(id, result))
	}
	return h
}

// TestManagerLongTurn: a 30-step session on an 8,192-token window
// finishes without overflow or orphan, compacts, cuts at assistant
// messages (the turn has one user message), and every prompt between two
// compactions extends the one before.
func TestManagerLongTurn(t *testing.T) {
	s := &scriptedSummary{}
	m := New(Config{Window: 8192, System: msg("system", "You are loop."), Summarize: s.summarize})
	ctx := context.Background()
	add(t, m, msg("user", "Fix the order total."))
	compactions := 0
	var last []chat.Message
	h := longTurn(30)
	for i := 0; i < len(h); i += 2 {
		req, err := m.Request(ctx)
		if err != nil {
			t.Fatalf("step %d: %v", i/2, err)
		}
		if err := ValidatePairs(req.Messages); err != nil {
			t.Fatalf("step %d: %v", i/2, err)
		}
		if req.Tokens+ReserveFor(8192) > 8192 {
			t.Fatalf("step %d: %d tokens do not fit", i/2, req.Tokens)
		}
		if req.Compaction != nil {
			compactions++
			if req.Compaction.Reset {
				t.Errorf("step %d: hard reset; the kept turns should fit", i/2)
			}
		} else if last != nil && (len(req.Messages) < len(last) || !cmp.Equal(last, req.Messages[:len(last)])) {
			t.Errorf("step %d: the request does not extend the last one: %s after %s", i/2, shape(req.Messages), shape(last))
		}
		last = req.Messages
		for _, x := range h[i : i+2] {
			if _, _, err := addResult(m, x, x.Role == "tool" && strings.Contains(x.Content, "FAIL")); err != nil {
				t.Fatal(err)
			}
		}
	}
	if compactions == 0 {
		t.Fatal("no compaction in 30 steps on 8K")
	}
	if got := m.History(); got[len(got)-1].ToolCallID != "call_29" {
		t.Errorf("last message %+v, want the result of call_29", got[len(got)-1])
	}
	if !strings.Contains(s.prompts[len(s.prompts)-1], "Files modified so far: ") {
		t.Errorf("summary prompt has no file lists:\n%s", s.prompts[len(s.prompts)-1])
	}
	t.Logf("%d compactions; files %+v", compactions, m.files)
}

func TestManagerRefusesOrphan(t *testing.T) {
	m := New(Config{System: msg("system", "s")})
	_, _, err := addResult(m, resultMsg("c1", "x"), false)
	var pe *PairError
	if !errors.As(err, &pe) || pe.Orphan != "c1" {
		t.Fatalf("Append(orphan) = %v, want orphan result c1", err)
	}
	if n := len(m.History()); n != 1 {
		t.Errorf("history has %d messages after a refused add, want 1", n)
	}
	add(t, m, callMsg("c2"))
	if _, err := m.Request(context.Background()); !errors.As(err, &pe) || len(pe.Unanswered) != 1 {
		t.Errorf("Request with an unanswered call = %v, want calls without results [c2]", err)
	}
}

// TestManagerHardReset: when the kept turn alone does not fit, the
// history is reset to the task and the summary.
func TestManagerHardReset(t *testing.T) {
	s := &scriptedSummary{}
	m := New(Config{Window: 8192, System: msg("system", "s"), ToolCap: -1, Summarize: s.summarize})
	for _, x := range []chat.Message{msg("user", "the task"), namedCall("c1", "shell", `{"command":"ls"}`), resultMsg("c1", "small"),
		msg("user", "next"), namedCall("c2", "shell", `{"command":"cat big"}`), resultMsg("c2", strings.Repeat("x", 30_000))} {
		add(t, m, x)
	}
	req, err := m.Request(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if req.Compaction == nil || !req.Compaction.Reset {
		t.Fatalf("Request compaction = %+v, want a reset", req.Compaction)
	}
	if got := shape(req.Messages); got != "S U" || !strings.HasPrefix(req.Messages[1].Content, "the task\n\n"+SummaryPrefix) {
		t.Errorf("after reset: %s %q, want S U with the task and the summary", got, req.Messages[1].Content)
	}
}

func TestManagerContextFull(t *testing.T) {
	m := New(Config{Window: 4096, System: msg("system", strings.Repeat("x", 20_000))})
	_, err := m.Request(context.Background())
	if !errors.Is(err, ErrContextFull) {
		t.Fatalf("Request = %v, want ErrContextFull", err)
	}
	if want := "request: 5004 prompt tokens + 1024 reserved > 4096: context window full"; err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
}

func TestManagerSummarizerError(t *testing.T) {
	m := New(Config{Window: 4096, System: msg("system", "s"), Summarize: func(context.Context, string) (string, error) {
		return "", errors.New("model gone")
	}})
	for _, x := range []chat.Message{msg("user", "a"), msg("assistant", strings.Repeat("y", 12_000)), msg("user", "b")} {
		add(t, m, x)
	}
	if _, err := m.Request(context.Background()); !errors.Is(err, ErrSummary) {
		t.Fatalf("Request = %v, want ErrSummary", err)
	}
}

// TestManagerSummaryPrompt: two compactions; the second prompt carries
// the files of the first, the first summary, and the todo list.
func TestManagerSummaryPrompt(t *testing.T) {
	s := &scriptedSummary{}
	m := New(Config{Window: 8192, KeepRecent: 60, System: msg("system", "s"), Summarize: s.summarize,
		Todos: func() string { return "todos 1/2 done\n[x] Read order.go\n[>] Fix Total" }})
	ctx := context.Background()
	turns := [][]chat.Message{
		{msg("user", "Fix the total."), namedCall("c1", "read_file", `{"path":"order.go"}`), resultMsg("c1", "package order")},
		{msg("user", "go on"), namedCall("c2", "edit_file", `{"path":"total.go"}`), resultMsg("c2", "ok"),
			namedCall("c3", "shell", `{"command":"go test"}`), resultMsg("c3", "FAIL: TestTotal\n"+strings.Repeat("log line\n", 20))},
		{msg("user", "again"), namedCall("c4", "shell", `{"command":"go test"}`), resultMsg("c4", "ok")},
	}
	for i, turn := range turns {
		for _, x := range turn {
			add(t, m, x)
		}
		if i > 0 {
			if _, err := m.Compact(ctx); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(s.prompts) != 2 {
		t.Fatalf("%d summaries, want 2", len(s.prompts))
	}
	golden.Check(t, "second_prompt.txt", s.prompts[1])
	if got := shape(m.History()); got != "S U U A[c4] T(c4)" {
		t.Errorf("history %s, want S U U A[c4] T(c4)", got)
	}
	if want := (FileLists{Read: []string{"order.go"}, Modified: []string{"total.go"}}); fmt.Sprint(m.files) != fmt.Sprint(want) {
		t.Errorf("files %+v, want %+v", m.files, want)
	}
}

// TestManagerStaleAtCompaction: a read superseded by an edit in the kept
// part becomes a stub when the manager compacts.
func TestManagerStaleAtCompaction(t *testing.T) {
	m := New(Config{Window: 8192, KeepRecent: 10_000, System: msg("system", "s")})
	for _, x := range []chat.Message{msg("user", "old"), msg("assistant", "done"),
		msg("user", "now"), namedCall("c1", "read_file", `{"path":"a.go"}`), resultMsg("c1", strings.Repeat("old content\n", 20)),
		namedCall("c2", "edit_file", `{"path":"a.go"}`), resultMsg("c2", "ok")} {
		add(t, m, x)
	}
	c, err := m.Compact(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	h := m.History()
	if c.Stubbed != 1 || c.Removed != 2 || h[4].Content != "[earlier read of a.go removed; file was edited]" {
		t.Errorf("Compact = %+v, result %q; want 2 removed, 1 stub", c, h[4].Content)
	}
}

func TestManagerFailedCommand(t *testing.T) {
	m := New(Config{Window: 8192, ToolCap: 400, System: msg("system", "s")})
	for _, x := range []chat.Message{msg("user", "test"), namedCall("c1", "shell", `{"command":"go test"}`)} {
		add(t, m, x)
	}
	before, after, err := addResult(m, resultMsg("c1", goTestFailure()), true)
	if err != nil {
		t.Fatal(err)
	}
	got := m.History()[3].Content
	if after >= before || !strings.Contains(got, "Total() = 1999, want 2000") || !strings.Contains(got, "FAIL\texample.com") {
		t.Errorf("a failed command's result: kept %d of %d chars:\n%s", after, before, got)
	}
}

func TestManagerMeasure(t *testing.T) {
	calls := 0
	m := New(Config{Window: 8192, System: msg("system", "s"), Measure: func(msgs []chat.Message) int {
		calls++
		return 1000 * len(msgs)
	}})
	req, err := m.Request(context.Background())
	if err != nil || req.Tokens != 1000 || calls == 0 {
		t.Errorf("Request = %d tokens, %v, Measure called %d times; want 1000", req.Tokens, err, calls)
	}
}

// TestPrefixQwenTemplate: with the Qwen 2.5 template and tools, each
// request of a scripted session extends the one before between
// compactions, as Example 11's stable layout measured.
func TestPrefixQwenTemplate(t *testing.T) {
	tmpl, err := chat.NewTemplate(testmodels.ChatTemplate(t, "Qwen-Qwen2.5-7B-Instruct"), "", "<|im_end|>")
	if err != nil {
		t.Fatal(err)
	}
	tools, err := chat.ParseTools([]byte(`[{"type":"function","function":{"name":"read_file","description":"Read a file.","parameters":{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	render := func(msgs []chat.Message) (string, error) {
		p, err := tmpl.RenderPrompt(chat.PromptInput{Messages: msgs, Tools: tools, AddGenerationPrompt: true})
		return p.Text, err
	}
	h := append([]chat.Message{msg("system", "You are loop."), msg("user", "Fix the total.")}, longTurn(6)...)
	for n := 2; n+2 <= len(h); n += 2 {
		first, err := render(h[:n])
		if err != nil {
			t.Fatal(err)
		}
		second, err := render(h[:n+2])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(second, first) {
			t.Errorf("request %d does not extend request %d:\n%s\n---\n%s", n/2+1, n/2, first, second)
		}
	}
}

// TestManagerNoChurn: above the trigger with nothing new to summarize
// (the fixed part is large), a request does not call the summarizer
// again.
func TestManagerNoChurn(t *testing.T) {
	s := &scriptedSummary{}
	m := New(Config{Window: 8192, KeepRecent: 10, System: msg("system", strings.Repeat("x", 22_400)), Summarize: s.summarize})
	ctx := context.Background()
	add(t, m, msg("user", "task"), namedCall("c1", "shell", `{"command":"ls"}`), resultMsg("c1", strings.Repeat("f\n", 300)))
	for i, want := range []int{1, 1} {
		req, err := m.Request(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(s.prompts) != want || req.Tokens <= m.cfg.CompactAt {
			t.Fatalf("request %d: %d summaries at %d tokens, want %d above the trigger", i+1, len(s.prompts), req.Tokens, want)
		}
	}
	add(t, m, namedCall("c2", "shell", `{"command":"pwd"}`), resultMsg("c2", "/"))
	if _, err := m.Request(ctx); err != nil || len(s.prompts) != 2 {
		t.Fatalf("request 3: %v, %d summaries; want a second one for the new step", err, len(s.prompts))
	}
}

// shape writes a history in a short notation that shows its pairing at a
// glance, for test failures: S for a system message, U for a user
// message, A for an assistant message (with the ids of its calls,
// A[c2, c3]) and T(c1) for the result of c1.
func shape(msgs []chat.Message) string {
	out := make([]string, len(msgs))
	for i, m := range msgs {
		switch m.Role {
		case "system":
			out[i] = "S"
		case "user":
			out[i] = "U"
		case "tool":
			out[i] = "T(" + m.ToolCallID + ")"
		case "assistant":
			out[i] = "A"
			if len(m.ToolCalls) > 0 {
				ids := make([]string, len(m.ToolCalls))
				for j, c := range m.ToolCalls {
					ids[j] = c.ID
				}
				out[i] += "[" + strings.Join(ids, ", ") + "]"
			}
		default:
			out[i] = fmt.Sprintf("?%s", m.Role)
		}
	}
	return strings.Join(out, " ")
}
