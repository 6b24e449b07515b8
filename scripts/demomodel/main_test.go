package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// repoDemo is the repository's demo directory, from this package's.
const repoDemo = "../../demo"

// TestCommittedModel checks the model the repository ships: its size and
// SHA-256 are the manifest's, the held-out suite is the one the manifest
// hashed, and the training reached its last epoch. agent/local's
// TestDemoModel loads the file and runs a step on it.
func TestCommittedModel(t *testing.T) {
	m, err := Check(repoDemo)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := m.training()
	if err != nil {
		t.Fatal(err)
	}
	if tr.Epoch != tr.Recipe.Epochs || len(tr.Report.Epochs) != tr.Epoch {
		t.Errorf("the checkpoint holds %d of %d epochs and %d losses", tr.Epoch, tr.Recipe.Epochs, len(tr.Report.Epochs))
	}
	if len(m.Eval) == 0 || m.Recipe == "" || m.Why == "" {
		t.Errorf("the manifest lacks eval figures (%d), the recipe (%d bytes) or why (%d bytes)", len(m.Eval), len(m.Recipe), len(m.Why))
	}
}

// TestCheckRefuses shows that Check fails on a model file, or a suite,
// other than the manifest's.
func TestCheckRefuses(t *testing.T) {
	dir := t.TempDir()
	ckpt := t.TempDir()
	write := func(path, s string) { writeFile(t, path, s) }
	f := demoDir(t, dir)
	write(filepath.Join(ckpt, "manifest.json"), `{"format": 1, "epoch": 1, "model": {"path": "m", "size": 7, "sha256": "`+f.SHA256+`"}}`)
	t.Chdir("../..")
	if _, err := Write(dir, Inputs{Checkpoint: ckpt, Seconds: []string{"train=1.5"}, Recipe: "scripts/train-demo.sh"}); err != nil {
		t.Fatal(err)
	}
	if _, err := Check(dir); err != nil {
		t.Fatalf("the manifest just written: %v", err)
	}
	write(filepath.Join(dir, ModelFile), "Weights")
	if _, err := Check(dir); err == nil || !strings.Contains(err.Error(), ModelFile) {
		t.Errorf("a changed model file: got %v, want an error naming %s", err, ModelFile)
	}
	write(filepath.Join(dir, ModelFile), "weights")
	write(filepath.Join(dir, SuiteDir, "000-flat-fix", "task.json"), "{ }")
	if _, err := Check(dir); err == nil || !strings.Contains(err.Error(), SuiteDir) {
		t.Errorf("a changed suite: got %v, want an error naming %s", err, SuiteDir)
	}
	// Weights other than the checkpoint's last are refused when written.
	write(filepath.Join(dir, ModelFile), "other")
	if _, err := Write(dir, Inputs{Checkpoint: ckpt, Recipe: "scripts/train-demo.sh"}); err == nil {
		t.Error("Write took a model file that is not the checkpoint's")
	}
}

// TestWriteStages shows that Write records the stages before the last and
// refuses a stage whose weights are not the next stage's base.
func TestWriteStages(t *testing.T) {
	dir, first, last := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(path, s string) { writeFile(t, path, s) }
	f := demoDir(t, dir)
	stage := func(path, base string) {
		write(filepath.Join(first, "manifest.json"), `{"epoch": 2, "base": {"sha256": "b0"}, "model": {"sha256": "`+path+`"}, `+
			`"report": {"epochs": [{"eval_loss": 2, "seconds": 10}, {"eval_loss": 1, "seconds": 11}]}, "shuffle_state": "AAAA"}`)
		write(filepath.Join(last, "manifest.json"), `{"epoch": 1, "base": {"sha256": "`+base+`"}, "model": {"sha256": "`+f.SHA256+`"}, `+
			`"report": {"epochs": [{"eval_loss": 0.5, "seconds": 12}]}}`)
	}
	t.Chdir("../..")
	in := Inputs{Checkpoint: last, Stages: []string{first}, Recipe: "scripts/train-demo.sh"}
	stage("s1", "s1")
	m, err := Write(dir, in)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Stages) != 1 || strings.Contains(string(m.Stages[0]), "shuffle_state") {
		t.Errorf("stages recorded: %s", m.Stages)
	}
	var b strings.Builder
	if err := Show(&b, m); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "stage 1: trained 2 epochs") || !strings.Contains(b.String(), "stage 2: trained 1 epochs") ||
		!strings.Contains(b.String(), "(21 s of training)") {
		t.Errorf("Show printed\n%s", b.String())
	}
	stage("s1", "other")
	if _, err := Write(dir, in); err == nil || !strings.Contains(err.Error(), first) {
		t.Errorf("a stage whose weights are not the next one's base: got %v, want an error naming %s", err, first)
	}

	// A model grown between the stages links them when --grow names it.
	small, grown := filepath.Join(t.TempDir(), "small.gguf"), filepath.Join(t.TempDir(), "grown.gguf")
	write(small, "two blocks")
	write(grown, "four blocks")
	fs, _ := fileOf(small)
	fg, _ := fileOf(grown)
	stage(fs.SHA256, fg.SHA256)
	if _, err := Write(dir, in); err == nil {
		t.Error("Write took a grown base without --grow")
	}
	other := filepath.Join(t.TempDir(), "other.gguf")
	write(other, "other weights")
	for _, g := range []string{grown + "=" + small, other + "=" + grown} {
		in.Growths = []string{g}
		if _, err := Write(dir, in); err == nil {
			t.Errorf("Write took --grow %s, which does not link the stages", g)
		}
	}
	in.Growths = []string{small + "=" + grown}
	if m, err = Write(dir, in); err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := Show(&b, m); err != nil {
		t.Fatal(err)
	}
	if len(m.Growths) != 1 || !strings.Contains(b.String(), "grown by scripts/growmodel: small.gguf (10 bytes) into grown.gguf (11 bytes)\nstage 2:") {
		t.Errorf("growths %+v; Show printed\n%s", m.Growths, b.String())
	}
}

// writeFile writes s to path, making its directory.
func writeFile(t *testing.T, path, s string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// demoDir writes a demo directory into dir (a model file of "weights" and
// a suite of one task) and returns the model file's hash.
func demoDir(t *testing.T, dir string) File {
	t.Helper()
	writeFile(t, filepath.Join(dir, ModelFile), "weights")
	writeFile(t, filepath.Join(dir, SuiteDir, "000-flat-fix", "task.json"), "{}")
	f, err := fileOf(filepath.Join(dir, ModelFile))
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestReeval shows that reeval takes a suite whose pass conditions
// changed: Check refuses the changed suite, reeval records its hash, the
// new evaluation and why, and Check passes again; a model file other
// than the manifest's is refused.
func TestReeval(t *testing.T) {
	dir := t.TempDir()
	ckpt := t.TempDir()
	f := demoDir(t, dir)
	writeFile(t, filepath.Join(ckpt, "manifest.json"), `{"format": 1, "epoch": 1, "model": {"path": "m", "size": 7, "sha256": "`+f.SHA256+`"}}`)
	report := filepath.Join(t.TempDir(), "eval.json")
	writeFile(t, report, `{"suite": "suite", "seeds": 3, "scenarios": [], "configs": [], "results": [], "summaries": [], "comparisons": []}`)
	t.Chdir("../..")
	if _, err := Write(dir, Inputs{Checkpoint: ckpt, Recipe: "scripts/train-demo.sh"}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, SuiteDir, "000-flat-fix", "scenario.json"), `{"pass": {"check": "stricter"}}`)
	if _, err := Check(dir); err == nil {
		t.Fatal("Check took a changed suite")
	}
	if _, err := Reeval(dir, []string{"held-out=" + report}, "stricter checks"); err != nil {
		t.Fatal(err)
	}
	m, err := Check(dir)
	if err != nil {
		t.Fatalf("after reeval: %v", err)
	}
	if m.EvalNote != "stricter checks" || len(m.Eval) != 1 || m.Eval[0].Seeds != 3 || len(m.Training) == 0 {
		t.Errorf("after reeval: note %q, %d evals, training %d bytes; want the note, one eval of 3 seeds, the training kept", m.EvalNote, len(m.Eval), len(m.Training))
	}
	writeFile(t, filepath.Join(dir, ModelFile), "other")
	if _, err := Reeval(dir, []string{"held-out=" + report}, "x"); err == nil || !strings.Contains(err.Error(), ModelFile) {
		t.Errorf("reeval of another model file: got %v, want an error naming %s", err, ModelFile)
	}
}
