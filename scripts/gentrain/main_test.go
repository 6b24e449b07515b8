package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/eval"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/sandbox"
	"github.com/loopagent/loop/agent/tools"
	"golang.org/x/sync/errgroup"
)

func TestMain(m *testing.M) {
	sandbox.Main()
	os.Setenv("GOFLAGS", goFlags)
	os.Setenv("GOWORK", "off")
	os.Exit(m.Run())
}

// sample is a few tasks of every family and their transcripts, made once
// for the tests that read them.
type sample struct {
	tasks []Task
	chats []Chat
}

var (
	sampleOnce sync.Once
	theSample  sample
	sampleErr  error
)

// wantVariants are the variants of each family (Task.Variant): the sample
// holds one task of each, and of each training shape.
var wantVariants = map[string][]string{
	"read":      {"go", "json"},
	"fix":       {"named", "tests"},
	"failing":   {""},
	"restraint": {""},
	"recover":   {"missing", "missing-grep", "mismatch", "notunique", "refused-push", "refused-sudo", "undeclared"},
	"twofiles":  {""},
	"rename":    {"copy", "short"},
	"addfunc":   {"edit", "write"},
	"newtest":   {"read_file", "grep"},
	"report":    {"why", "where"},
}

// sampleSearch is how many training tasks the sample looks through for
// the variants and shapes.
const sampleSearch = 2000

func getSample(t *testing.T) sample {
	t.Helper()
	sampleOnce.Do(func() {
		g := generator{fams: families, seed: 3, window: 4096}
		seen := map[string]bool{}
		var picked []Task
		for i := range sampleSearch {
			task := g.trainTask(i)
			v, sh := task.Family+":"+task.Variant, "shape:"+task.Shape
			if seen[v] && seen[sh] {
				continue
			}
			seen[v], seen[sh] = true, true
			picked = append(picked, task)
		}
		for f, vs := range wantVariants {
			for _, v := range vs {
				if !seen[f+":"+v] {
					sampleErr = fmt.Errorf("no %s task of variant %q in %d training tasks", f, v, sampleSearch)
					return
				}
			}
		}
		chats := make([]Chat, len(picked))
		eg, ctx := errgroup.WithContext(context.Background())
		eg.SetLimit(chatWorkers)
		for i, task := range picked {
			eg.Go(func() error {
				c, err := transcriptOf(ctx, task, g.window)
				chats[i] = c
				return err
			})
		}
		if sampleErr = eg.Wait(); sampleErr == nil {
			theSample = sample{tasks: picked, chats: chats}
		}
	})
	if sampleErr != nil {
		t.Fatal(sampleErr)
	}
	return theSample
}

// TestDeterministic generates the same chats twice from one seed and
// compares the bytes; another seed gives other chats.
func TestDeterministic(t *testing.T) {
	gen := func(seed uint64, n int) []byte {
		var b bytes.Buffer
		g := generator{fams: families, seed: seed, window: 4096}
		if _, err := g.chats(context.Background(), &b, n, &renderer{}); err != nil {
			t.Fatal(err)
		}
		return b.Bytes()
	}
	a, b := gen(11, len(families)), gen(11, len(families))
	if !bytes.Equal(a, b) {
		t.Errorf("seed 11 gave different bytes on a second run:\n%s", cmp.Diff(string(a), string(b)))
	}
	first := func(b []byte) []byte { return b[:bytes.IndexByte(b, '\n')] }
	if bytes.Equal(first(a), first(gen(12, 1))) {
		t.Errorf("seeds 11 and 12 gave the same chats")
	}
}

// TestHeldOutDisjoint checks that the held-out tasks use other seeds and
// pose other problems than the training tasks of the same run.
func TestHeldOutDisjoint(t *testing.T) {
	for _, seed := range []uint64{0, 1, 1<<32 - 1} {
		g := generator{fams: families, seed: seed, window: 4096}
		const nTrain, nHeld = 2000, 200
		seeds, problems, texts := map[uint64]bool{}, map[string]bool{}, map[string]bool{}
		for i := range nTrain {
			task := g.trainTask(i)
			seeds[task.Seed], problems[task.fingerprint()] = true, true
			texts[task.Text+"\x00"+filesText(task.Files)] = true
		}
		held := g.heldOutTasks(nTrain, nHeld)
		if len(held) != nHeld {
			t.Fatalf("seed %d: %d held-out tasks, want %d", seed, len(held), nHeld)
		}
		for _, h := range held {
			if seeds[h.Seed] {
				t.Errorf("seed %d: held-out task seed %#x is a training seed", seed, h.Seed)
			}
			if problems[h.fingerprint()] || texts[h.Text+"\x00"+filesText(h.Files)] {
				t.Errorf("seed %d: held-out task %#x (%s, %q) is a training task", seed, h.Seed, h.Family, h.Text)
			}
		}
	}
}

func filesText(fs []File) string {
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(f.Path + "\x00" + f.Content + "\x00")
	}
	return b.String()
}

// TestFamiliesEnd checks, from the chats themselves, that each family's
// run ends as intended: a plain answer after no call (restraint), after
// reads and lists (read, recover from a missing file), after a failing go
// test (failing), or after an edit and a passing go test (fix, recover
// from a bad edit).
func TestFamiliesEnd(t *testing.T) {
	s := getSample(t)
	variants := map[string]bool{}
	for i, c := range s.chats {
		task := s.tasks[i]
		msgs := c.Messages
		last := msgs[len(msgs)-1]
		if last.Role != "assistant" || len(last.ToolCalls) > 0 || last.Content == "" {
			t.Fatalf("%s task %d ends with %+v, want a plain answer", task.Family, task.Seed, last)
		}
		if msgs[0].Role != "system" || msgs[0].Content != loop.DefaultSystem || msgs[1].Role != "user" || msgs[1].Content != task.Text {
			t.Errorf("%s task %d starts %+v %+v, want the system prompt and the task", task.Family, task.Seed, msgs[0], msgs[1])
		}
		if task.Answer != "" && !regexp.MustCompile(task.Answer).MatchString(last.Content) {
			t.Errorf("%s task %d: answer %q does not match %q", task.Family, task.Seed, last.Content, task.Answer)
		}
		names := callNames(msgs)
		// A grep that finds a function for the read after it is part of
		// that read.
		variants[task.Family+":"+strings.ReplaceAll(strings.Join(names, ","), "grep,read_file", "read_file")] = true
		edited := slices.Contains(names, "edit_file") || slices.Contains(names, "write_file")
		switch {
		case task.Family == "restraint":
			if len(msgs) != 3 {
				t.Errorf("restraint task %d has %d messages, want system, user, answer", task.Seed, len(msgs))
			}
		case edited:
			cmd, result := lastShell(msgs, goTest)
			if cmd != goTest || !strings.HasPrefix(result, "exit code 0\n") || !strings.Contains("\n"+result, "\nok  \t") {
				t.Errorf("%s task %d: last command %q gave %q, want a passing go test ./...", task.Family, task.Seed, cmd, result)
			}
		case task.Family == "failing" || task.Variant == "refused-sudo":
			if _, result := lastShell(msgs, goTest); !strings.HasPrefix(result, "exit code 1\n") || !strings.Contains(result, "\n--- FAIL: ") {
				t.Errorf("failing task %d: go test gave %q", task.Seed, result)
			}
		}
		if edited != (task.Want == loop.Verified) {
			t.Errorf("%s task %d: edited %v, outcome %s", task.Family, task.Seed, edited, task.Want)
		}
	}
	for _, v := range []string{
		"read:read_file", "fix:read_file,edit_file,shell", "fix:shell,read_file,edit_file,shell",
		"failing:shell", "restraint:",
		"recover:read_file,list_files,read_file", "recover:read_file,grep", "recover:edit_file,read_file,edit_file,shell",
		"recover:read_file,edit_file,edit_file,shell", "recover:shell,shell",
		"recover:read_file,edit_file,shell,shell",
		"twofiles:shell,read_file,edit_file,read_file,edit_file,shell", "rename:read_file,edit_file,shell",
		"addfunc:shell,read_file,write_file,shell", "addfunc:shell,read_file,read_file,edit_file,shell",
		"newtest:read_file,write_file,shell", "report:shell,read_file", "report:grep",
	} {
		if !variants[v] {
			t.Errorf("no chat of variant %s in the sample; variants: %v", v, slices.Sorted(maps.Keys(variants)))
		}
	}
}

// callNames lists the names of the calls of the chat, in order.
func callNames(msgs []chat.Message) []string {
	names := []string{}
	for _, m := range msgs {
		for _, c := range m.ToolCalls {
			names = append(names, c.Function.Name)
		}
	}
	return names
}

// lastShell returns the last shell command of the chat that is want and
// its result.
func lastShell(msgs []chat.Message, want string) (command, result string) {
	for i, m := range msgs {
		for _, c := range m.ToolCalls {
			if c.Function.Name == "shell" {
				var a struct{ Command string }
				json.Unmarshal([]byte(c.Function.Arguments), &a)
				if a.Command != want {
					continue
				}
				command, result = a.Command, resultOf(msgs[i+1:], c.ID)
			}
		}
	}
	return command, result
}

// resultOf is the content of the tool message answering call id.
func resultOf(msgs []chat.Message, id string) string {
	for _, m := range msgs {
		if m.Role == "tool" && m.ToolCallID == id {
			return m.Content
		}
	}
	return ""
}

// TestWideNames generates tasks with wide names: their functions are
// named from nameWords, hundreds of names in a few hundred tasks, and a
// task of every family still runs as it plans.
func TestWideNames(t *testing.T) {
	g := generator{fams: families, seed: 7, window: 4096, wide: true}
	decl := regexp.MustCompile(`(?m)^func ([A-Z][a-z]+)([A-Z][a-z]+)\(`)
	names := map[string]bool{}
	for i := range 300 {
		for _, f := range g.trainTask(i).Files {
			for _, m := range decl.FindAllStringSubmatch(f.Content, -1) {
				if slices.Contains(nameWords, strings.ToLower(m[1])) && slices.Contains(nameWords, strings.ToLower(m[2])) {
					names[m[0]] = true
				}
			}
		}
	}
	if len(names) < 200 {
		t.Errorf("300 tasks with wide names declare %d functions named from nameWords, want 200 or more", len(names))
	}
	if len(nameWords) != len(slices.Compact(slices.Sorted(slices.Values(nameWords)))) {
		t.Error("nameWords holds a word twice")
	}
	eg, ctx := errgroup.WithContext(context.Background())
	eg.SetLimit(chatWorkers)
	for i := range families {
		eg.Go(func() error {
			_, err := transcriptOf(ctx, g.trainTask(i), g.window)
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		t.Error(err)
	}
}

// TestDemoSuite writes the held-out tasks of the demo model's recipe
// (scripts/train-demo.sh: seed 1, 1,000 chats a seed, 40 tasks) and
// compares them with demo/suite, byte for byte: the generator still makes
// the suite the committed model was measured on, so a change to it (wide
// names included) leaves the recipe's small-name chats as they were.
func TestDemoSuite(t *testing.T) {
	dir := t.TempDir()
	g := generator{fams: families, seed: 1, window: 4096, retry: 0.3}
	if _, err := g.writeHeldOut(context.Background(), dir, 1000, 40); err != nil {
		t.Fatal(err)
	}
	want, got := readTree(t, "../../demo/suite"), readTree(t, dir)
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the held-out tasks of seed 1 differ from demo/suite (-demo +generated):\n%s", diff)
	}
}

// readTree is the regular files under dir by their slash-separated path.
func readTree(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(path)
		rel, _ := filepath.Rel(dir, path)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestSyntaxFix checks the syntax drill through the real loop: its first
// edit is refused (the file would not parse) and is not trained, the
// second is made, and the run ends verified (transcriptOf's judge).
func TestSyntaxFix(t *testing.T) {
	g := generator{fams: []family{{"syntaxfix", syntaxFixTask}}, seed: 3, window: 4096}
	for i := range 6 {
		task := g.trainTask(i)
		c, err := transcriptOf(context.Background(), task, g.window)
		if err != nil {
			t.Fatal(err)
		}
		var edits, results []int // message indexes
		for j, m := range c.Messages {
			if len(m.ToolCalls) == 1 && m.ToolCalls[0].Function.Name == "edit_file" {
				edits = append(edits, j)
				results = append(results, j+1)
			}
		}
		if len(edits) != 2 {
			t.Fatalf("task %d: %d edits, want 2", i, len(edits))
		}
		refusal, made := c.Messages[results[0]].Content, c.Messages[results[1]].Content
		if !strings.Contains(refusal, "would not parse") || !strings.HasPrefix(made, "Edited ") {
			t.Errorf("task %d: the edits' results are %q and %q; want a refusal, then an edit", i, refusal, made)
		}
		if !slices.Equal(c.Unweighted, edits[:1]) {
			t.Errorf("task %d: unweighted messages %v, want the refused edit's %d only", i, c.Unweighted, edits[0])
		}
	}
}

// TestCopyRename checks the copy drill through the real loop: its edit's
// old_string is 6 or more lines of the file, its new_string is the
// old_string with the task's name renamed to one the file does not hold,
// both names are two words, and the run goes to plan (the code builds:
// go test passes).
func TestCopyRename(t *testing.T) {
	g := generator{fams: []family{{"copyrename", copyRenameTask}}, seed: 3, window: 4096}
	text := regexp.MustCompile(`(?i)rename ([a-z]+[A-Z][a-z]+) to ([a-z]+[A-Z][a-z]+)`)
	for i := range 6 {
		task := g.trainTask(i)
		c, err := transcriptOf(context.Background(), task, g.window)
		if err != nil {
			t.Fatal(err)
		}
		m := text.FindStringSubmatch(task.Text)
		if m == nil {
			t.Fatalf("task %d: %q names no rename of two-word names", i, task.Text)
		}
		var edits []tools.EditFileParams
		for _, msg := range c.Messages {
			for _, call := range msg.ToolCalls {
				var p tools.EditFileParams
				if call.Function.Name == "edit_file" && json.Unmarshal([]byte(call.Function.Arguments), &p) == nil {
					edits = append(edits, p)
				}
			}
		}
		if len(edits) != 1 {
			t.Fatalf("task %d: %d edits, want 1", i, len(edits))
		}
		e := edits[0]
		src := task.Files[1].Content
		switch {
		case task.Files[1].Path != e.Path:
			t.Errorf("task %d: the edit is of %s, not of %s", i, e.Path, task.Files[1].Path)
		case !strings.Contains(src, e.OldString) || strings.Count(e.OldString, "\n") < 5:
			t.Errorf("task %d: old_string is not 6 or more lines of %s:\n%s", i, e.Path, e.OldString)
		case strings.Contains(src, m[2]) || e.NewString == e.OldString ||
			regexp.MustCompile(`\b`+m[1]+`\b`).ReplaceAllString(e.OldString, m[2]) != e.NewString:
			t.Errorf("task %d: new_string is not old_string with %s renamed to a new %s:\n%s", i, m[1], m[2], e.NewString)
		}
	}
}

// TestCopyChats writes copy chats through the command line and reads them
// back as loop train does: two messages each, the assistant's the user's
// lines again, lines of two-word names and numbers drawn wide, the same
// bytes for the same seed and others for another.
func TestCopyChats(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, seed int) []byte {
		return writeCopy(t, filepath.Join(dir, name), "--n", "300", "--seed", fmt.Sprint(seed))
	}
	a, again, other := write("a.jsonl", 1), write("again.jsonl", 1), write("other.jsonl", 2)
	if !bytes.Equal(a, again) {
		t.Error("the same seed wrote other chats")
	}
	if bytes.Equal(a, other) {
		t.Error("seeds 1 and 2 wrote the same chats")
	}
	line := regexp.MustCompile(`^([a-z]+[A-Z][a-z]+) = ([a-z]+[A-Z][a-z]+) \+ ([0-9]+)$`)
	names := map[string]bool{}
	rows := strings.Split(strings.TrimSuffix(string(a), "\n"), "\n")
	if len(rows) != 300 {
		t.Fatalf("%d chats, want 300", len(rows))
	}
	for i, row := range rows {
		var raw struct {
			Messages json.RawMessage `json:"messages"`
		}
		if err := json.Unmarshal([]byte(row), &raw); err != nil {
			t.Fatalf("chat %d: %v", i, err)
		}
		msgs, err := chat.ParseMessages(raw.Messages)
		if err != nil {
			t.Fatalf("chat %d: %v", i, err)
		}
		if len(msgs) != 2 || msgs[0].Role != "user" || msgs[1].Role != "assistant" {
			t.Fatalf("chat %d: %+v, want a user's message and an assistant's", i, msgs)
		}
		text, ok := strings.CutPrefix(msgs[0].Content, copyPrompt)
		if !ok || msgs[1].Content != text {
			t.Fatalf("chat %d: the assistant writes %q for %q", i, msgs[1].Content, msgs[0].Content)
		}
		ls := strings.Split(text, "\n")
		if len(ls) < 3 || len(ls) > 6 {
			t.Errorf("chat %d: %d lines, want 3 to 6", i, len(ls))
		}
		for _, l := range ls {
			m := line.FindStringSubmatch(l)
			if m == nil {
				t.Fatalf("chat %d: line %q is not name = name + N", i, l)
			}
			if n, _ := strconv.Atoi(m[3]); n < 2 || n > 199 {
				t.Errorf("chat %d: line %q: number outside 2..199", i, l)
			}
			names[m[1]], names[m[2]] = true, true
		}
	}
	// 300 chats of 3 to 6 lines hold about 2,700 names of some 25,000.
	if len(names) < 2000 {
		t.Errorf("%d distinct names in 300 chats, want 2,000 or more", len(names))
	}
}

// writeCopy runs gentrain --copy --out out with args and returns the file.
func writeCopy(t *testing.T, out string, args ...string) []byte {
	t.Helper()
	var stdout, stderr strings.Builder
	if err := run(context.Background(), append([]string{"--copy", "--out", out}, args...), &stdout, &stderr); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCopyTurns writes copy chats of several turns: each opens as the
// agent's chats do, with loop.DefaultSystem and the default tools, and
// every assistant's message writes again the lines of the user's message
// just before it, not an earlier one's.
func TestCopyTurns(t *testing.T) {
	b := writeCopy(t, filepath.Join(t.TempDir(), "turns.jsonl"), "--copy-turns", "4", "--n", "20", "--seed", "5")
	rows := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	if len(rows) != 20 {
		t.Fatalf("%d chats, want 20", len(rows))
	}
	for i, row := range rows {
		var raw struct {
			Messages json.RawMessage `json:"messages"`
			Tools    json.RawMessage `json:"tools"`
		}
		if err := json.Unmarshal([]byte(row), &raw); err != nil {
			t.Fatalf("chat %d: %v", i, err)
		}
		if string(raw.Tools) != string(tools.Default().Definitions()) {
			t.Errorf("chat %d: tools %s, want the default tools", i, raw.Tools)
		}
		msgs, err := chat.ParseMessages(raw.Messages)
		if err != nil {
			t.Fatalf("chat %d: %v", i, err)
		}
		if len(msgs) != 9 || msgs[0].Role != "system" || msgs[0].Content != loop.DefaultSystem {
			t.Fatalf("chat %d: %d messages, the first %+v; want the agent's system prompt and 4 turns", i, len(msgs), msgs[0])
		}
		seen := map[string]bool{}
		for k := 1; k < len(msgs); k += 2 {
			u, a := msgs[k], msgs[k+1]
			text, ok := strings.CutPrefix(u.Content, copyPrompt)
			if u.Role != "user" || a.Role != "assistant" || !ok || a.Content != text {
				t.Fatalf("chat %d, turn %d: %s %q then %s %q, want the user's lines again", i, k/2, u.Role, u.Content, a.Role, a.Content)
			}
			if seen[text] {
				t.Errorf("chat %d: turn %d repeats an earlier turn's lines", i, k/2)
			}
			seen[text] = true
		}
	}
}

// TestPassChecks writes the demo recipe's held-out tasks and a few rename
// drills, and runs each scenario's pass condition twice through
// agent/eval, as loop eval judges it: on the untouched workspace it must
// fail (a task the tests already pass is passed by doing nothing), and
// after the task's reference replies, scripted through the real loop, it
// must pass.
func TestPassChecks(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	g := generator{fams: families, seed: 1, window: 4096, retry: 0.3}
	if _, err := g.writeHeldOut(ctx, dir, 1000, 40); err != nil {
		t.Fatal(err)
	}
	drills := generator{fams: []family{{"copyrename", copyRenameTask}}, seed: 3, window: 4096}
	if _, err := drills.writeHeldOut(ctx, filepath.Join(dir, "drills"), 0, 3); err != nil {
		t.Fatal(err)
	}
	var tasks []string
	for _, pattern := range []string{"*/task.json", "drills/*/task.json"} {
		m, _ := filepath.Glob(filepath.Join(dir, pattern))
		tasks = append(tasks, m...)
	}
	checked := 0
	for _, tf := range tasks {
		td := filepath.Dir(tf)
		var task taskFile
		var sc map[string]any
		if err := json.Unmarshal([]byte(readTree(t, td)["task.json"]), &task); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(readTree(t, td)["scenario.json"]), &sc); err != nil {
			t.Fatal(err)
		}
		// The reference replies as a scripted model, judged below by loop
		// eval's runner.
		sc["replies"] = task.Reference
		b, err := json.Marshal(sc)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(td, "scenario.json"), b, 0o644); err != nil {
			t.Fatal(err)
		}
		check, _ := sc["pass"].(map[string]any)["check"].(string)
		if check == "" {
			continue
		}
		checked++
		if strings.ContainsAny(check, `"\`) {
			t.Errorf("%s: %q holds a quote or a backslash, which scenario.json escapes and scripts/demo.sh reads as they are", filepath.Base(td), check)
		}
		// Before: the pass condition on the workspace as the agent finds it.
		ws := t.TempDir()
		if err := os.CopyFS(ws, os.DirFS(filepath.Join(td, "workspace"))); err != nil {
			t.Fatal(err)
		}
		if code, err := sandbox.Run(sandbox.Command{Args: []string{"sh", "-c", check}, Dir: ws}, nil); err == nil && code == 0 {
			t.Errorf("%s: %q passes before any change", filepath.Base(td), check)
		}
	}
	if checked < 20 {
		t.Fatalf("%d of %d held-out tasks have a pass check, want 20 or more", checked, len(tasks))
	}
	full, err := eval.LookupConfig("full")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range []string{dir, filepath.Join(dir, "drills")} {
		suite, err := eval.LoadSuite(d)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := eval.Runner{Parallel: 4, Window: 4096}.Run(ctx, suite, []eval.Config{full})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rep.Results {
			if !r.Pass {
				t.Errorf("%s: the reference replies fail: %s", r.Scenario, r.Reason)
			}
		}
	}
}
