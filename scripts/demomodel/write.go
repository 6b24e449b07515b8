package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/loopagent/loop/agent/eval"
)

// Inputs are what Write reads besides the demo directory.
type Inputs struct {
	Checkpoint string   // the last stage's checkpoint folder: its last weights are the model
	Stages     []string // the checkpoint folders of the stages before, in order
	Growths    []string // FROM=TO: a model file and the one scripts/growmodel made of it, the next stage's base
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
	for _, g := range in.Growths {
		from, to, ok := strings.Cut(g, "=")
		if !ok {
			return nil, fmt.Errorf("--grow %q: want FROM=TO", g)
		}
		var gr Growth
		if gr.From, err = fileOf(from); err != nil {
			return nil, err
		}
		if gr.To, err = fileOf(to); err != nil {
			return nil, err
		}
		m.Growths = append(m.Growths, gr)
	}
	if m.Stages, err = readStages(in.Stages, m.Training, in.Checkpoint, m.Growths); err != nil {
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
// one's last weights are the next one's base, or grew into it (growths).
func readStages(dirs []string, last json.RawMessage, ckpt string, growths []Growth) ([]json.RawMessage, error) {
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
		grown := slices.ContainsFunc(growths, func(g Growth) bool {
			return g.From.SHA256 == this.Model.SHA256 && g.To.SHA256 == next.Base.SHA256
		})
		if this.Model.SHA256 != next.Base.SHA256 && !grown {
			nextDir := ckpt
			if i+1 < len(dirs) {
				nextDir = dirs[i+1]
			}
			return nil, fmt.Errorf("the weights of %s's last epoch (sha256 %s) are not the base %s trained from (sha256 %s), nor grew into it (--grow)",
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

// hashed are the source directories whose trees the manifest records.
var hashed = []string{"scripts/gentrain", "agent/train", "agent/loop", "agent/tools", "llama"}

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
