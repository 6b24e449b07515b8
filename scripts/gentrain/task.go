package main

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/loopagent/loop/agent/loop"
)

// File is one file of a task's workspace.
type File struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

// Task is one generated task: its workspace, what the user asks, the
// replies of an ideal model, and how the run must end.
type Task struct {
	Family string
	Seed   uint64
	Shape  string // the workspace's shape (shape.go)
	// Variant names the task's course within its family (its calls, or
	// the tool error it recovers from), so that tests can meet each one.
	Variant string
	Text    string // the user's task
	Files   []File // the workspace, in the order they are written
	// Replies are the ideal model's texts, one per request: Hermes calls,
	// then a plain final answer.
	Replies []string
	// Want is how the run must end: loop.Verified after an edit,
	// loop.Done else.
	Want loop.Kind
	// Check is the command that verifies a fix ("" when the task changes
	// nothing).
	Check string
	// PassCheck, when set, is the held-out scenario's pass condition in
	// place of Check: for a task whose tests pass before the work (a
	// rename, a new test), a command that fails until the work is done.
	// The runs' gate still runs Check.
	PassCheck string
	// Answer is a regular expression a correct final answer matches (""
	// when the check decides).
	Answer string
	// FirstTool is the tool a good first step calls; "" with NoTool when
	// the task needs no tool at all.
	FirstTool string
	NoTool    bool
	// Grounds are texts that some tool result must contain: what the
	// final answer states, as the real tools showed it.
	Grounds []string
	// Retries is how many replies the loop must send back (retry.go).
	Retries int
	// Unweighted are the replies (by index) written "weight": 0: shown,
	// not trained, such as a call that a tool refuses or the loop sends
	// back. Dropped is how many replies at the start the history does not
	// keep (a call the loop could not read).
	Unweighted []int
	Dropped    int
}

// family makes the tasks of one family from a seeded generator.
type family struct {
	name string
	make func(r *rand.Rand, e env) Task
}

// families are the task families, in the default order.
var families = []family{
	{"read", readTask},
	{"fix", fixTask},
	{"failing", failingTask},
	{"restraint", restraintTask},
	{"recover", recoverTask},
	{"twofiles", twoFilesTask},
	{"rename", renameTask},
	{"addfunc", addFuncTask},
	{"newtest", newTestTask},
	{"report", reportTask},
}

// drills are families that --families may name but the default leaves
// out: they weigh one skill more than the default mix does.
var drills = []family{
	{"copyfix", copyFixTask},
	{"copyrename", copyRenameTask},
	{"syntaxfix", syntaxFixTask},
}

// familyNames lists the names of fams.
func familyNames(fams []family) []string {
	names := make([]string, len(fams))
	for i, f := range fams {
		names[i] = f.name
	}
	return names
}

// pickFamilies returns the named families ("" or none: all of them).
func pickFamilies(names []string) ([]family, error) {
	if len(names) == 0 {
		return families, nil
	}
	var out []family
	for _, n := range names {
		found := false
		for _, f := range append(families[:len(families):len(families)], drills...) {
			if f.name == strings.TrimSpace(n) {
				out = append(out, f)
				found = true
			}
		}
		if !found {
			return nil, fmt.Errorf("unknown family %q (families: %s)", n, strings.Join(familyNames(families), ", ")+"; drills: "+strings.Join(familyNames(drills), ", "))
		}
	}
	return out, nil
}

// Seeds. A task's seed is the run's seed S in the high 32 bits and the
// task's index in the low 31; bit 31 marks a held-out task. So the
// training chats of seed S use seeds S<<32 | i and its held-out tasks S<<32
// | 1<<31 | j: the two ranges never meet, for any S, N and number of
// held-out tasks (below 2^31 each).
const heldOutBit = 1 << 31

func trainSeed(s uint64, i int) uint64   { return s<<32 | uint64(i) }
func heldOutSeed(s uint64, j int) uint64 { return s<<32 | heldOutBit | uint64(j) }

// makeTask makes the task of a seed in a family, in a workspace shape
// drawn from shapes, for a run at the context window, with wide names or
// the small pools. The family of item i is fams[i % len(fams)], so every
// family gets its share.
func makeTask(f family, seed uint64, shapes []shape, window int, wide bool) Task {
	r := rand.New(rand.NewPCG(seed, 0x6c6f6f70)) // "loop"
	s := pick(r, shapes)
	if s.vary != nil {
		s = s.vary(r)
	}
	e := newEnv(s, window)
	e.wide = wide
	t := f.make(r, e)
	t.Family, t.Seed, t.Shape = f.name, seed, s.name
	return t
}

// fingerprint identifies a task's problem: its family, its workspace and,
// for a task without files, its text. Two tasks with one fingerprint are
// the same exercise, however the user worded it.
func (t Task) fingerprint() string {
	var b strings.Builder
	b.WriteString(t.Family)
	for _, f := range t.Files {
		b.WriteString("\x00" + f.Path + "\x00" + f.Content)
	}
	if t.NoTool {
		b.WriteString("\x00" + t.Text)
	}
	return b.String()
}
