package fewshot

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
	"github.com/loopagent/loop/internal/testmodels"
)

func call(name, args string) chat.ToolCall {
	return chat.ToolCall{Type: "function", Function: chat.FunctionCall{Name: name, Arguments: args}}
}

// seedShots are the two examples of seed 000 Example 8.
var seedShots = Shots{
	{"Which Java version does the build use?",
		call("read_file", `{"path": "example/build.gradle"}`),
		"1| plugins { id 'java' }\n2| java { toolchain { languageVersion = JavaLanguageVersion.of(21) } }",
		"The build uses Java 21 (line 2 of example/build.gradle)."},
	{"Do the tests pass?",
		call("shell", `{"command": "mvn -q test"}`),
		"exit code 1\n[ERROR] Tests run: 12, Failures: 1\n[ERROR] OrderTest.total:31 expected:<30> but was:<27>",
		"No. OrderTest.total fails at line 31: expected 30, got 27."},
}

// TestSeedExample8 prints what the seed's FewShotCost prints and compares
// it with the seed's output, copied verbatim. The block is what the model
// reads: Messages rendered by the Qwen 2.5 template, after its system
// turn, which is the seed's ChatML block; the seed counts a token per
// three characters.
func TestSeedExample8(t *testing.T) {
	tmpl, err := chat.NewTemplate(testmodels.ChatTemplate(t, "Qwen-Qwen2.5-7B-Instruct"), "", "<|im_end|>")
	if err != nil {
		t.Fatal(err)
	}
	rendered, err := tmpl.Render(chat.RenderInput{Messages: seedShots.Messages()})
	if err != nil {
		t.Fatal(err)
	}
	const system = "<|im_start|>system\nYou are Qwen, created by Alibaba Cloud. You are a helpful assistant.<|im_end|>\n"
	block, ok := strings.CutPrefix(rendered, system)
	if !ok {
		t.Fatalf("the render does not start with the template's system turn:\n%s", rendered)
	}
	var out strings.Builder
	chars := utf8.RuneCountInString(block)
	tokens := chars / 3
	fmt.Fprintf(&out, "few-shot block: %d shots, %d characters, about %d tokens\n", len(seedShots), chars, tokens)
	fmt.Fprintf(&out, "one 15-request session: %d prompt tokens without prefix reuse, %d with it\n", 15*tokens, tokens)
	for _, window := range []int{8192, 32768} {
		fmt.Fprintf(&out, "share of a %s-token window: %.1f%%\n", thousands(window), 100*float64(tokens)/float64(window))
	}
	request := "Which Java version does pom.xml use?"
	for _, reply := range []chat.ToolCall{
		call("read_file", `{"path": "pom.xml"}`),
		call("read_file", `{"path": "example/build.gradle"}`),
	} {
		path := stringArgs(reply.Function.Arguments)["path"]
		if len(seedShots.Copied(request, reply)) > 0 {
			fmt.Fprintf(&out, "%s -> copied from a few-shot example, not in the request: %q\n", path, request)
		} else {
			fmt.Fprintf(&out, "%s -> ok\n", path)
		}
	}
	golden.Seed(t, "example8.txt", out.String())
}

// thousands writes n with commas, as Java's %,d.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

func TestCopied(t *testing.T) {
	tests := []struct {
		name    string
		request string
		call    chat.ToolCall
		want    []Copy
	}{
		{"own value", "What is in pom.xml?", call("read_file", `{"path": "pom.xml"}`), nil},
		{"copied path", "What is in pom.xml?", call("read_file", `{"path": "example/build.gradle"}`), []Copy{{"path", "example/build.gradle"}}},
		{"copied under another name", "Run the tests", call("shell", `{"cmd": "mvn -q test"}`), []Copy{{"cmd", "mvn -q test"}}},
		{"in the request too", "Run mvn -q test please", call("shell", `{"command": "mvn -q test"}`), nil},
		{"not JSON", "x", call("shell", `{oops`), nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, seedShots.Copied(tt.request, tt.call)); diff != "" {
				t.Errorf("Copied(%q, %v) mismatch (-want +got):\n%s", tt.request, tt.call.Function, diff)
			}
		})
	}
}

// FuzzCopied: the copy check never panics on any arguments text.
func FuzzCopied(f *testing.F) {
	f.Add("Which Java version does pom.xml use?", `{"path": "example/build.gradle"}`)
	f.Add("", `{"a": [1, "x"], "path": null}`)
	f.Fuzz(func(t *testing.T, request, args string) {
		for _, c := range seedShots.Copied(request, call("read_file", args)) {
			if strings.Contains(request, c.Value) {
				t.Fatalf("Copied(%q, %q) = %v; the value is in the request", request, args, c)
			}
		}
	})
}
