// Command demomodel writes and checks the manifest of the demo model, the
// model file the repository ships in demo/ so that `make demo` runs in
// minutes without training (make trained rebuilds it):
//
//	go run ./scripts/demomodel write --dir demo [--stage CKPT...] --checkpoint CKPT --eval NAME=EVAL.json... [--seconds NAME=S...] [--recipe FILE] [--why FILE]
//	go run ./scripts/demomodel reeval --dir demo --eval NAME=EVAL.json... --note WHY
//	go run ./scripts/demomodel check --dir demo
//	go run ./scripts/demomodel show --dir demo
//
// write reads the final checkpoint's manifest (agent/train.Manifest: the
// trainer's recipe, the hashes of the base and the chats, the loss of
// every epoch) and those of the stages before it (--stage, in order: each
// one's weights are the next one's base), the reports of `loop eval --json`, the recipe script and
// the note on why the shape and the data are what they are, hashes the
// model file and the suite, records the git trees of the generator's and
// the trainer's sources at the recipe's commit, and writes
// demo/manifest.json. check reads it back and compares the model file's
// size and SHA-256 and the held-out suite's with it: the file the
// repository holds is the file the manifest describes. reeval replaces the
// evaluation with one measured again on the suite as it is now (after its
// pass conditions changed), saying why. show checks, then
// prints the losses and the evaluation the manifest recorded.
package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopagent/loop/agent/eval"
	"github.com/spf13/pflag"
)

// The files of the demo directory.
const (
	ModelFile    = "model.gguf"
	ManifestFile = "manifest.json"
	SuiteDir     = "suite"
)

// Manifest is demo/manifest.json.
type Manifest struct {
	// Model is the model file, its size and SHA-256.
	Model File `json:"model"`
	// Suite is the SHA-256 of the held-out tasks (hashTree of demo/suite),
	// which the generator wrote beside the chats and no chat holds.
	Suite string `json:"suite_sha256"`
	// Recipe is the script that made the model (scripts/train-demo.sh),
	// verbatim: the commands, the flags and the generator's seeds.
	Recipe string `json:"recipe"`
	// Why says why the shape, the data and the epochs are what they are.
	Why string `json:"why"`
	// Commit is the repository's commit the recipe ran at, and Sources
	// the git tree ids at that commit of the directories whose code wrote
	// the chats and trained the model.
	Commit  string            `json:"commit,omitempty"`
	Sources map[string]string `json:"source_trees,omitempty"`
	// Seconds is the wall time of each stage of the recipe.
	Seconds map[string]float64 `json:"seconds,omitempty"`
	// Training is the last checkpoint's manifest (agent/train.Manifest)
	// as loop train wrote it, less the shuffle's state: the trainer's
	// recipe, the base model's and the chats' hashes, and the losses
	// (train and held-out) of every epoch.
	Training json.RawMessage `json:"training"`
	// Stages are the checkpoints' manifests of the training stages before
	// the last, in order, as Training: the weights of each are the base
	// of the next.
	Stages []json.RawMessage `json:"earlier_stages,omitempty"`
	// Eval is the evaluation of the model on the held-out suite, by name.
	Eval []Eval `json:"eval"`
	// EvalNote says why Eval was measured after the training (demomodel
	// reeval): empty when the recipe's own evaluation stands.
	EvalNote string `json:"eval_note,omitempty"`
}

// Eval is one `loop eval --json` run, without its per-run results.
type Eval struct {
	Name        string            `json:"name"`
	Suite       string            `json:"suite"`
	Seeds       int               `json:"seeds"`
	Scenarios   int               `json:"scenarios"`
	Summaries   []eval.Summary    `json:"summaries"`
	Comparisons []eval.Comparison `json:"comparisons"`
	// Groups are each configuration's pass rate on a part of the suite:
	// the tasks with a check (a bug to fix, a test to add), those in
	// the held-out workspace shapes, and each family.
	Groups []Group `json:"groups"`
}

// File is a file's name, size and SHA-256, as agent/train.File.
type File struct {
	Path   string `json:"path"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// training is what this command reads of a checkpoint's manifest
// (agent/train.Manifest; this package stays pure Go, so that go run
// builds it without llama.cpp).
type training struct {
	Epoch  int `json:"epoch"`
	Recipe struct {
		Epochs int `json:"epochs"`
	} `json:"recipe"`
	Base   File `json:"base"`
	Model  File `json:"model"`
	Report struct {
		Chats   int     `json:"chats"`
		HeldOut int     `json:"held_out_chats"`
		Before  float64 `json:"eval_loss_before"`
		Epochs  []struct {
			TrainLoss float64 `json:"train_loss"`
			EvalLoss  float64 `json:"eval_loss"`
			Seconds   float64 `json:"seconds"`
		} `json:"epochs"`
	} `json:"report"`
}

// training reads the checkpoint's manifest the manifest holds.
func (m *Manifest) training() (training, error) { return parseTraining(m.Training) }

// stages reads the checkpoints' manifests of every stage, the last one
// (Training) last.
func (m *Manifest) stages() ([]training, error) {
	var out []training
	for _, raw := range append(slices.Clip(m.Stages), m.Training) {
		t, err := parseTraining(raw)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

func parseTraining(raw json.RawMessage) (training, error) {
	var t training
	if err := json.Unmarshal(raw, &t); err != nil {
		return t, fmt.Errorf("the training manifest: %w", err)
	}
	return t, nil
}

// Group is one configuration's pass rate on a part of the suite.
type Group struct {
	Group  string    `json:"group"`
	Config string    `json:"config"`
	Pass   eval.Rate `json:"pass"`
}

// heldTask is what a held-out task's task.json says of it.
type heldTask struct {
	Family       string `json:"family"`
	Shape        string `json:"shape"`
	HeldOutShape bool   `json:"held_out_shape"`
	Check        string `json:"check"`
}

// hashed are the source directories whose trees the manifest records.
var hashed = []string{"scripts/gentrain", "agent/train", "agent/loop", "agent/tools", "llama"}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demomodel:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("want a command: write, check or show")
	}
	fs := pflag.NewFlagSet("demomodel "+args[0], pflag.ContinueOnError)
	dir := fs.String("dir", "demo", "the demo directory: model.gguf, manifest.json, suite/")
	switch args[0] {
	case "check":
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		m, err := Check(*dir)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "%s: %d bytes, sha256 %s, as %s says\n", filepath.Join(*dir, ModelFile), m.Model.Size, m.Model.SHA256, filepath.Join(*dir, ManifestFile))
		return nil
	case "show":
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		m, err := Check(*dir)
		if err != nil {
			return err
		}
		return Show(stdout, m)
	case "write":
		ckpt := fs.String("checkpoint", "", "the training checkpoint folder (loop train --checkpoint)")
		stages := fs.StringArray("stage", nil, "the checkpoint folder of a stage before --checkpoint's, in order: its weights are the next stage's base")
		evals := fs.StringArray("eval", nil, "NAME=FILE: a loop eval --json report")
		secs := fs.StringArray("seconds", nil, "NAME=S: the wall time of a stage")
		recipe := fs.String("recipe", "scripts/train-demo.sh", "the recipe script")
		why := fs.String("why", "", "a file saying why the shape and the data are what they are")
		commit := fs.String("commit", "", "the repository's commit the chats were written and the model trained at")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		m, err := Write(*dir, Inputs{Checkpoint: *ckpt, Stages: *stages, Evals: *evals, Seconds: *secs, Recipe: *recipe, Why: *why, Commit: *commit})
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s (model sha256 %s)\n", filepath.Join(*dir, ManifestFile), m.Model.SHA256)
		return nil
	case "reeval":
		evals := fs.StringArray("eval", nil, "NAME=FILE: a loop eval --json report of the shipped model on the suite as it is now")
		note := fs.String("note", "", "why the evaluation was measured again")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		if _, err := Reeval(*dir, *evals, *note); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "wrote %s: the evaluation measured again\n", filepath.Join(*dir, ManifestFile))
		return nil
	}
	return fmt.Errorf("unknown command %q: want write, reeval, check or show", args[0])
}

// Inputs are what Write reads besides the demo directory.
type Inputs struct {
	Checkpoint string   // the last stage's checkpoint folder: its last weights are the model
	Stages     []string // the checkpoint folders of the stages before, in order
	Evals      []string // NAME=FILE: loop eval --json reports
	Seconds    []string // NAME=SECONDS: the wall time of the recipe's stages
	Recipe     string   // the recipe script
	Why        string   // a file saying why; "" for none
	Commit     string   // the commit the recipe ran at; "" for none
}

// Write writes dir's manifest from the checkpoint folders, the eval
// reports, the stages' times, the recipe script and the note on why.
func Write(dir string, in Inputs) (*Manifest, error) {
	m := &Manifest{Commit: in.Commit, Seconds: map[string]float64{}}
	var err error
	if m.Model, err = fileOf(filepath.Join(dir, ModelFile)); err != nil {
		return nil, err
	}
	if m.Suite, err = hashTree(filepath.Join(dir, SuiteDir)); err != nil {
		return nil, err
	}
	if m.Training, err = readCheckpoint(in.Checkpoint, m.Model, filepath.Join(dir, ModelFile)); err != nil {
		return nil, err
	}
	if m.Stages, err = readStages(in.Stages, m.Training, in.Checkpoint); err != nil {
		return nil, err
	}
	b, err := os.ReadFile(in.Recipe)
	if err != nil {
		return nil, err
	}
	m.Recipe = string(b)
	if in.Why != "" {
		if b, err = os.ReadFile(in.Why); err != nil {
			return nil, err
		}
		m.Why = strings.TrimSpace(string(b))
	}
	if in.Commit != "" {
		if m.Sources, err = sourceTrees(in.Commit); err != nil {
			return nil, err
		}
	}
	for _, s := range in.Seconds {
		name, v, ok := strings.Cut(s, "=")
		f, err := strconv.ParseFloat(v, 64)
		if !ok || err != nil {
			return nil, fmt.Errorf("--seconds %q: want NAME=SECONDS", s)
		}
		m.Seconds[name] = f
	}
	return m, m.save(dir, in.Evals)
}

// save sets the manifest's evaluations to the loop eval reports evals
// (NAME=FILE), grouped by dir's suite, and writes it into dir.
func (m *Manifest) save(dir string, evals []string) error {
	m.Eval = nil
	for _, e := range evals {
		ev, err := readEval(filepath.Join(dir, SuiteDir), e)
		if err != nil {
			return err
		}
		m.Eval = append(m.Eval, ev)
	}
	out, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, ManifestFile), append(out, '\n'), 0o644)
}

// readStages reads the checkpoint manifests of the stages before the last
// (whose manifest is last, from the folder ckpt) and checks that each
// one's last weights are the next one's base.
func readStages(dirs []string, last json.RawMessage, ckpt string) ([]json.RawMessage, error) {
	out := make([]json.RawMessage, 0, len(dirs))
	for _, d := range dirs {
		raw, err := readManifest(d)
		if err != nil {
			return nil, err
		}
		out = append(out, raw)
	}
	all := append(slices.Clip(out), last)
	for i := range dirs {
		this, err := parseTraining(all[i])
		if err != nil {
			return nil, fmt.Errorf("%s: %w", dirs[i], err)
		}
		next, err := parseTraining(all[i+1])
		if err != nil {
			return nil, err
		}
		if this.Model.SHA256 != next.Base.SHA256 {
			nextDir := ckpt
			if i+1 < len(dirs) {
				nextDir = dirs[i+1]
			}
			return nil, fmt.Errorf("the weights of %s's last epoch (sha256 %s) are not the base %s trained from (sha256 %s)",
				dirs[i], this.Model.SHA256, nextDir, next.Base.SHA256)
		}
	}
	return out, nil
}

// readManifest reads a checkpoint folder's manifest, less the shuffle's
// state.
func readManifest(ckpt string) (json.RawMessage, error) {
	mpath := filepath.Join(ckpt, "manifest.json")
	b, err := os.ReadFile(mpath)
	if err != nil {
		return nil, err
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("%s: %w", mpath, err)
	}
	delete(raw, "shuffle_state")
	return json.Marshal(raw)
}

// readCheckpoint reads the checkpoint folder's manifest, less the
// shuffle's state, and checks that its last weights are model (at path).
func readCheckpoint(ckpt string, model File, path string) (json.RawMessage, error) {
	out, err := readManifest(ckpt)
	if err != nil {
		return nil, err
	}
	tr, err := parseTraining(out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(ckpt, "manifest.json"), err)
	}
	if tr.Model.SHA256 != model.SHA256 {
		return nil, fmt.Errorf("%s is not the weights of %s's last epoch (sha256 %s, the checkpoint's %s)",
			path, ckpt, model.SHA256, tr.Model.SHA256)
	}
	return out, nil
}

// sourceTrees is the git tree id of each hashed directory at commit.
func sourceTrees(commit string) (map[string]string, error) {
	trees := map[string]string{}
	for _, d := range hashed {
		out, err := exec.Command("git", "rev-parse", commit+":"+d).Output()
		if err != nil {
			return nil, fmt.Errorf("git rev-parse %s:%s: %w", commit, d, err)
		}
		trees[d] = strings.TrimSpace(string(out))
	}
	return trees, nil
}

// readEval reads spec, NAME=FILE of a loop eval --json report, and groups
// its runs by the task.json files under suite.
func readEval(suite, spec string) (Eval, error) {
	name, path, ok := strings.Cut(spec, "=")
	if !ok {
		return Eval{}, fmt.Errorf("--eval %q: want NAME=FILE", spec)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return Eval{}, err
	}
	r, err := eval.ReadReport(b)
	if err != nil {
		return Eval{}, fmt.Errorf("%s: %w", path, err)
	}
	groups, err := groupsOf(suite, r)
	if err != nil {
		return Eval{}, err
	}
	return Eval{Name: name, Suite: r.Suite, Seeds: r.Seeds, Scenarios: len(r.Scenarios),
		Summaries: r.Summaries, Comparisons: r.Comparisons, Groups: groups}, nil
}

// groupsOf is each configuration's pass rate on the parts of the suite
// whose task.json files are under suite.
func groupsOf(suite string, r *eval.Report) ([]Group, error) {
	tasks := map[string]heldTask{}
	for _, sc := range r.Scenarios {
		b, err := os.ReadFile(filepath.Join(suite, sc, "task.json"))
		if err != nil {
			return nil, err
		}
		var t heldTask
		if err := json.Unmarshal(b, &t); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(suite, sc, "task.json"), err)
		}
		tasks[sc] = t
	}
	in := map[string]func(heldTask) bool{
		"checked":                  func(t heldTask) bool { return t.Check != "" },
		"checked, training shapes": func(t heldTask) bool { return t.Check != "" && !t.HeldOutShape },
		"checked, held-out shapes": func(t heldTask) bool { return t.Check != "" && t.HeldOutShape },
		"held-out shapes":          func(t heldTask) bool { return t.HeldOutShape },
	}
	names := []string{"checked", "checked, training shapes", "checked, held-out shapes", "held-out shapes"}
	var fams []string
	for _, t := range tasks {
		if !slices.Contains(fams, "family "+t.Family) {
			fams = append(fams, "family "+t.Family)
		}
	}
	slices.Sort(fams)
	for _, f := range fams {
		in[f] = func(t heldTask) bool { return "family "+t.Family == f }
	}
	names = append(names, fams...)
	var out []Group
	for _, c := range r.Configs {
		for _, name := range names {
			g := Group{Group: name, Config: c.Name}
			for _, res := range r.Results {
				if res.Config == c.Name && in[name](tasks[res.Scenario]) {
					g.Pass.N++
					if res.Pass {
						g.Pass.K++
					}
				}
			}
			out = append(out, g)
		}
	}
	return out, nil
}

// Show writes what the manifest recorded: the losses and the evaluation.
func Show(w io.Writer, m *Manifest) error {
	stages, err := m.stages()
	if err != nil {
		return err
	}
	for i, tr := range stages {
		if len(stages) > 1 {
			fmt.Fprintf(w, "stage %d: ", i+1)
		}
		fmt.Fprintf(w, "trained %d epochs on %d chats (%d held out) from %s: held-out loss %.4f before,",
			tr.Epoch, tr.Report.Chats, tr.Report.HeldOut, tr.Base.Path, tr.Report.Before)
		secs := 0.0
		for _, e := range tr.Report.Epochs {
			fmt.Fprintf(w, " %.4f", e.EvalLoss)
			secs += e.Seconds
		}
		fmt.Fprintf(w, " by epoch (%.0f s of training)\n", secs)
	}
	if m.EvalNote != "" {
		fmt.Fprintf(w, "evaluation measured again: %s\n", m.EvalNote)
	}
	for _, e := range m.Eval {
		fmt.Fprintf(w, "%s: %d tasks x %d seeds, pass rate with its 95%% Wilson interval:\n", e.Name, e.Scenarios, e.Seeds)
		var configs []string
		for _, g := range e.Groups {
			if !slices.Contains(configs, g.Config) {
				configs = append(configs, g.Config)
			}
		}
		fmt.Fprintf(w, "  %-26s", "")
		for _, c := range configs {
			fmt.Fprintf(w, "  %-30s", c)
		}
		fmt.Fprintln(w)
		var groups []string
		for _, g := range e.Groups {
			if !slices.Contains(groups, g.Group) {
				groups = append(groups, g.Group)
			}
		}
		for _, name := range groups {
			fmt.Fprintf(w, "  %-26s", name)
			for _, c := range configs {
				for _, g := range e.Groups {
					if g.Group == name && g.Config == c {
						fmt.Fprintf(w, "  %-7s %-22s", g.Pass.Fraction(), g.Pass)
					}
				}
			}
			fmt.Fprintln(w)
		}
		for _, s := range e.Summaries {
			fmt.Fprintf(w, "  %s: replies that parse as a call or an answer %s %s\n", s.Config, s.Usable.Fraction(), s.Usable)
		}
		for _, c := range e.Comparisons {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
	return nil
}

// Check reads dir's manifest and checks that the model file and the suite
// are those it describes.
func Check(dir string) (*Manifest, error) {
	m, err := checkModel(dir)
	if err != nil {
		return nil, err
	}
	suite, err := hashTree(filepath.Join(dir, SuiteDir))
	if err != nil {
		return nil, err
	}
	if suite != m.Suite {
		return nil, fmt.Errorf("%s: sha256 %s; %s says %s", filepath.Join(dir, SuiteDir), suite, filepath.Join(dir, ManifestFile), m.Suite)
	}
	return m, nil
}

// Reeval measures the shipped model again: it keeps dir's manifest (the
// model, which must be the manifest's, the recipe, the training) and
// replaces its evaluations with the reports given, measured on dir's
// suite as it is now, whose hash it records, with note saying why. It is
// for a suite whose pass conditions changed after the model was trained:
// the same held-out tasks, judged otherwise.
func Reeval(dir string, evals []string, note string) (*Manifest, error) {
	m, err := checkModel(dir)
	if err != nil {
		return nil, err
	}
	if len(evals) == 0 || note == "" {
		return nil, errors.New("reeval: give --eval NAME=FILE and a --note saying why")
	}
	if m.Suite, err = hashTree(filepath.Join(dir, SuiteDir)); err != nil {
		return nil, err
	}
	m.EvalNote = note
	return m, m.save(dir, evals)
}

// checkModel reads dir's manifest and compares the model file with it.
func checkModel(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	got, err := fileOf(filepath.Join(dir, ModelFile))
	if err != nil {
		return nil, err
	}
	if got.Size != m.Model.Size || got.SHA256 != m.Model.SHA256 {
		return nil, fmt.Errorf("%s: %d bytes, sha256 %s; %s says %d bytes, sha256 %s",
			filepath.Join(dir, ModelFile), got.Size, got.SHA256, path, m.Model.Size, m.Model.SHA256)
	}
	return &m, nil
}

// fileOf is path's size and SHA-256, named by its base name.
func fileOf(path string) (File, error) {
	f, err := os.Open(path)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", path, err)
	}
	return File{Path: filepath.Base(path), Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// hashTree is the SHA-256 of the regular files under dir: each file's
// slash-separated path relative to dir, a NUL, its SHA-256, a newline, in
// the order of the paths. Anything but a directory or a regular file is
// refused.
func hashTree(dir string) (string, error) {
	var lines []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		f, err := fileOf(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		lines = append(lines, filepath.ToSlash(rel)+"\x00"+f.SHA256+"\n")
		return nil
	})
	if err != nil {
		return "", err
	}
	slices.Sort(lines)
	h := sha256.Sum256([]byte(strings.Join(lines, "")))
	return hex.EncodeToString(h[:]), nil
}
