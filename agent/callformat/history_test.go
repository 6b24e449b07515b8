package callformat

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
	"github.com/loopagent/loop/internal/testmodels"
)

// historyCall is a call of a history test and the result it gets.
type historyCall struct {
	id, path, result string
}

func (c historyCall) call() chat.ToolCall {
	return call(c.id, "read_file", `{"path": "`+c.path+`"}`)
}

func (c historyCall) message() chat.Message {
	return chat.Message{Role: "tool", ToolCallID: c.id, Name: "read_file", Content: c.result}
}

// historyConversation is a history of calls: each step's calls in one
// assistant message with content "", then their results.
func historyConversation(steps [][]historyCall) []chat.Message {
	return historyWith(steps, false)
}

// historyWith is historyConversation, with null content in the call
// messages when null is set, as the OpenAI API sends them.
func historyWith(steps [][]historyCall, null bool) []chat.Message {
	msgs := []chat.Message{
		{Role: "system", Content: "You are a coding agent. Use the tools to answer."},
		{Role: "user", Content: "Summarise the project."},
	}
	for _, step := range steps {
		a := chat.Message{Role: "assistant", NullContent: null}
		for _, c := range step {
			a.ToolCalls = append(a.ToolCalls, c.call())
		}
		msgs = append(msgs, a)
		for _, c := range step {
			msgs = append(msgs, c.message())
		}
	}
	return append(msgs, chat.Message{Role: "assistant", Content: "The project is a demo."})
}

// historyCases are the conversations of TestHistory: a round trip, two
// parallel calls, and a 12-step tool loop (seed 003: long tool loops break
// some templates). Ids are 9 alphanumerics, as Mistral's templates demand.
func historyCases() map[string][][]historyCall {
	loop := make([][]historyCall, 12)
	for i := range loop {
		loop[i] = []historyCall{{fmt.Sprintf("call%05d", i+1), fmt.Sprintf("src/Step%02d.java", i+1), fmt.Sprintf("class Step%02d {}", i+1)}}
	}
	return map[string][][]historyCall{
		"round-trip": {{{"call0abc1", "conf/app.yaml", "name: demo-app"}}},
		"parallel":   {{{"call0abc1", "conf/app.yaml", "name: demo-app"}, {"call0abc2", "docs/INTRO.md", "# Intro to demo"}}},
		"loop-12":    loop,
	}
}

// argsShown finds the call's argument in the prompt in any of the forms
// the templates write: JSON ("path": "x", escaped or not), XML
// (<parameter=path>x), Python (path="x"). It returns its index, or -1.
func argsShown(prompt, path string) int {
	forms := []string{`"path": "` + path + `"`, `"path":"` + path + `"`, `\"path\": \"` + path + `\"`,
		"<parameter=path>" + path, "<parameter=path>\n" + path, `path="` + path + `"`, `'path': '` + path + `'`}
	best := -1
	for _, f := range forms {
		if i := strings.Index(prompt, f); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// TestHistory renders the round trip, the parallel calls and the 12-step
// loop on all 28 templates through RenderPrompt, in the format detected
// for each, with the call messages' content "" and null, and checks that every call's arguments and every result are in
// the prompt, each call before its result and each result before the next
// step's call. What the rewrites changed goes to
// testdata/TestHistory/rewrites.txt.
func TestHistory(t *testing.T) {
	cases := historyCases()
	var report strings.Builder
	for _, name := range testmodels.AllChatTemplateNames(t) {
		tmpl := loadTemplate(t, name, "<|bos|>", "<|eos|>")
		format := Detect(tmpl).Format
		fmt.Fprintf(&report, "%s (format %s)\n", name, format)
		for _, cname := range []string{"round-trip", "parallel", "loop-12", "round-trip-null", "parallel-null", "loop-12-null"} {
			base, null := strings.CutSuffix(cname, "-null")
			steps := cases[base]
			t.Run(name+"/"+cname, func(t *testing.T) {
				p, err := tmpl.RenderPrompt(chat.PromptInput{Messages: historyWith(steps, null), Tools: seedTools(t),
					Format: format, AddGenerationPrompt: true, Now: conformanceClock})
				if err != nil {
					t.Fatalf("RenderPrompt() = %v", err)
				}
				checkHistory(t, p.Text, steps)
				fmt.Fprintf(&report, "  %s: %s\n", cname, strings.Join(orNone(p.Rewrites), "; "))
			})
		}
	}
	golden.Check(t, "rewrites.txt", report.String())
}

func orNone(notes []string) []string {
	if len(notes) == 0 {
		return []string{"no rewrite"}
	}
	return notes
}

// checkHistory checks that every call and result of steps is in the
// prompt, in order.
func checkHistory(t *testing.T, prompt string, steps [][]historyCall) {
	t.Helper()
	last := -1 // index of the previous step's last result
	for _, step := range steps {
		stepEnd := last
		for _, c := range step {
			a := argsShown(prompt[last+1:], c.path)
			r := strings.Index(prompt[last+1:], c.result)
			switch {
			case a < 0:
				t.Errorf("the prompt lacks the call of %s (after the previous step):\n%s", c.path, prompt)
			case r < 0:
				t.Errorf("the prompt lacks the result %q (after the previous step):\n%s", c.result, prompt)
			case r < a:
				t.Errorf("the result %q comes before its call of %s:\n%s", c.result, c.path, prompt)
			}
			if end := last + 1 + r; r >= 0 && end > stepEnd {
				stepEnd = end
			}
		}
		last = stepEnd
	}
	if !strings.Contains(prompt, "The project is a demo.") {
		t.Errorf("the prompt lacks the answer:\n%s", prompt)
	}
}

// TestRewriteHistory checks each rewrite on a template that needs it.
func TestRewriteHistory(t *testing.T) {
	pom := historyCall{"call0abc1", "conf/app.yaml", "name: demo-app"}
	intro := historyCall{"call0abc2", "docs/INTRO.md", "# Intro to demo"}
	sys := chat.Message{Role: "system", Content: "Be brief."}
	user := chat.Message{Role: "user", Content: "Summarise."}
	two := chat.Message{Role: "assistant", ToolCalls: []chat.ToolCall{pom.call(), intro.call()}}
	tests := []struct {
		name     string
		template string
		in       []chat.Message
		asText   bool
		want     []chat.Message
	}{
		{"llama 3.1 splits parallel calls", "meta-llama-Llama-3.1-8B-Instruct", []chat.Message{user, two, intro.message(), pom.message()}, false,
			[]chat.Message{user, {Role: "assistant", ToolCalls: []chat.ToolCall{pom.call()}}, pom.message(),
				{Role: "assistant", ToolCalls: []chat.ToolCall{intro.call()}}, intro.message()}},
		{"qwen orders results by call", "Qwen-Qwen2.5-7B-Instruct", []chat.Message{user, two, intro.message(), pom.message()}, false,
			[]chat.Message{user, two, pom.message(), intro.message()}},
		{"qwen keeps parallel calls", "Qwen-Qwen2.5-7B-Instruct", []chat.Message{user, two, pom.message(), intro.message()}, false,
			[]chat.Message{user, two, pom.message(), intro.message()}},
		{"gemma", "google-gemma-2-2b-it", []chat.Message{sys, user, {Role: "assistant", ToolCalls: []chat.ToolCall{pom.call()}}, unnamed(pom.message()), user}, false,
			[]chat.Message{{Role: "user", Content: "Be brief.\nSummarise."},
				{Role: "assistant", Content: `{"tool": "read_file", "arguments": {"path": "conf/app.yaml"}}`},
				{Role: "user", Content: "Result of read_file (call call0abc1):\nname: demo-app\n\nSummarise."}}},
		{"granite keeps tool messages", "ibm-granite-granite-3.3-2B-Instruct", []chat.Message{user, {Role: "assistant", Content: "Reading.", ToolCalls: []chat.ToolCall{pom.call()}}, pom.message()}, false,
			[]chat.Message{user, {Role: "assistant", Content: "Reading.\n" + `{"tool": "read_file", "arguments": {"path": "conf/app.yaml"}}`}, pom.message()}},
		{"r1-distill null content", "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", []chat.Message{user, {Role: "assistant", ToolCalls: []chat.ToolCall{pom.call()}}, pom.message()}, false,
			[]chat.Message{user, {Role: "assistant", NullContent: true, ToolCalls: []chat.ToolCall{pom.call()}}, pom.message()}},
		{"told to use the prompt format", "Qwen-Qwen2.5-7B-Instruct", []chat.Message{user, two, pom.message(), intro.message()}, true,
			[]chat.Message{user, {Role: "assistant", Content: `{"tool": "read_file", "arguments": {"path": "conf/app.yaml"}}`}, pom.message(),
				{Role: "assistant", Content: `{"tool": "read_file", "arguments": {"path": "docs/INTRO.md"}}`}, intro.message()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, notes := loadTemplate(t, tt.template, "", "").RewriteHistory(tt.in, tt.asText)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("RewriteHistory() (-want +got):\n%s\nnotes: %q", diff, notes)
			}
		})
	}
}

// unnamed is a tool result without the tool's name, as most clients send
// it.
func unnamed(m chat.Message) chat.Message {
	m.Name = ""
	return m
}

// TestRenderPromptRoundTrip renders the round trip with parallel calls on
// gemma-2, granite 3.3 and Llama 3.1, the templates that could not render
// it, and keeps the prompts in testdata/TestRenderPromptRoundTrip.
func TestRenderPromptRoundTrip(t *testing.T) {
	steps := historyCases()["parallel"]
	for _, name := range []string{"google-gemma-2-2b-it", "ibm-granite-granite-3.3-2B-Instruct", "meta-llama-Llama-3.1-8B-Instruct"} {
		t.Run(name, func(t *testing.T) {
			tmpl := loadTemplate(t, name, "<|bos|>", "<|eos|>")
			p, err := tmpl.RenderPrompt(chat.PromptInput{Messages: historyConversation(steps), Tools: seedTools(t),
				Format: Detect(tmpl).Format, AddGenerationPrompt: true, Now: conformanceClock})
			if err != nil {
				t.Fatalf("RenderPrompt() = %v", err)
			}
			checkHistory(t, p.Text, steps)
			golden.Check(t, name+".txt", p.Text+"\n---\nrewrites:\n"+strings.Join(orNone(p.Rewrites), "\n")+"\n")
		})
	}
}

// FuzzRewriteHistory rewrites fuzzed histories for the templates that need
// every rewrite: it never panics, and every tool result's text survives.
func FuzzRewriteHistory(f *testing.F) {
	f.Add(`[{"role": "system", "content": "s"}, {"role": "user", "content": "u"}, {"role": "assistant", "content": null, "tool_calls": [` +
		`{"id": "a", "type": "function", "function": {"name": "f", "arguments": "{\"x\": 1.0}"}}, {"id": "b", "type": "function", "function": {"name": "g", "arguments": "oops"}}]},` +
		`{"role": "tool", "tool_call_id": "b", "content": "rb"}, {"role": "tool", "content": "ra"}, {"role": "user", "content": [{"type": "text", "text": "t"}]}]`)
	f.Add(`[{"role": "tool", "content": "x"}, {"role": "system", "content": "y"}]`)
	tmpls := []*chat.Template{loadTemplate(f, "google-gemma-2-2b-it", "", ""), loadTemplate(f, "meta-llama-Llama-3.1-8B-Instruct", "", ""),
		loadTemplate(f, "deepseek-ai-DeepSeek-R1-Distill-Qwen-32B", "", "")}
	f.Fuzz(func(t *testing.T, data string) {
		msgs, err := chat.ParseMessages([]byte(data))
		if err != nil {
			return
		}
		for _, tmpl := range tmpls {
			for _, asText := range []bool{false, true} {
				out, _ := tmpl.RewriteHistory(msgs, asText)
				var all strings.Builder
				for _, m := range out {
					all.WriteString(m.Text())
					all.WriteString("\x00")
				}
				for _, m := range msgs {
					if m.Role == "tool" && !strings.Contains(all.String(), m.Text()) {
						t.Fatalf("RewriteHistory(%s) lost the result %q", data, m.Text())
					}
				}
				_, _ = tmpl.Render(chat.RenderInput{Messages: out})
			}
		}
	})
}
