package callformat

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
)

// The examples of seed 004 (/work/shared/seeds/004_a651b790e8b03041.txt).
// Each golden prints what the seed's program printed, in its layout, so
// that the golden can be read against the seed's real output line by line.

// TestSeedExample4 runs the four samples of Example 4 and its two plain
// text checks. The golden is the seed's output verbatim.
func TestSeedExample4(t *testing.T) {
	samples := []struct{ format, text string }{
		{"hermes", "I will read the build file.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}\n</tool_call>"},
		{"llama3", "{\"name\": \"read_file\", \"parameters\": {\"path\": \"pom.xml\"}}"},
		{"mistral", "[TOOL_CALLS][{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}, \"id\": \"a1B2c3D4e\"}]"},
		{"harmony", harmonyExample4},
	}
	var out strings.Builder
	for _, s := range samples {
		p := testFormat(t, s.format).Parse(s.text)
		if len(p.Problems) > 0 {
			t.Errorf("%s Parse(%q) problems %v", s.format, s.text, p.Problems)
		}
		for _, c := range p.Calls {
			id := c.ID
			if id == "" {
				id = "null"
			}
			fmt.Fprintf(&out, "%-8s name=%s arguments=%s id=%s content=\"%s\"\n", s.format, c.Function.Name, c.Function.Arguments, id, p.Content)
		}
	}
	answer := testFormat(t, "hermes").Parse("pom.xml declares one module.")
	fmt.Fprintf(&out, "plain text: calls=%d content=\"%s\"\n", len(answer.Calls), answer.Content)
	llamaText := testFormat(t, "llama3").Parse(`{"answer": 42}`)
	fmt.Fprintf(&out, "llama3 JSON without name: calls=%d\n", len(llamaText.Calls))
	golden.Seed(t, "output.txt", out.String())
}

// TestSeedExample5 runs the nine inputs of Example 5. The golden has the
// seed's calls and content; problems are listed by kind. Case 8 differs
// from the seed on purpose: the fenced call is reported as outside_format
// (the seed printed errors=[]).
func TestSeedExample5(t *testing.T) {
	f := testFormat(t, "hermes")
	var out strings.Builder
	for i, tt := range example5Tests {
		p := f.Parse(tt.text)
		var calls, kinds []string
		for _, c := range p.Calls {
			calls = append(calls, fmt.Sprintf("ParsedCall[name=%s, arguments=%s]", c.Function.Name, c.Function.Arguments))
		}
		for _, pr := range p.Problems {
			kinds = append(kinds, string(pr.Kind))
		}
		fmt.Fprintf(&out, "%d. calls=[%s] problems=[%s] content=\"%s\"\n", i+1, strings.Join(calls, ", "), strings.Join(kinds, ", "),
			strings.ReplaceAll(p.Content, "\n", "\\n"))
	}
	golden.Check(t, "output.txt", out.String())
}

// TestSeedExample7 is the round trip of Example 7 after a switch of models:
// the 32-character id of Example 6 fails the Mistral Nemo template, and
// RemapIDs gives the call and its result one 9-character id.
func TestSeedExample7(t *testing.T) {
	const longID = "4tchrKKLmaYPKFydOBferm8vtWKKy0lH"
	history := []chat.Message{
		{Role: "user", Content: "What is in pom.xml?"},
		{Role: "assistant", ToolCalls: []chat.ToolCall{call(longID, "read_file", `{"path": "pom.xml"}`)}},
		{Role: "tool", ToolCallID: longID, Content: "<project>demo</project>"},
	}
	tmpl := loadTemplate(t, "mistralai-Mistral-Nemo-Instruct-2407", "<s>", "</s>")
	tools := parseTools[:1]
	if _, err := tmpl.Render(chat.RenderInput{Messages: history, Tools: tools}); err == nil || !strings.Contains(err.Error(), "length 9") {
		t.Fatalf("Render with a 32-character id = %v, want the template's error", err)
	}
	mistral := testFormat(t, "mistral")
	got := RemapIDs(history, mistral, rand.New(rand.NewPCG(7, 7)))
	id := got[1].ToolCalls[0].ID
	if !mistral.ValidID(id) || got[2].ToolCallID != id {
		t.Fatalf("RemapIDs: call id %q, result id %q", id, got[2].ToolCallID)
	}
	if history[1].ToolCalls[0].ID != longID || history[2].ToolCallID != longID {
		t.Errorf("RemapIDs changed its input")
	}
	prompt, err := tmpl.Render(chat.RenderInput{Messages: got, Tools: tools})
	if err != nil {
		t.Fatalf("Render after RemapIDs = %v", err)
	}
	for _, want := range []string{`"id": "` + id + `"`, `"call_id": "` + id + `"`} {
		if !strings.Contains(prompt, want) {
			t.Errorf("prompt lacks %s:\n%s", want, prompt)
		}
	}
	if same := RemapIDs(history, testFormat(t, "hermes"), nil); !cmp.Equal(same, history) {
		t.Errorf("RemapIDs for hermes changed a valid id: %+v", same)
	}
}

// TestSeedExample8 is Example 8's program with OrderResults: README.md
// finishes first, and the results go back in call order. The golden is
// the seed's output verbatim.
func TestSeedExample8(t *testing.T) {
	files := map[string]string{"pom.xml": "<project>demo</project>", "README.md": "# Demo"}
	calls := []chat.ToolCall{call("3br1y9dS", "read_file", `{"path":"pom.xml"}`), call("a6jQ6Lrq", "read_file", `{"path":"README.md"}`)}
	path := func(c chat.ToolCall) string {
		return strings.TrimSuffix(strings.TrimPrefix(c.Function.Arguments, `{"path":"`), `"}`)
	}
	var completed []chat.Message
	for i := len(calls) - 1; i >= 0; i-- {
		completed = append(completed, chat.Message{Role: "tool", ToolCallID: calls[i].ID, Content: files[path(calls[i])]})
	}
	var out strings.Builder
	show := func(label string, results []chat.Message) {
		fmt.Fprintln(&out, label)
		for i, c := range calls {
			fmt.Fprintf(&out, "  call %d read_file(%s) <- %s\n", i+1, path(c), results[i].Content)
		}
	}
	show("results in completion order:", completed)
	ordered, err := chat.OrderResults(calls, completed)
	if err != nil {
		t.Fatal(err)
	}
	show("results sorted into call order:", ordered)
	match := true
	for i, r := range ordered {
		match = match && r.ToolCallID == calls[i].ID
	}
	fmt.Fprintf(&out, "ids match positions: %v\n", match)
	golden.Seed(t, "output.txt", out.String())
}

// TestSeedExample12 parses the five replies of Example 12 and prints them
// as the seed's Step records. The golden is the seed's output verbatim.
func TestSeedExample12(t *testing.T) {
	f := testFormat(t, "prompt")
	var out strings.Builder
	for _, r := range example12Replies {
		p := f.Parse(r)
		switch {
		case len(p.Calls) == 1:
			fmt.Fprintf(&out, "Call[tool=%s, arguments=%s]\n", p.Calls[0].Function.Name, p.Calls[0].Function.Arguments)
		case len(p.Problems) == 0:
			fmt.Fprintf(&out, "Answer[text=%s]\n", p.Content)
		case p.Problems[0].Kind == InvalidJSON:
			fmt.Fprintf(&out, "Unparsed[reason=invalid JSON]\n")
		default:
			fmt.Fprintf(&out, "Unparsed[reason=%s]\n", p.Problems[0].Message)
		}
	}
	golden.Seed(t, "output.txt", out.String())
}
