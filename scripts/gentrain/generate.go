package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/loopagent/loop/agent/loop"
	"golang.org/x/sync/errgroup"
)

// generator makes the tasks and chats of one run.
type generator struct {
	fams   []family
	seed   uint64
	window int // the context size the tools' limits follow
	retry  float64
	wide   bool // names of two words (--names wide)
	// varied is the share of the training tasks whose shape is drawn
	// afresh (--varied-share; shape.go's varied), decided by a generator
	// of their own so that the other tasks are those of share 0.
	varied float64
}

// trainTask is the task of training chat i: a share g.retry of them open
// with a broken call (retry.go), decided by a generator of their own so
// that the tasks are the same whatever the share.
func (g generator) trainTask(i int) Task {
	seed := trainSeed(g.seed, i)
	shapes := trainShapes
	if g.varied > 0 && rand.New(rand.NewPCG(seed, 0x766172696564)).Float64() < g.varied { // "varied"
		shapes = []shape{varied}
	}
	t := makeTask(g.fams[i%len(g.fams)], seed, shapes, g.window, g.wide)
	return withRetry(t, rand.New(rand.NewPCG(seed, 0x7265747279)), g.retry) // "retry"
}

// chats writes the transcripts of the n training tasks to w, one JSON line
// each, and returns each one's length in characters (as rendered when tmpl
// is set). The tasks run side by side (chatWorkers at a time, each in its
// own workspace): a run mostly waits for go test's processes, so on 2
// cores 4 at a time take about half the time of one. The file is the same
// as one at a time writes: each task depends only on its index.
func (g generator) chats(ctx context.Context, w io.Writer, n int, r *renderer) ([]chatLength, error) {
	tasks := make([]Task, n)
	chats := make([]Chat, n)
	eg, ctx := errgroup.WithContext(ctx)
	eg.SetLimit(chatWorkers)
	for i := range n {
		eg.Go(func() error {
			tasks[i] = g.trainTask(i)
			c, err := transcriptOf(ctx, tasks[i], g.window)
			chats[i] = c
			return err
		})
	}
	if err := eg.Wait(); err != nil {
		return nil, err
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	var lengths []chatLength
	for i, c := range chats {
		if err := enc.Encode(c); err != nil {
			return nil, err
		}
		l, err := r.length(c)
		if err != nil {
			return nil, err
		}
		lengths = append(lengths, chatLength{family: tasks[i].Family, chars: l})
	}
	return lengths, nil
}

// chatWorkers is how many training tasks run at once.
const chatWorkers = 4

// writeChats writes the training file and reports the lengths on stderr.
func (g generator) writeChats(ctx context.Context, path string, n int, tmpl string, stderr io.Writer) error {
	r, err := newRenderer(tmpl)
	if err != nil {
		return err
	}
	var lengths []chatLength
	err = writeBuffered(path, func(w io.Writer) error {
		var err error
		lengths, err = g.chats(ctx, w, n, r)
		return err
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d chats in %s\n", n, path)
	report(stderr, lengths, r.what())
	return nil
}

// writeBuffered creates path and writes it through a buffer with write,
// reporting the first error of the writes, the flush and the close.
func writeBuffered(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	err = write(w)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// heldOutTasks are the held-out tasks: n tasks of seeds from the held-out
// range, the families in turn, in the training shapes and the held-out
// shapes by turns (a family's tasks alternate between the two), skipping
// any whose problem (fingerprint) one of the first nTrain training tasks
// has.
func (g generator) heldOutTasks(nTrain, n int) []Task {
	seen := map[string]bool{}
	for i := range nTrain {
		seen[g.trainTask(i).fingerprint()] = true
	}
	var out []Task
	for j := 0; len(out) < n; j++ {
		k := len(out)
		sh := trainShapes
		if k/len(g.fams)%2 == 1 {
			sh = heldShapes
		}
		t := makeTask(g.fams[k%len(g.fams)], heldOutSeed(g.seed, j), sh, g.window, g.wide)
		if fp := t.fingerprint(); !seen[fp] {
			seen[fp] = true
			out = append(out, t)
		}
	}
	return out
}

// taskFile is a held-out task's task.json.
type taskFile struct {
	Family string `json:"family"`
	Seed   uint64 `json:"seed"`
	// Shape is the workspace's shape; HeldOutShape says no training chat
	// has one of its shape.
	Shape        string `json:"shape"`
	HeldOutShape bool   `json:"held_out_shape,omitempty"`
	Task         string `json:"task"`
	// Check is the command that must pass in the workspace after the run
	// ("" when the task changes nothing).
	Check string `json:"check,omitempty"`
	// Answer is a regular expression the final answer must match.
	Answer string `json:"answer,omitempty"`
	// FirstTool is the tool a good first step calls; NoTool says the task
	// needs none.
	FirstTool string `json:"first_tool,omitempty"`
	NoTool    bool   `json:"no_tool,omitempty"`
	// Outcome is how `loop run` should end: "done" or "done (verified)".
	Outcome string `json:"outcome"`
	// Reference are the replies of the ideal run the generator checked
	// the task with.
	Reference []string `json:"reference"`
}

// writeHeldOut writes the held-out tasks into dir, one directory each,
// NNN-shape-family/task.json beside NNN-shape-family/workspace/, the files the agent
// works on (apart, so that the agent never reads the expected answer),
// after checking that the ideal replies solve each task.
func (g generator) writeHeldOut(ctx context.Context, dir string, nTrain, n int) (int, error) {
	for k, t := range g.heldOutTasks(nTrain, n) {
		if _, err := transcriptOf(ctx, t, g.window); err != nil {
			return k, err
		}
		td := filepath.Join(dir, fmt.Sprintf("%03d-%s-%s", k, t.Shape, t.Family))
		if err := writeFiles(filepath.Join(td, "workspace"), t.Files); err != nil {
			return k, err
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		err := enc.Encode(taskFile{Family: t.Family, Seed: t.Seed, Shape: t.Shape, HeldOutShape: isHeldOutShape(t.Shape), Task: t.Text, Check: t.Check, Answer: t.Answer,
			FirstTool: t.FirstTool, NoTool: t.NoTool, Outcome: string(t.Want), Reference: t.Replies})
		if err != nil {
			return k, err
		}
		if err := os.WriteFile(filepath.Join(td, "task.json"), b.Bytes(), 0o644); err != nil {
			return k, err
		}
		if err := writeScenario(td, t); err != nil {
			return k, err
		}
	}
	return n, nil
}

// scenarioFile is the task as a scenario of `loop eval` (agent/eval's
// scenario.json): the workspace/ beside it, a live model, and the pass
// condition: the answer's pattern, the check command after a fix (and a
// verified end), and the first tool a good run calls.
type scenarioFile struct {
	Name     string       `json:"name"`
	Task     string       `json:"task"`
	MaxSteps int          `json:"max_steps"`
	Pass     scenarioPass `json:"pass"`
}

type scenarioPass struct {
	Verified bool           `json:"verified,omitempty"`
	Check    string         `json:"check,omitempty"`
	Calls    []scenarioCall `json:"calls,omitempty"`
	Answer   string         `json:"answer,omitempty"`
}

type scenarioCall struct {
	Name string `json:"name"`
}

// writeScenario writes td/scenario.json for task t.
func writeScenario(td string, t Task) error {
	check := t.Check
	if t.PassCheck != "" {
		check = t.PassCheck
	}
	sc := scenarioFile{Name: filepath.Base(td), Task: t.Text, MaxSteps: 2*len(t.Replies) + 2,
		Pass: scenarioPass{Verified: t.Want == loop.Verified, Check: check, Answer: t.Answer}}
	if t.FirstTool != "" {
		sc.Pass.Calls = []scenarioCall{{Name: t.FirstTool}}
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(sc); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(td, "scenario.json"), b.Bytes(), 0o644)
}
