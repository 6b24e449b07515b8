package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/validate"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/internal/testmodels"
)

// TestCallsValidate checks every call of every chat against its tool's
// schema, with the validator the loop uses, and the tools against the
// loop's own definitions.
func TestCallsValidate(t *testing.T) {
	s := getSample(t)
	for i, c := range s.chats {
		defs, err := chat.ParseTools(c.Tools)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, d := range defs {
			names = append(names, d.Name)
		}
		if string(c.Tools) != string(tools.Default().Definitions(names...)) {
			t.Fatalf("chat %d: tools differ from tools.Default().Definitions(%v)", i, names)
		}
		writes := slices.Contains(names, "edit_file") && slices.Contains(names, "write_file")
		if task := s.tasks[i]; task.Family == "report" && writes || task.Want == loop.Verified && !writes {
			t.Errorf("%s task %d (%q) was offered %v", task.Family, task.Seed, task.Text, names)
		}
		v, err := validate.New(defs)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range c.Messages {
			if len(m.ToolCalls) == 0 {
				continue
			}
			if vs := v.Validate(validate.Reply{FinishReason: "tool_calls", Calls: m.ToolCalls}); len(vs) > 0 {
				t.Errorf("%s task %d: calls %+v break their schemas: %+v", s.tasks[i].Family, s.tasks[i].Seed, m.ToolCalls, vs)
			}
		}
	}
}

// TestEditsMatchOnce replays the edits of every chat on the task's files:
// the old_string of an edit that succeeded occurs exactly once in the file
// at that moment, and the one of an edit that failed (the recover family's
// first try) does not occur at all, or more than once where the tool says
// so, or once where a check refused the text it would write.
func TestEditsMatchOnce(t *testing.T) {
	s := getSample(t)
	failed := 0
	for i, c := range s.chats {
		files := map[string]string{}
		for _, f := range s.tasks[i].Files {
			files[f.Path] = f.Content
		}
		for j, m := range c.Messages {
			for _, call := range m.ToolCalls {
				if call.Function.Name != "edit_file" {
					continue
				}
				var p tools.EditFileParams
				if err := json.Unmarshal([]byte(call.Function.Arguments), &p); err != nil {
					t.Fatal(err)
				}
				result := resultOf(c.Messages[j+1:], call.ID)
				n := strings.Count(files[p.Path], p.OldString)
				if strings.HasPrefix(result, "edit_file: ") {
					failed++
					twice, refused := strings.Contains(result, "old_string occurs "), strings.Contains(result, ": not written: ")
					if twice && n < 2 || refused && n != 1 || !twice && !refused && n != 0 {
						t.Errorf("%s task %d: failed edit's old_string %q occurs %d times in %s", s.tasks[i].Family, s.tasks[i].Seed, p.OldString, n, p.Path)
					}
					continue
				}
				if n != 1 {
					t.Errorf("%s task %d: old_string %q occurs %d times in %s, want 1", s.tasks[i].Family, s.tasks[i].Seed, p.OldString, n, p.Path)
				}
				files[p.Path] = strings.Replace(files[p.Path], p.OldString, p.NewString, 1)
			}
		}
	}
	if failed == 0 {
		t.Errorf("no failed edit in the sample: the recover family's mismatch was not met")
	}
}

// TestRenderedReplies renders every chat with the Qwen 2.5 template and
// finds each scripted reply in it as an assistant turn, byte for byte: the
// training text is what the model is asked to write.
func TestRenderedReplies(t *testing.T) {
	s := getSample(t)
	tmpl, err := chat.NewTemplate(testmodels.ChatTemplate(t, "Qwen-Qwen2.5-7B-Instruct"), "", "<|im_end|>")
	if err != nil {
		t.Fatal(err)
	}
	r := &renderer{tmpl: tmpl}
	for i, c := range s.chats {
		text, err := r.render(c)
		if err != nil {
			t.Fatal(err)
		}
		for _, reply := range s.tasks[i].Replies {
			if !strings.Contains(text, "<|im_start|>assistant\n"+reply+"<|im_end|>") {
				t.Errorf("%s task %d: the rendered chat lacks the reply\n%s\nrendered:\n%s", s.tasks[i].Family, s.tasks[i].Seed, reply, text)
			}
		}
	}
}

// TestRoundTrip reads the JSON lines back with agent/chat's parsers.
func TestRoundTrip(t *testing.T) {
	s := getSample(t)
	for _, c := range s.chats {
		line, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		var raw struct {
			Messages json.RawMessage `json:"messages"`
			Tools    json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal(line, &raw); err != nil {
			t.Fatal(err)
		}
		msgs, err := chat.ParseMessages(raw.Messages)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(c.Messages, msgs); diff != "" {
			t.Errorf("messages read back (-wrote +read):\n%s", diff)
		}
		if _, err := chat.ParseTools(raw.Tools); err != nil {
			t.Error(err)
		}
	}
}

// TestBadRunFails checks that a transcript whose run does not end as
// planned is an error: a fix that never runs the tests ends unverified.
func TestBadRunFails(t *testing.T) {
	for i := 0; ; i++ {
		task := makeTask(families[1], trainSeed(5, i), trainShapes, 4096, false)
		if task.Variant != "named" || toolOf(task.Replies[0]) != "read_file" {
			continue
		}
		task.Replies = []string{task.Replies[0], task.Replies[1], task.Replies[3]} // read, edit, answer
		_, err := transcriptOf(context.Background(), task, 4096)
		if err == nil || !strings.Contains(err.Error(), "want done (verified)") && !strings.Contains(err.Error(), "replies") {
			t.Errorf("transcriptOf(a fix without go test) = %v, want an error", err)
		}
		return
	}
}

// TestHeldOutFiles writes held-out tasks and reads them back.
func TestHeldOutFiles(t *testing.T) {
	dir := t.TempDir()
	g := generator{fams: []family{families[0], families[3]}, seed: 9, window: 4096}
	if _, err := g.writeHeldOut(context.Background(), dir, 10, 4); err != nil {
		t.Fatal(err)
	}
	held := g.heldOutTasks(10, 4)
	for k, want := range held {
		name := fmt.Sprintf("%03d-%s-%s", k, want.Shape, want.Family)
		if isHeldOutShape(want.Shape) != (k >= 2) {
			t.Errorf("held-out task %d has shape %s, want a held-out shape for the second round of families only", k, want.Shape)
		}
		b, err := os.ReadFile(filepath.Join(dir, name, "task.json"))
		if err != nil {
			t.Fatal(err)
		}
		var tf taskFile
		if err := json.Unmarshal(b, &tf); err != nil {
			t.Fatal(err)
		}
		if tf.Task != want.Text || tf.Seed != want.Seed || tf.Seed&heldOutBit == 0 || tf.Answer != want.Answer {
			t.Errorf("%s: task.json %+v, want task %q seed %#x", name, tf, want.Text, want.Seed)
		}
		for _, f := range want.Files {
			got, err := os.ReadFile(filepath.Join(dir, name, "workspace", filepath.FromSlash(f.Path)))
			if err != nil || string(got) != f.Content {
				t.Errorf("%s: workspace file %s = %q, %v; want %q", name, f.Path, got, err, f.Content)
			}
		}
		if _, err := os.Stat(filepath.Join(dir, name, "workspace", "task.json")); err == nil {
			t.Errorf("%s: task.json is inside the workspace", name)
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"pass", "exit code 0\nok  \tcalc\t0.431s", "exit code 0\nok  \tcalc\t0.002s"},
		{"fail", "exit code 1\n--- FAIL: TestSum (0.01s)\n    calc_test.go:6: Sum([1 2]) = 2, want 3\nFAIL\nFAIL\tcalc\t1.250s\nFAIL",
			"exit code 1\n--- FAIL: TestSum (0.00s)\n    calc_test.go:6: Sum([1 2]) = 2, want 3\nFAIL\nFAIL\tcalc\t0.002s\nFAIL"},
		{"a file that mentions times", "1| x := 0.5s\n2| ok 1.5s", "1| x := 0.5s\n2| ok 1.5s"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs := []chat.Message{{Role: "tool", Content: tt.in}, {Role: "user", Content: tt.in}}
			normalize(msgs)
			if msgs[0].Content != tt.want || msgs[1].Content != tt.in {
				t.Errorf("normalize(%q) = %q, want %q (and the user message unchanged: %q)", tt.in, msgs[0].Content, tt.want, msgs[1].Content)
			}
		})
	}
}

func TestFlags(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"nothing to do", []string{"--n", "1"}, "nothing to do"},
		{"unknown family", []string{"--out", "x.jsonl", "--families", "read,poetry"}, `unknown family "poetry"`},
		{"seed too big", []string{"--out", "x.jsonl", "--seed", "4294967296"}, "--seed"},
		{"copy with tasks", []string{"--copy", "--out", "x.jsonl", "--tasks", "held"}, "--copy"},
		{"copy with families", []string{"--copy", "--out", "x.jsonl", "--families", "read"}, "--copy"},
		{"copy turns without copy", []string{"--copy-turns", "3", "--out", "x.jsonl"}, "--copy-turns"},
		{"no copy turns", []string{"--copy", "--copy-turns", "0", "--out", "x.jsonl"}, "--copy-turns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errs strings.Builder
			err := run(context.Background(), tt.args, &out, &errs)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("run(%q) = %v, want an error containing %q", tt.args, err, tt.want)
			}
		})
	}
}

// TestRun writes a small training file through the command line and
// reads its length report.
func TestRun(t *testing.T) {
	out := filepath.Join(t.TempDir(), "train.jsonl")
	var stdout, stderr strings.Builder
	if err := run(context.Background(), []string{"--out", out, "--n", "2", "--families", "restraint,read"}, &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != 2 {
		t.Errorf("%d lines, want 2", n)
	}
	if !strings.Contains(stderr.String(), "restraint") || !strings.Contains(stderr.String(), "read") {
		t.Errorf("length report lacks the families:\n%s", stderr.String())
	}
}

// TestGofmt checks that every Go file of the workspaces is as gofmt
// writes it, as in a real repository.
func TestGofmt(t *testing.T) {
	g := generator{fams: families, seed: 21}
	for i := range 200 {
		for _, f := range g.trainTask(i).Files {
			if strings.HasSuffix(f.Path, ".go") && gofmt(f.Content) != f.Content {
				t.Errorf("task %d: %s is not gofmt'ed:\n%s", i, f.Path, f.Content)
			}
		}
	}
}

// TestGoFlags checks the flags that keep go test's output the same from
// run to run (normalize.go): without -p=1 the order of a build failure and
// another package's "[no test files]" line follows the timing, which no
// test can force.
func TestGoFlags(t *testing.T) {
	for _, f := range []string{"-count=1", "-p=1"} {
		if !slices.Contains(strings.Fields(goFlags), f) {
			t.Errorf("goFlags %q lacks %s", goFlags, f)
		}
	}
}

// TestUndeclaredEditsOnce: in the recovery from an edit the names check
// refuses, the refused edit leaves the file as it was, and the fixing
// edit's old_string occurs once in it.
func TestUndeclaredEditsOnce(t *testing.T) {
	fams, err := pickFamilies([]string{"recover"})
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, wide := range []bool{false, true} {
		for i := range 3000 {
			task := makeTask(fams[0], trainSeed(3, i), trainShapes, 4096, wide)
			if task.Variant != "undeclared" {
				continue
			}
			checked++
			files := map[string]string{}
			for _, f := range task.Files {
				files[f.Path] = f.Content
			}
			edits := 0
			for _, reply := range task.Replies {
				var c struct {
					Name      string               `json:"name"`
					Arguments tools.EditFileParams `json:"arguments"`
				}
				from, to := strings.Index(reply, "{"), strings.LastIndex(reply, "}")
				if from < 0 || to < from {
					continue // an answer
				}
				if err := json.Unmarshal([]byte(reply[from:to+1]), &c); err != nil || c.Name != "edit_file" {
					continue
				}
				p := c.Arguments
				if n := strings.Count(files[p.Path], p.OldString); n != 1 {
					t.Fatalf("task %d (wide %v): old_string %q occurs %d times in %s", task.Seed, wide, p.OldString, n, p.Path)
				}
				if edits++; edits == 1 {
					continue // refused: the file stays as it was
				}
				files[p.Path] = strings.Replace(files[p.Path], p.OldString, p.NewString, 1)
			}
		}
	}
	if checked < 100 {
		t.Fatalf("only %d undeclared tasks checked", checked)
	}
}
