package chat

import (
	"strings"
	"testing"
	"time"

	"github.com/loopagent/loop/internal/golden"
	"github.com/loopagent/loop/internal/testmodels"
)

// conformanceConversation is a whole tool round trip: system prompt,
// question, one call, its result, the answer. The call id has the 9
// alphanumeric characters the Mistral templates require.
var conformanceConversation = []Message{
	{Role: "system", Content: "You are a coding agent. Use the tools to answer."},
	seedQuestion,
	{Role: "assistant", ToolCalls: []ToolCall{{ID: "call0abc1", Type: "function",
		Function: FunctionCall{Name: "read_file", Arguments: `{"path": "pom.xml"}`}}}},
	{Role: "tool", ToolCallID: "call0abc1", Name: "read_file", Content: "<project>demo</project>"},
	{Role: "assistant", Content: "pom.xml declares the project demo."},
}

// conformanceClock is the fixed clock of the conformance renders.
func conformanceClock() time.Time { return time.Date(2026, time.October, 3, 9, 41, 0, 0, time.UTC) }

// conformanceCannotRender lists the templates that refuse the
// conversation, as they do in llama-server, with the reason.
var conformanceCannotRender = map[string]string{
	// Roles must alternate user/assistant: a tool message breaks it.
	"google-gemma-2-2b-it": "Conversation roles must alternate",
}

// conformanceDropsResults lists the templates that render the
// conversation but leave the tool message out.
var conformanceDropsResults = map[string]bool{
	// Writes only system, user and assistant messages.
	"microsoft-Phi-3.5-mini-instruct": true,
}

// TestConformance renders the conversation with Render, as llama-server
// would, on all 28 templates (testmodels.ChatTemplates and moreTemplateDir), and keeps
// each prompt as testdata/TestConformance/<name>.txt. TestHistory renders
// what loop sends, rewrites included.
// Where the template writes calls, the call must be in the prompt; the
// answer must always be, and the result unless the template drops it.
func TestConformance(t *testing.T) {
	for _, name := range testmodels.AllChatTemplateNames(t) {
		t.Run(name, func(t *testing.T) {
			tmpl := loadTemplate(t, name, "<|bos|>", "<|eos|>")
			got, err := tmpl.Render(RenderInput{Messages: conformanceConversation, Tools: seedTools(t),
				AddGenerationPrompt: true, Now: conformanceClock})
			if reason, ok := conformanceCannotRender[name]; ok {
				if err == nil || !strings.Contains(err.Error(), reason) {
					t.Fatalf("Render() = %v, want an error containing %q", err, reason)
				}
				return
			}
			if err != nil {
				t.Fatalf("Render() = %v", err)
			}
			want := []string{"What is in pom.xml?", "pom.xml declares the project demo."}
			if !conformanceDropsResults[name] {
				want = append(want, "<project>demo</project>")
			}
			if tmpl.Caps().SupportsToolCalls {
				want = append(want, "read_file")
				if argsShown(got, "pom.xml") < 0 {
					t.Errorf("Render() lacks the call's arguments")
				}
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					t.Errorf("Render() lacks %q", w)
				}
			}
			golden.Check(t, name+".txt", got)
		})
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
