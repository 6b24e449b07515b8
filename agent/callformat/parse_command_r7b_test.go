package callformat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
)

// r7bTemplate is the Command R7B template of the conformance set.
const r7bTemplate = "CohereForAI-c4ai-command-r7b-12-2024-tool_use"

// r7bPom and r7bReadme are the calls of the table, with the ids the model
// numbers them with.
var (
	r7bPom    = call("0", "read_file", `{"path":"pom.xml"}`)
	r7bReadme = call("1", "read_file", `{"path":"README.md"}`)
)

// commandR7BTests: the calls as the template writes them (after an empty
// or a written plan), the answer in its response block, and what a model
// may write otherwise.
var commandR7BTests = []parseTest{
	{"call as the template writes it", "<|START_THINKING|><|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"read_file\", \"parameters\": {\"path\": \"pom.xml\"}}\n]<|END_ACTION|>",
		Parsed{Calls: []chat.ToolCall{r7bPom}}},
	{"plan then two calls", "<|START_THINKING|>I will read both files.<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"read_file\", \"parameters\": {\"path\": \"pom.xml\"}},\n" +
		"    {\"tool_call_id\": \"1\", \"tool_name\": \"read_file\", \"parameters\": {\"path\": \"README.md\"}}\n]<|END_ACTION|>",
		Parsed{Reasoning: "I will read both files.", Calls: []chat.ToolCall{r7bPom, r7bReadme}}},
	{"answer", "<|START_RESPONSE|>pom.xml declares the project demo.<|END_RESPONSE|>", Parsed{Content: "pom.xml declares the project demo."}},
	{"answer cut off", "<|START_RESPONSE|>pom.xml declares", Parsed{Content: "pom.xml declares"}},
	{"plain text", "pom.xml declares one module.", Parsed{Content: "pom.xml declares one module."}},
	{"text before the calls", "<|START_RESPONSE|>Reading.<|END_RESPONSE|><|START_ACTION|>[{\"tool_call_id\": \"0\", \"tool_name\": \"read_file\", \"parameters\": {\"path\": \"pom.xml\"}}]<|END_ACTION|>",
		Parsed{Content: "Reading.", Calls: []chat.ToolCall{r7bPom}}},
	{"no id, keys in another order", `<|START_ACTION|>[{"parameters": {"path": "pom.xml"}, "tool_name": "read_file"}]<|END_ACTION|>`,
		Parsed{Calls: []chat.ToolCall{call("", "read_file", `{"path":"pom.xml"}`)}}},
	{"a number for an id", `<|START_ACTION|>[{"tool_call_id": 7, "tool_name": "read_file", "parameters": {"path": "pom.xml"}}]<|END_ACTION|>`,
		Parsed{Calls: []chat.ToolCall{call("", "read_file", `{"path":"pom.xml"}`)}}},
	{"end of action left out", `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "read_file", "parameters": {"path": "pom.xml"}}]`,
		Parsed{Calls: []chat.ToolCall{r7bPom}}},
	{"cut off", `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "read_file", "parameters": {"pa`, Parsed{Problems: problems(Unterminated)}},
	{"array not closed", `<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "read_file", "parameters": {"path": "pom.xml"}}`,
		Parsed{Calls: []chat.ToolCall{r7bPom}, Problems: problems(Unterminated)}},
	{"reasoning cut off", "<|START_THINKING|>I will read", Parsed{Reasoning: "I will read"}},
	{"name, not tool_name", `<|START_ACTION|>[{"tool_call_id": "0", "name": "read_file", "parameters": {}}]<|END_ACTION|>`, Parsed{Problems: problems(NoName)}},
	{"bad JSON", `<|START_ACTION|>[{tool_name: "read_file"}]<|END_ACTION|>`, Parsed{Problems: problems(InvalidJSON)}},
	{"not an array", `<|START_ACTION|>{"tool_name": "read_file"}<|END_ACTION|>`,
		Parsed{Content: `<|START_ACTION|>{"tool_name": "read_file"}<|END_ACTION|>`, Problems: problems(OutsideFormat, OutsideFormat)}},
	{"call outside an action block", `{"tool_call_id": "0", "tool_name": "read_file", "parameters": {"path": "pom.xml"}}`,
		Parsed{Content: `{"tool_call_id": "0", "tool_name": "read_file", "parameters": {"path": "pom.xml"}}`, Problems: problems(OutsideFormat)}},
	{"empty array", "<|START_ACTION|>[]<|END_ACTION|>", Parsed{}},
	{"think tags are text", "<think>not R7B's</think>", Parsed{Content: "<think>not R7B's</think>"}},
}

func TestParseCommandR7B(t *testing.T) {
	runParseTests(t, testFormat(t, "command-r7b"), commandR7BTests)
}

// TestParseCommandR7BStream feeds every text of the table whole, byte by
// byte and in random pieces: the joined deltas are a prefix of Parse,
// Finish is Parse, and each Feed emits what a full rescan of the text so
// far emits, with and without calls and with the reasoning block open.
func TestParseCommandR7BStream(t *testing.T) {
	for i, tt := range commandR7BTests {
		t.Run(tt.name, func(t *testing.T) {
			checkStream(t, func() Format { return testFormat(t, "command-r7b") }, tt.text, uint64(i))
			for _, opts := range memoOptions {
				for _, chunks := range [][]string{{tt.text}, splitBytes(tt.text), splitRandom(tt.text, uint64(i))} {
					checkMemo(t, "command-r7b", opts, chunks)
				}
			}
		})
	}
}

// TestCommandR7BStreamDeltas: a call is announced with the model's id and
// the tool's name before its arguments end.
func TestCommandR7BStreamDeltas(t *testing.T) {
	p := testFormat(t, "command-r7b").Stream()
	var got []Delta
	for _, c := range []string{"<|START_THINK", "ING|>Read it.<|END_THINKING|><|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_", "name\": \"read_file\", \"parameters\": {\"pa", "th\": \"pom.xml\"}}\n]<|END_ACTION|>"} {
		got = append(got, p.Feed(c)...)
	}
	want := []Delta{
		{Reasoning: "Read it."},
		{Call: &CallDelta{Index: 0, ID: "0", Name: "read_file", Arguments: `{"pa`}},
		{Call: &CallDelta{Index: 0, Arguments: `th": "pom.xml"}`}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Feed deltas (-want +got):\n%s", diff)
	}
	if fin := p.Finish(); len(fin.Calls) != 1 || fin.Calls[0].ID != "0" {
		t.Errorf("Finish() = %+v, want the call with id 0", fin)
	}
}

// TestCommandR7BNoCalls: without calls the response markers are dropped
// still, the reasoning is split off, and an action block is text.
func TestCommandR7BNoCalls(t *testing.T) {
	f, err := NewWithOptions("command-r7b", parseTools, Options{NoCalls: true})
	if err != nil {
		t.Fatal(err)
	}
	runParseTests(t, f, []parseTest{
		{"answer", "<|START_THINKING|>Easy.<|END_THINKING|><|START_RESPONSE|>Hello.<|END_RESPONSE|>", Parsed{Reasoning: "Easy.", Content: "Hello."}},
		{"action is text", `<|START_ACTION|>[{"tool_name": "read_file", "parameters": {}}]<|END_ACTION|>`,
			Parsed{Content: `<|START_ACTION|>[{"tool_name": "read_file", "parameters": {}}]<|END_ACTION|>`}},
	})
}

// TestCommandR7BTemplateRenders renders calls and a text answer with the
// real template and parses the assistant turn back: what a model trained
// on the template writes is what the parser reads. The template numbers
// the calls itself, whatever the history's ids.
func TestCommandR7BTemplateRenders(t *testing.T) {
	reply := r7bRendered(t, renderedReply(t, r7bTemplate, []chat.ToolCall{call("call0abc1", "read_file", `{"path":"pom.xml"}`), call("call0abc2", "read_file", `{"path":"README.md"}`)}))
	got := testFormat(t, "command-r7b").Parse(reply)
	if diff := cmp.Diff(Parsed{Calls: []chat.ToolCall{r7bPom, r7bReadme}}, got, parsedOpts); diff != "" {
		t.Errorf("Parse(%q) (-want +got):\n%s", reply, diff)
	}
	checkStream(t, func() Format { return testFormat(t, "command-r7b") }, reply, 1)

	tmpl := loadTemplate(t, r7bTemplate, "<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>")
	user := chat.Message{Role: "user", Content: "What is in pom.xml?"}
	prompt, err := tmpl.Render(chat.RenderInput{Messages: []chat.Message{user}, Tools: parseTools, AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	full, err := tmpl.Render(chat.RenderInput{Messages: []chat.Message{user, {Role: "assistant", Content: "pom.xml declares the project demo."}}, Tools: parseTools})
	if err != nil {
		t.Fatal(err)
	}
	answer := r7bRendered(t, full[replyStart(prompt, full):])
	if got := testFormat(t, "command-r7b").Parse(answer); got.Content != "pom.xml declares the project demo." || len(got.Calls)+len(got.Problems) > 0 {
		t.Errorf("Parse(%q) = %+v, want the answer as content", answer, got)
	}
}

// r7bRendered returns a rendered assistant turn up to its end-of-turn
// token, where the engine stops.
func r7bRendered(t *testing.T, turn string) string {
	t.Helper()
	reply, _, ok := strings.Cut(turn, "<|END_OF_TURN_TOKEN|>")
	if !ok {
		t.Fatalf("no <|END_OF_TURN_TOKEN|> in the rendered turn %q", turn)
	}
	return reply
}

// TestDetectCommandR7B: the template is detected as Command R7B, with the
// rendered probe call read back; the prompt for it is the template's own,
// with its tool-use instructions and the tools.
func TestDetectCommandR7B(t *testing.T) {
	tmpl := loadTemplate(t, r7bTemplate, "<BOS_TOKEN>", "<|END_OF_TURN_TOKEN|>")
	d := Detect(tmpl)
	if d.Format != "command-r7b" || !strings.Contains(d.Reason, "reads it back") {
		t.Fatalf("Detect(%s) = %s (%s), want command-r7b read back", r7bTemplate, d.Format, d.Reason)
	}
	p, err := tmpl.RenderPrompt(chat.PromptInput{Messages: []chat.Message{{Role: "user", Content: "What is in pom.xml?"}}, Tools: parseTools,
		Format: d.Format, AddGenerationPrompt: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"## Tool Use", `{"name": "read_file"`, "<|START_OF_TURN_TOKEN|><|CHATBOT_TOKEN|>"} {
		if !strings.Contains(p.Text, w) {
			t.Errorf("RenderPrompt() lacks %q:\n%s", w, p.Text)
		}
	}
}

// TestCommandR7BGrammar checks what the grammar derives: the template's
// rendering of two calls after an empty plan (tool_choice required, with
// the reasoning block), the same from the trigger on (auto, lazy), one
// call only when not parallel, and none of the forms the template never
// writes.
func TestCommandR7BGrammar(t *testing.T) {
	f := testFormat(t, "command-r7b")
	two := r7bRendered(t, renderedReply(t, r7bTemplate, []chat.ToolCall{call("a", "read_file", `{"path":"pom.xml"}`), call("b", "head", `{"path":"README.md","lines":3}`)}))
	one := r7bRendered(t, renderedReply(t, r7bTemplate, []chat.ToolCall{call("a", "read_file", `{"path":"pom.xml"}`)}))
	_, action, _ := strings.Cut(two, "<|END_THINKING|>")
	tests := []struct {
		name   string
		opts   grammar.CallOptions
		accept []string
		reject []string
	}{
		{"required, parallel", grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}, Parallel: true, Reasoning: f.ReasoningBlock()},
			[]string{two, one, "<|START_THINKING|>Read both.<|END_THINKING|>" + action, action,
				`<|START_ACTION|>[{"tool_call_id": "12", "tool_name": "read_file", "parameters": {"path": "pom.xml"}}]<|END_ACTION|>`},
			[]string{`<|START_ACTION|>[{"tool_call_id": "a1", "tool_name": "read_file", "parameters": {"path": "pom.xml"}}]<|END_ACTION|>`,
				`<|START_ACTION|>[{"tool_call_id": "0", "tool_name": "cat", "parameters": {"path": "pom.xml"}}]<|END_ACTION|>`,
				`<|START_ACTION|>[{"tool_name": "read_file", "parameters": {"path": "pom.xml"}}]<|END_ACTION|>`,
				`<|START_ACTION|>[{"tool_call_id": "0", "name": "read_file", "arguments": {"path": "pom.xml"}}]<|END_ACTION|>`,
				`<|START_ACTION|>[]<|END_ACTION|>`,
				"<|START_RESPONSE|>pom.xml declares the project demo.<|END_RESPONSE|>"}},
		{"auto", grammar.CallOptions{Parallel: true}, []string{action}, []string{two}},
		{"one call", grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}, Reasoning: f.ReasoningBlock()}, []string{one}, []string{two}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := f.Grammar(tt.opts)
			if err != nil {
				t.Fatal(err)
			}
			checkGrammar(t, g)
			if lazy := tt.opts.Choice.Mode == grammar.ChoiceAuto; g.Lazy != lazy || lazy && !cmp.Equal(g.Triggers, []string{"<|START_ACTION|>"}) {
				t.Errorf("Grammar(%+v): lazy %v, triggers %q", tt.opts, g.Lazy, g.Triggers)
			}
			for _, text := range tt.accept {
				if !gbnfDerives(t, g.GBNF, text) {
					t.Errorf("the grammar rejects %q:\n%s", text, g.GBNF)
				}
			}
			for _, text := range tt.reject {
				if gbnfDerives(t, g.GBNF, text) {
					t.Errorf("the grammar accepts %q:\n%s", text, g.GBNF)
				}
			}
		})
	}
}

func FuzzParseCommandR7B(f *testing.F) { fuzzFormat(f, "command-r7b", texts(commandR7BTests)) }

// r7bBigReplies are replies of about n bytes: many small calls, one call
// that writes a file, and a long plan and answer.
func r7bBigReplies(n int) map[string]string {
	const line = "func main() {\n\tprintln(\"hello, world\")\n}\n"
	file := strings.Repeat(line, n/len(line)+1)[:n]
	var many strings.Builder
	many.WriteString("<|START_THINKING|><|END_THINKING|><|START_ACTION|>[")
	for i := range max(n/160, 1) {
		if i > 0 {
			many.WriteString(",")
		}
		fmt.Fprintf(&many, "\n    {\"tool_call_id\": \"%d\", \"tool_name\": \"read_file\", \"parameters\": {\"path\": \"src/pkg%d/file%d.go\", \"offset\": %d}}", i, i, i, i*10)
	}
	many.WriteString("\n]<|END_ACTION|>")
	return map[string]string{
		"many": many.String(),
		"file": "<|START_ACTION|>[\n    {\"tool_call_id\": \"0\", \"tool_name\": \"write_file\", \"parameters\": {\"path\": \"main.go\", \"content\": " + chat.QuoteJSON(file) + "}}\n]<|END_ACTION|>",
		"text": "<|START_THINKING|>" + file + "<|END_THINKING|><|START_RESPONSE|>" + file + "<|END_RESPONSE|>",
	}
}

// TestCommandR7BStreamLinear is TestStreamLinear for Command R7B's
// replies: 4 times the text, fed 4 bytes at a time, reads and allocates
// at most 5 times as much.
func TestCommandR7BStreamLinear(t *testing.T) {
	small, large := r7bBigReplies(10<<10), r7bBigReplies(40<<10)
	for name, text := range small {
		t.Run(name, func(t *testing.T) {
			if p := testFormat(t, "command-r7b").Parse(large[name]); len(p.Problems) > 0 || len(p.Calls) == 0 && p.Content == "" {
				t.Fatalf("Parse() = %.300v", p)
			}
			w1, a1 := streamCost(t, "command-r7b", text)
			w4, a4 := streamCost(t, "command-r7b", large[name])
			if w4 > 5*max(w1, 1) || a4 > 5*a1 {
				t.Errorf("40 KB read %d bytes and allocated %d, 10 KB %d and %d: more than 5 times", w4, a4, w1, a1)
			}
		})
	}
}

// gbnfDerives reports whether the root rule of gbnf derives text. It
// follows the set of positions where each expression can end, which is
// enough for grammars without left recursion, as the tool-call grammars
// are. llama.cpp's engine is the reference (agent/local's
// TestFormatsEndToEnd runs every format's grammar in it); this lets a test
// here check a grammar against a template's own rendering without cgo.
func gbnfDerives(t *testing.T, gbnf, text string) bool {
	t.Helper()
	g, err := grammar.Parse(gbnf)
	if err != nil {
		t.Fatalf("grammar.Parse = %v\n%s", err, gbnf)
	}
	m := &gbnfMatcher{rules: map[string]grammar.Expr{}, text: []rune(text), memo: map[gbnfKey]map[int]bool{}}
	for _, r := range g.Rules {
		m.rules[r.Name] = r.Expr
	}
	return m.ends(grammar.Ref("root"), 0)[len(m.text)]
}

type gbnfKey struct {
	rule string
	pos  int
}

type gbnfMatcher struct {
	rules map[string]grammar.Expr
	text  []rune
	memo  map[gbnfKey]map[int]bool
}

// ends returns the positions where a match of x that starts at pos ends.
func (m *gbnfMatcher) ends(x grammar.Expr, pos int) map[int]bool {
	out := map[int]bool{}
	switch x := x.(type) {
	case grammar.Alt:
		for _, a := range x {
			for e := range m.ends(a, pos) {
				out[e] = true
			}
		}
	case grammar.Seq:
		out[pos] = true
		for _, item := range x {
			out = m.after(item, out)
		}
	case grammar.Lit:
		if r := []rune(string(x)); pos+len(r) <= len(m.text) && string(m.text[pos:pos+len(r)]) == string(x) {
			out[pos+len(r)] = true
		}
	case grammar.Class:
		if len(x.Ranges) == 0 {
			out[pos] = true
		} else if pos < len(m.text) && classHas(x, m.text[pos]) {
			out[pos+1] = true
		}
	case grammar.Any:
		if pos < len(m.text) {
			out[pos+1] = true
		}
	case grammar.Ref:
		k := gbnfKey{string(x), pos}
		if e, ok := m.memo[k]; ok {
			return e
		}
		m.memo[k] = out // a rule that recurses at pos matches nothing more there
		r, ok := m.rules[string(x)]
		if !ok {
			return out
		}
		out = m.ends(r, pos)
		m.memo[k] = out
	case grammar.Repeat:
		cur := map[int]bool{pos: true}
		if x.Min == 0 {
			out[pos] = true
		}
		for n := 1; (x.Max < 0 || n <= x.Max) && len(cur) > 0 && n <= len(m.text)+x.Min+1; n++ {
			cur = m.after(x.X, cur)
			if n >= x.Min {
				for e := range cur {
					out[e] = true
				}
			}
		}
	}
	return out
}

// after returns the ends of x started at each of starts.
func (m *gbnfMatcher) after(x grammar.Expr, starts map[int]bool) map[int]bool {
	out := map[int]bool{}
	for p := range starts {
		for e := range m.ends(x, p) {
			out[e] = true
		}
	}
	return out
}

func classHas(c grammar.Class, r rune) bool {
	in := false
	for _, rg := range c.Ranges {
		if rg.Lo <= r && r <= rg.Hi {
			in = true
			break
		}
	}
	return in != c.Negated
}

// TestGBNFDerives checks the matcher of TestCommandR7BGrammar on small
// grammars.
func TestGBNFDerives(t *testing.T) {
	tests := []struct {
		gbnf, text string
		want       bool
	}{
		{`root ::= "a" [0-9]{1,3} "b"`, "a12b", true},
		{`root ::= "a" [0-9]{1,3} "b"`, "a1234b", false},
		{`root ::= "a" [0-9]{1,3} "b"`, "ab", false},
		{`root ::= x* "!"` + "\n" + `x ::= "ab" | "a"`, "aaba!", true},
		{`root ::= x* "!"` + "\n" + `x ::= "ab" | "a"`, "abb!", false},
		{`root ::= [^"] | "é"`, "é", true},
		{`root ::= ("x" | ) "y"`, "y", true},
		{`root ::= "a" . "c"`, "abc", true},
	}
	for _, tt := range tests {
		if got := gbnfDerives(t, tt.gbnf, tt.text); got != tt.want {
			t.Errorf("gbnfDerives(%q, %q) = %v, want %v", tt.gbnf, tt.text, got, tt.want)
		}
	}
}
