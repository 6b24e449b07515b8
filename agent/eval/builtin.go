package eval

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/loopguard"
	"github.com/loopagent/loop/agent/model"
)

// Builtin suite names.
const (
	// SuiteSeed13 is seven scripted scenarios of one small bug fix on a
	// fake workspace, each with one typical failure of a small model (a
	// trailing comma, a cut-off call, a repeated read, ...).
	SuiteSeed13 = "seed13"
	// SuiteClassifier is eleven one-reply scenarios (the tenth repeats
	// the ninth), one per failure kind of package classify, whose
	// expected call is read_file of pom.xml.
	SuiteClassifier = "classifier"
)

// BuiltinSuites lists the built-in suites' names.
func BuiltinSuites() []string { return []string{SuiteSeed13, SuiteClassifier} }

// LookupSuite returns the built-in suite of that name, or loads the suite
// directory at that path.
func LookupSuite(arg string) (*Suite, error) {
	switch arg {
	case SuiteSeed13:
		return Seed13(), nil
	case SuiteClassifier:
		return Classifier(), nil
	}
	if _, err := os.Stat(arg); err != nil {
		return nil, &Error{Op: "suite", Subject: arg, Err: fmt.Errorf("%w (built-ins: %s)", ErrUnknown, strings.Join(BuiltinSuites(), ", "))}
	}
	return LoadSuite(arg)
}

func hermesCall(json string) string { return "<tool_call>\n" + json + "\n</tool_call>" }

func replies(texts ...string) Replies {
	out := make(Replies, len(texts))
	for i, t := range texts {
		out[i] = model.Reply{Text: t}
	}
	return out
}

// Seed13 returns the seven scenarios of SuiteSeed13. The fake
// workspace's read_file returns "int total() { return 27; }", edit_file
// fixes the bug when it replaces "27", and the shell's tests pass only
// after that. "repeats read_file" switches to an edit once the loop
// guard's note comes; "answers before testing" gets two more replies,
// which only a run that refuses the first answer reads: the model runs
// the tests when asked, then answers.
func Seed13() *Suite {
	read := hermesCall(`{"name": "read_file", "arguments": {"path": "Order.java"}}`)
	edit := hermesCall(`{"name": "edit_file", "arguments": {"path": "Order.java", "old_string": "27", "new_string": "30"}}`)
	test := hermesCall(`{"name": "shell", "arguments": {"command": "mvn -q test"}}`)
	done := "Fixed: total() returns 30 and the tests pass."
	sc := func(name string, rs []string, afterNote ...string) *Scenario {
		s := &Scenario{Name: name, Task: "total() returns 27 instead of 30. Fix it.", Tools: "seed13", MaxSteps: 8,
			Check: "mvn -q test", Replies: replies(rs...), Pass: Pass{Verified: true}}
		if afterNote != nil {
			s.Branches = []Branch{{When: loopguard.Note, Replies: replies(afterNote...)}}
		}
		return s
	}
	return &Suite{Name: SuiteSeed13, Scenarios: []*Scenario{
		sc("clean run", []string{read, edit, test, done}),
		sc("trailing comma", []string{read, strings.Replace(edit, `"30"}`, `"30",}`, 1), test, done}),
		sc("single quotes", []string{read, edit, strings.ReplaceAll(test, `"`, `'`), done}),
		sc("wrong argument name", []string{read, strings.Replace(edit, `"path"`, `"file"`, 1), edit, test, done}),
		sc("cut-off call", []string{read, edit[:60], edit, test, done}),
		sc("repeats read_file", slices.Repeat([]string{read}, 8), edit, test, done),
		sc("answers before testing", []string{read, edit, done, test, done}),
	}}
}

// Classifier returns the eleven replies of SuiteClassifier as scenarios,
// in a small Maven workspace (pom.xml and
// src/main/java/app/OrderService.java) with the task "Read pom.xml." and
// the expected call read_file {"path": "pom.xml"}. Each scenario is one
// reply, except the tenth (the ninth reply, then its repeat), followed by
// the answer "Done." (except the eleventh, which is an answer). The
// replies' kinds are in Result.Classes, and the parse, schema-valid and
// right-call rates follow from them.
func Classifier() *Suite {
	fence := strings.Repeat("`", 3)
	read := func(path string) string {
		return hermesCall(`{"name": "read_file", "arguments": {"path": ` + path + `}}`)
	}
	texts := []model.Reply{
		{Text: read(`"pom.xml"`), FinishReason: "tool_calls"},
		{Text: "I will read it.\n" + fence + "json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}\n" + fence, FinishReason: "stop"},
		{Text: hermesCall(`{"name": "read_file", "arguments": {"path": "pom.xml",}}`), FinishReason: "stop"},
		{Text: hermesCall(`{'name': 'read_file', 'arguments': {'path': 'pom.xml'}}`), FinishReason: "stop"},
		{Text: hermesCall(`{"name": "cat", "arguments": {"path": "pom.xml"}}`), FinishReason: "stop"},
		{Text: hermesCall(`{"name": "shell", "arguments": {"cmd": "mvn test"}}`), FinishReason: "stop"},
		{Text: read(`["pom.xml"]`), FinishReason: "stop"},
		{Text: "<tool_call>\n{\"name\": \"edit_file\", \"arguments\": {\"path\": \"src/main/ja", FinishReason: "length"},
		{Text: read(`"src/OrderService.java"`), FinishReason: "stop"},
		{Text: read(`"src/OrderService.java"`), FinishReason: "stop"},
		{Text: "The tests pass now.", FinishReason: "stop"},
	}
	names := []string{"correct call", "call in a code fence", "trailing comma", "single quotes", "unknown tool",
		"wrong argument name", "argument as array", "cut off", "missing path", "repeated call", "text only"}
	files := map[string]string{
		"pom.xml":                             "<project><modelVersion>4.0.0</modelVersion></project>\n",
		"src/main/java/app/OrderService.java": "package app;\n\nclass OrderService {\n    int total() { return 27; }\n}\n",
	}
	suite := &Suite{Name: SuiteClassifier}
	for i, r := range texts {
		rs := Replies{r}
		if i == 9 {
			rs = Replies{texts[8], r}
		}
		if i != 10 {
			rs = append(rs, model.Reply{Text: "Done."})
		}
		suite.Scenarios = append(suite.Scenarios, &Scenario{Name: names[i], Task: "Read pom.xml.", Files: files,
			MaxSteps: len(rs), Replies: rs, Pass: Pass{Calls: []ExpectedCall{{Name: "read_file", Arguments: map[string]any{"path": "pom.xml"}}}}})
	}
	return suite
}
