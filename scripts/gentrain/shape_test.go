package main

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/tools"
)

// TestHeldOutShapes checks that no training task has a held-out shape, or
// any of the directories, module hosts and file names only held-out shapes
// use, and that the held-out tasks meet every held-out shape.
func TestHeldOutShapes(t *testing.T) {
	g := generator{fams: families, seed: 1, window: 4096}
	v := generator{fams: families, seed: 1, window: 4096, varied: 1}
	for i := range 2000 {
		task := g.trainTask(i)
		if i >= 1000 {
			task = v.trainTask(i)
		}
		if isHeldOutShape(task.Shape) {
			t.Fatalf("training task %d (%s) has the held-out shape %s", i, task.Family, task.Shape)
		}
		for _, f := range task.Files {
			text := f.Path
			if f.Path == "go.mod" {
				text = f.Content
			}
			for _, m := range heldOutMarks {
				if strings.Contains(text, m) {
					t.Errorf("training task %d (%s, shape %s): %s has %q, which only held-out shapes use", i, task.Family, task.Shape, f.Path, m)
				}
			}
		}
	}
	met := map[string]bool{}
	for k, task := range g.heldOutTasks(1000, 4*len(families)) {
		if want := k/len(families)%2 == 1; isHeldOutShape(task.Shape) != want {
			t.Errorf("held-out task %d has shape %s, held out %v", k, task.Shape, !want)
		}
		met[task.Shape] = true
	}
	for _, s := range heldShapes {
		if !met[s.name] {
			t.Errorf("no held-out task has the shape %s", s.name)
		}
	}
}

// editArgs are the arguments of an edit_file reply.
func editArgs(t *testing.T, reply string) (tools.EditFileParams, bool) {
	t.Helper()
	if toolOf(reply) != "edit_file" {
		return tools.EditFileParams{}, false
	}
	var c struct {
		Arguments tools.EditFileParams `json:"arguments"`
	}
	body := strings.TrimSuffix(strings.TrimPrefix(reply, "<tool_call>\n"), "\n</tool_call>")
	if err := json.Unmarshal([]byte(body), &c); err != nil {
		t.Fatalf("edit reply %q: %v", reply, err)
	}
	return c.Arguments, true
}

// span is how many lines a text covers.
func span(s string) int { return strings.Count(s, "\n") + 1 }

// TestCopyEdits checks the edits that copy: every line of a multi-line
// old_string is in the last read_file result of its file before the edit,
// numbered as read_file numbers it, and a whole-function edit (the
// rename family's copy variant, a ladder's fix) spans 10 lines or more,
// and no more than read_file shows at the window.
func TestCopyEdits(t *testing.T) {
	s := getSample(t)
	copies := 0
	for i, c := range s.chats {
		task := s.tasks[i]
		lastRead := map[string]string{}
		for j, m := range c.Messages {
			for _, call := range m.ToolCalls {
				var p tools.EditFileParams
				json.Unmarshal([]byte(call.Function.Arguments), &p)
				result := resultOf(c.Messages[j+1:], call.ID)
				switch call.Function.Name {
				case "read_file":
					lastRead[p.Path] = result
				case "edit_file":
					if strings.HasPrefix(result, "edit_file: ") || !strings.Contains(p.OldString, "\n") {
						continue
					}
					shown := map[string]bool{}
					for _, l := range strings.Split(lastRead[p.Path], "\n") {
						if _, text, ok := strings.Cut(l, "| "); ok {
							shown[text] = true
						}
					}
					for _, l := range strings.Split(p.OldString, "\n") {
						if !shown[l] {
							t.Errorf("%s task %d: line %q of old_string is not in the last read of %s:\n%s", task.Family, task.Seed, l, p.Path, lastRead[p.Path])
						}
					}
					if n := span(p.OldString); n >= 10 {
						copies++
						if n > newEnv(shape{}, 4096).maxSpan() {
							t.Errorf("%s task %d: old_string spans %d lines, more than the window allows", task.Family, task.Seed, n)
						}
					}
				}
			}
		}
	}
	if copies == 0 {
		t.Errorf("no edit in the sample spans 10 lines or more")
	}
}

// TestCopySpans draws the rename family's copy variant at a window where
// read_file shows 40 lines and more: its edits span 10 to 40 lines, up to
// 40; one of the longest runs through the real loop.
func TestCopySpans(t *testing.T) {
	const window = 16384
	g := generator{fams: []family{families[slices.IndexFunc(families, func(f family) bool { return f.name == "rename" })]}, seed: 4, window: window}
	longest, at := 0, -1
	for i := range 300 {
		task := g.trainTask(i)
		if task.Variant != "copy" {
			continue
		}
		for _, r := range task.Replies {
			if p, ok := editArgs(t, r); ok {
				n := span(p.OldString)
				if n < 10 || n > 40 || span(p.NewString) != n {
					t.Errorf("rename task %d: the edit spans %d lines (new_string %d), want 10 to 40", i, n, span(p.NewString))
				}
				if n > longest {
					longest, at = n, i
				}
			}
		}
	}
	if longest < 36 {
		t.Fatalf("the longest copy spans %d lines, want up to 40", longest)
	}
	if _, err := transcriptOf(context.Background(), g.trainTask(at), window); err != nil {
		t.Fatal(err)
	}
}

// TestVariedShapes: --varied-share draws each chosen task's shape afresh
// and leaves the other tasks as share 0 writes them; the drawn shapes put
// the package in many directories and files.
func TestVariedShapes(t *testing.T) {
	plain := generator{fams: families, seed: 2, window: 4096}
	half := generator{fams: families, seed: 2, window: 4096, varied: 0.5}
	dirs, files := map[string]bool{}, map[string]bool{}
	n := 0
	for i := range 400 {
		a, b := plain.trainTask(i), half.trainTask(i)
		if b.Shape != "varied" {
			if a.fingerprint() != b.fingerprint() || a.Text != b.Text {
				t.Fatalf("task %d: not varied, yet not the task of share 0", i)
			}
			continue
		}
		n++
		for _, f := range b.Files {
			if strings.HasSuffix(f.Path, ".go") && !strings.HasSuffix(f.Path, "_test.go") && !strings.HasPrefix(f.Path, "cmd/") && !strings.HasPrefix(f.Path, "util/") {
				dir, file := path.Split(f.Path)
				dirs[dir], files[file] = true, true
			}
		}
	}
	if n < 150 || n > 250 {
		t.Errorf("%d of 400 tasks varied at share 0.5", n)
	}
	if len(dirs) < 8 || len(files) < 20 {
		t.Errorf("varied tasks used %d directories and %d file names: %v %v", len(dirs), len(files), dirs, files)
	}
}

// TestMismatchMisses: the recover family's mismatch drill opens with an
// edit whose old_string the file does not hold, in every shape: where a
// band's limits are one apart, the guessed line is another band's.
func TestMismatchMisses(t *testing.T) {
	for i := range 8000 {
		r := rand.New(rand.NewPCG(uint64(i), 5))
		s := varied.vary(r)
		if i%2 == 0 {
			s = pick(r, trainShapes)
		}
		task := editMismatchTask(r, newEnv(s, 4096))
		first, ok := editArgs(t, task.Replies[0])
		if !ok {
			t.Fatalf("task %d: first reply %q is no edit", i, task.Replies[0])
		}
		for _, f := range task.Files {
			if f.Path == first.Path && strings.Contains(f.Content, first.OldString) {
				t.Fatalf("task %d: %s holds the first edit's old_string %q", i, f.Path, first.OldString)
			}
		}
	}
}
