package window

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
)

// The tests in this file reproduce the printed outputs of seed 002's
// programs (and seed 000 Example 10) with this package's code, from the
// seeds' inputs, and compare them with the seeds' own output, copied
// verbatim into read-only files.

// TestSeedBudget: seed 002 Example 1, the budget for three windows with a
// 900-token system prompt, 1,400 tokens of tools, 600 of instructions and
// a map of RepoMapTokens(window), counted from texts by a Counter.
func TestSeedBudget(t *testing.T) {
	text := func(tokens int) string { return strings.Repeat("abcd", tokens) } // 4 chars a token
	var budgets []Budget
	for _, w := range []int{8192, 16384, 32768} {
		budgets = append(budgets, NewBudget(w, Estimate{}, Parts{
			System: text(900), Tools: text(1400), Instructions: text(600), RepoMap: text(RepoMapTokens(w)),
		}))
	}
	var sb strings.Builder
	if err := WriteBudgets(&sb, budgets, 60+1200); err != nil {
		t.Fatal(err)
	}
	golden.Seed(t, "seed002_example01.txt", sb.String())
}

// buildLog is the 43-line build log of seed 002 Example 3.
func buildLog() string {
	var sb strings.Builder
	sb.WriteString("[INFO] Building app 1.0\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&sb, "[INFO] Compiling Source%d.java\n", i)
	}
	sb.WriteString("[ERROR] OrderServiceTest.java:[31,9] cannot find symbol\n")
	sb.WriteString("[INFO] BUILD FAILURE")
	return sb.String()
}

// TestSeedTruncation: seed 002 Example 3, four policies on one build log.
// The seed's "lines 2+2" is TruncateLines (the HeadTailLines policy)
// given room for those four lines, 131 characters with their newlines.
func TestSeedTruncation(t *testing.T) {
	log := buildLog()
	var sb strings.Builder
	fmt.Fprintf(&sb, "original: %d chars, %d lines\n", len(log), strings.Count(log, "\n")+1)
	results := []struct{ name, text string }{
		{"head", TruncateHead(log, 160)},
		{"tail", TruncateTail(log, 160)},
		{"head+tail", TruncateHeadTail(log, 160)},
		{"lines 2+2", TruncateLines(log, 131)},
	}
	for _, r := range results {
		fmt.Fprintf(&sb, "== %s: %d chars, keeps error line: %t, keeps first line: %t\n",
			r.name, len(r.text), strings.Contains(r.text, "[ERROR]"), strings.Contains(r.text, "Building app"))
	}
	sb.WriteString("== lines 2+2 text:\n" + results[3].text + "\n")
	golden.Seed(t, "seed002_example03.txt", sb.String())
}

func callMsg(ids ...string) chat.Message {
	m := chat.Message{Role: "assistant"}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, chat.ToolCall{ID: id, Type: "function", Function: chat.FunctionCall{Name: "read", Arguments: "{}"}})
	}
	return m
}

func resultMsg(id, text string) chat.Message {
	return chat.Message{Role: "tool", ToolCallID: id, Content: text}
}

func msg(role, text string) chat.Message { return chat.Message{Role: role, Content: text} }

// TestSeedPairSafeTrim: seed 002 Example 4, keeping the last six messages
// naively, and as a compaction cuts: at a user or assistant message, and
// at a user message only.
func TestSeedPairSafeTrim(t *testing.T) {
	h := []chat.Message{msg("system", "You are loop."), msg("user", "Fix the test"),
		callMsg("c1"), resultMsg("c1", "test source"),
		callMsg("c2", "c3"), resultMsg("c2", "service source"), resultMsg("c3", "pom.xml"),
		msg("assistant", "Found it."), msg("user", "Now run it"), callMsg("c4"), resultMsg("c4", "BUILD SUCCESS")}
	verdict := func(h []chat.Message) string {
		if err := ValidatePairs(h); err != nil {
			return err.Error()
		}
		return "valid"
	}
	naive := append([]chat.Message{h[0]}, h[len(h)-6:]...) // the cut the validator must catch
	rows := []struct {
		name string
		h    []chat.Message
	}{
		{"full", h},
		{"naive", naive},
		{"pi-style", keepLast(t, h, 6, AtAssistant)},
		{"user-only", keepLast(t, h, 6, AtUser)},
	}
	var sb strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&sb, "%-10s %s  -> %s\n", r.name+":", shape(r.h), verdict(r.h))
	}
	golden.Seed(t, "seed002_example04.txt", sb.String())
}

func namedCall(id, name, args string) chat.Message {
	return chat.Message{Role: "assistant", ToolCalls: []chat.ToolCall{{ID: id, Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}}}
}

// TestSeedCompaction: seed 002 Example 5, a compaction through the
// manager with a scripted summarizer; the sizes are Estimate's count of
// the whole history's Transcript.
func TestSeedCompaction(t *testing.T) {
	var prompt string
	summarize := func(_ context.Context, p string) (string, error) {
		prompt = p
		return "Goal: add findAll to OrderService. Done: findAll added in src/OrderService.java. " +
			"Files read: src/OrderService.java. Files modified: src/OrderService.java.", nil
	}
	m := New(Config{System: msg("system", "You are loop."), Summarize: summarize, TranscriptChars: 60})
	h := []chat.Message{msg("user", "Add a findAll method to OrderService and make the tests pass."),
		namedCall("c1", "read", `{"path":"src/OrderService.java"}`), resultMsg("c1", strings.Repeat("public class OrderService { ... }", 20)),
		namedCall("c2", "edit", `{"path":"src/OrderService.java"}`), resultMsg("c2", "ok"),
		msg("user", "Now run the tests."),
		namedCall("c3", "bash", `{"command":"mvn -q test"}`), resultMsg("c3", "BUILD SUCCESS")}
	for _, x := range h {
		add(t, m, x)
	}
	tokens := func(h []chat.Message) int { return Estimate{}.Count(Transcript(h, 100_000)) }
	before := m.History()
	if _, err := m.Compact(context.Background()); err != nil {
		t.Fatal(err)
	}
	after := m.History()
	_, transcript, _ := strings.Cut(prompt, "<transcript>\n")
	transcript, _, _ = strings.Cut(transcript, "</transcript>")
	var sb strings.Builder
	sb.WriteString("to summarizer:\n" + transcript)
	fmt.Fprintf(&sb, "before: %d messages, ~%d tokens\n", len(before), tokens(before))
	fmt.Fprintf(&sb, "after:  %d messages, ~%d tokens\n", len(after), tokens(after))
	golden.Seed(t, "seed002_example05.txt", sb.String())
	if got, want := m.files, (FileLists{Modified: []string{"src/OrderService.java"}}); fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("files %v, want %v", got, want)
	}
}

// TestSeedTriggers: seed 002 Example 6, the compaction triggers of Pi,
// Crush and loop, and OpenHands' event rule.
func TestSeedTriggers(t *testing.T) {
	var sb strings.Builder
	if err := WriteTriggers(&sb, []int{8_192, 32_768, 131_072, 262_144}, DefaultOpenHands); err != nil {
		t.Fatal(err)
	}
	golden.Seed(t, "seed002_example06.txt", sb.String())
}

// TestSeedStrategies: seed 002 Example 13, the window strategies.
func TestSeedStrategies(t *testing.T) {
	var sb strings.Builder
	if err := WriteStrategies(&sb, []Strategy{Plan(8_192), Plan(16_384), Plan(32_768)}); err != nil {
		t.Fatal(err)
	}
	golden.Seed(t, "seed002_example13.txt", sb.String())
}

// TestSeedContextManager: seed 002 Example 14, six turns on an 8,192-token
// window through the manager, counted at 3 characters a token plus 4
// tokens a message, with reads cut head and tail by characters.
func TestSeedContextManager(t *testing.T) {
	m := New(Config{
		Window:      8192,
		System:      msg("system", strings.Repeat("You are loop. ", 40)),
		Counter:     Estimate{CharsPerToken: 3},
		Policies:    map[string]Policy{"read": HeadTail},
		BareSummary: true,
		Summarize: func(context.Context, string) (string, error) {
			return "Task: fix OrderService. Done: read 3 files, edited OrderService.java. Next: run tests.", nil
		},
	})
	var sb strings.Builder
	add := func(x chat.Message) {
		before, after, err := addResult(m, x, false)
		if err != nil {
			t.Fatal(err)
		}
		if after != before {
			fmt.Fprintf(&sb, "truncated %s: %d -> %d chars\n", x.ToolCallID, before, after)
		}
	}
	for turn := 1; turn <= 6; turn++ {
		add(msg("user", fmt.Sprintf("Turn %d: continue the task.", turn)))
		for call := 1; call <= 2; call++ {
			id := fmt.Sprintf("c%d%d", turn, call)
			add(namedCall(id, "read", `{"path":"src/F`+id+`.java"}`))
			add(resultMsg(id, strings.Repeat("x", 1200*call)))
		}
		req, err := m.Request(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if c := req.Compaction; c != nil {
			fmt.Fprintf(&sb, "compacted: removed %d messages, %d -> %d tokens\n", c.Removed, c.Before, c.After)
		}
		fmt.Fprintf(&sb, "turn %d: sent %d messages, ~%d tokens\n", turn, len(req.Messages), req.Tokens)
	}
	golden.Seed(t, "seed002_example14.txt", sb.String())
}

// TestSeedPrefixReuse: seed 002 Example 12, the common prefix of two
// consecutive ChatML prompts in three layouts.
func TestSeedPrefixReuse(t *testing.T) {
	sys := "You are loop, a coding agent. Tools: read, edit, bash."
	user := msg("user", "Fix the failing test.")
	call := msg("assistant", `<tool_call>{"name":"read","arguments":{"path":"Test.java"}}</tool_call>`)
	result := msg("user", "<tool_response>class Test {}</tool_response>")
	rows := []struct {
		name          string
		first, second []chat.Message
	}{
		{"stable", []chat.Message{msg("system", sys), user}, []chat.Message{msg("system", sys), user, call, result}},
		{"time on top", []chat.Message{msg("system", "Time 10:41:07. "+sys), user},
			[]chat.Message{msg("system", "Time 10:41:19. "+sys), user, call, result}},
		{"edited history", []chat.Message{msg("system", sys), user},
			[]chat.Message{msg("system", sys), msg("user", "Fix the failing test (retry 2)."), call, result}},
	}
	var sb strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&sb, "%-14s %s\n", r.name, CommonPrefix(chatML(r.first), chatML(r.second)))
	}
	golden.Seed(t, "seed002_example12.txt", sb.String())
}

// chatML renders messages as the seed does: ChatML, the format of the
// Qwen 2.5 template, each message as <|im_start|>role, its text and
// <|im_end|>, then the assistant's header.
func chatML(msgs []chat.Message) string {
	var sb strings.Builder
	for _, m := range msgs {
		sb.WriteString("<|im_start|>" + m.Role + "\n" + m.Text() + "<|im_end|>\n")
	}
	sb.WriteString("<|im_start|>assistant\n")
	return sb.String()
}
