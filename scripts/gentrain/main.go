// Command gentrain writes synthetic agent transcripts for finetuning a
// small model on loop's job, and held-out tasks to evaluate it:
//
//	go run ./scripts/gentrain --out train.jsonl --n 2000 --seed 1
//	go run ./scripts/gentrain --tasks heldout/ --n-tasks 50 --seed 1
//	go run ./scripts/gentrain --out x.jsonl --n 10 --families fix,recover --template ../shared/chat-templates/Qwen-Qwen2.5-7B-Instruct.jinja
//
// Every transcript is a real run of the agent: the generator writes a task's
// workspace into a temporary directory and runs agent/loop on it with the
// default tools, as `loop run --yes` does, with a scripted Hermes model
// (agent/model.Script) whose replies are what an ideal model would write.
// The history the loop keeps, with the system prompt first, is the chat:
// the tool results, the gate's notes and the call ids are the real ones.
// Only go test's timings are pinned, so that a seed always gives the same
// bytes (see normalize.go). A run that does not end as its task plans
// (done, or done (verified) after an edit) stops the generator.
//
// The output is one chat per line, {"messages": [...], "tools": [...]},
// in the OpenAI shape of agent/chat's Message and the tools' definitions
// exactly as the loop offers them; chat.ParseMessages and chat.ParseTools
// read them back. The held-out tasks are one directory each,
// NNN-SHAPE-FAMILY, with the workspace's files, a task.json and a
// scenario.json for loop eval (see writeHeldOut). A scenario passes only
// when its work is done: a task whose tests pass before it (a rename, a
// new test) has a pass condition of its own (Task.PassCheck) that fails
// on the untouched workspace.
//
// The families (--families, default all): read (read a file and answer),
// fix (fix an off-by-one or a wrong operator and run go test ./...),
// failing (run the tests and report the failing one), restraint (answer
// without any tool), recover (recover from each error a tool returns: a
// read of a missing file, an edit whose old_string does not match, one
// whose old_string occurs twice, a command the shell refuses, and an edit
// the names check refuses for a variable declared nowhere), twofiles (a fix across two files), rename
// (rename a parameter through a function), addfunc (add the function a
// failing test calls), newtest (write a new test with write_file) and
// report (answer a question about the code without editing: the task
// reads as a question, so the agent offers no tool that writes files, and
// the chat shows the tools it offered). Chat i belongs to family i mod the
// number of families. Drills are families only --families adds: copyfix
// is the fix family on ladders only, every chat an edit that copies;
// copyrename renames a name through a function of random statements over
// two-word names and numbers, so that nothing in its edit can be recalled
// and all of it must be copied; syntaxfix is a fix whose first edit
// leaves the file unparseable, which edit_file refuses, and whose second
// edit is right. A call that a model should not have
// written (a refused sudo, an edit that repeats text found twice, one that
// breaks the syntax or the build) is written "weight": 0: shown, not trained.
//
// Copy chats (--copy): no agent, no tools; the user gives 3 to 6 lines
// "name = name + N" of two-word names, the assistant writes them again.
// They are the first stage of a model trained from random weights, where
// nothing but copying lowers the loss: the agent's chats come after, so
// that the model copies their names from its context rather than learning
// them by heart. With --copy-turns N above 1 a chat opens with the agent's
// system prompt and tools and asks N times: a model copies where it
// learnt to, and the agent copies a thousand tokens and more into its
// context.
//
// Edits that copy: a ladder (a function of one case per threshold) is
// fixed or renamed by one edit of the whole function, whose old_string and
// new_string span 10 lines and more of the file just read, up to 40 or
// what read_file shows at the window: 15 lines at -c 4096, 34 at 8192, 40
// from 16384.
//
// Workspace shapes (shape.go): each task's workspace has a shape, drawn
// apart from its family: flat (one file at the module root), split (one
// file per function, doc.go), nested (github.com module, the package in
// internal/NAME, a cmd/NAME/main.go and a README), long (one file with up
// to 6 more functions, read through grep and a read of the function's
// lines when it is longer than one read) and cluttered (no doc comments,
// a generic file name, README, Makefile, testdata and a util/ package the
// task never touches). pkgdir (example.com module, pkg/NAME, one file per
// function, docs/ and scripts/) and monolith (gitlab.com module, lib/NAME,
// one long NAME_impl.go, cmd/, CHANGELOG.md) are held out: no training
// chat has them, nor their directories, hosts or file names; the held-out
// tasks take them for every second round of the families (task.json's
// held_out_shape) and the training shapes for the others. With
// --varied-share, that share of the training chats takes the varied
// shape instead, drawn afresh for each: module host (none, github.com,
// bitbucket.org, codeberg.org, git.sr.ht), the package's directory (the
// root, NAME, internal/, src/, app/, core/, services/, modules/ or
// internal/app/ NAME), its file names, one file per function or not, doc
// comments, up to 6 fillers and the files beside, so that the model finds
// paths by reading them; it shares nothing with the held-out shapes.
//
// Names (--names): small draws function, parameter and constant names
// and config settings from a few per kind (Level, Grade, Tier; score,
// points), which a model can learn by heart and then write from memory
// instead of from the file it read. wide makes them of two words of
// nameWords (RiverTally, amberCrest: about 25,000 of each) and asks about
// one of four settings of a JSON config drawn from configKeys, so that
// only a model that copies from its context writes them right. A seed
// with small names gives the same chats whatever wide draws.
//
// Lengths: the system prompt and the six tools' definitions, which every
// chat begins with, are 960 tokens with the Qwen vocabulary (fewer for a
// question, which is offered no tool that writes). The 300 chats of
// --seed 1 --retry-share 0.3 are 737 to 2,052 Qwen tokens (median 1,393);
// with the training base's pruned 8K vocabulary 836 to 2,408 (median
// 1,619). The tools' limits follow -c as in `loop run`: at the default
// 4096, read_file returns 19 lines, and every file the replies read whole
// fits one read (the generator checks it); a longer file is read through
// grep and a read_file of the function's lines.
//
// Seeds: chat i of --seed S is task seed S<<32 | i; held-out task j is
// S<<32 | 1<<31 | j, a range no training chat uses. Held-out tasks whose
// workspace equals one of the N training chats' are skipped, so that the
// held-out set is new to a model trained on them.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"

	"github.com/loopagent/loop/agent/sandbox"
	"github.com/spf13/pflag"
)

// genFlags are the command line of one run.
type genFlags struct {
	out      string
	tasksDir string
	n        int
	nTasks   int
	seed     uint64
	families []string
	window   int
	template string
	retry    float64
	varied   float64
	names    string
	copy     bool
	turns    int
}

func main() {
	sandbox.Main() // the supervisor of the commands the tools run
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "gentrain:", err)
		os.Exit(1)
	}
}

// run parses the flags and generates what they ask for.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f genFlags
	fs := pflag.NewFlagSet("gentrain", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&f.out, "out", "", "write the training chats to this JSONL file")
	fs.StringVar(&f.tasksDir, "tasks", "", "write the held-out tasks into this directory")
	fs.IntVar(&f.n, "n", 200, "training chats")
	fs.IntVar(&f.nTasks, "n-tasks", 50, "held-out tasks")
	fs.Uint64Var(&f.seed, "seed", 1, "seed of the run (below 2^32)")
	fs.StringSliceVar(&f.families, "families", nil, "task families, comma-separated (default all: "+strings.Join(familyNames(families), ",")+"; drills, only when named: "+strings.Join(familyNames(drills), ",")+")")
	fs.IntVarP(&f.window, "ctx-size", "c", 4096, "the context size `loop run -c` will use: it sets the tools' read and output limits")
	fs.Float64Var(&f.retry, "retry-share", 0, "share of the training chats that open with a broken call the loop sends back (retry.go)")
	fs.Float64Var(&f.varied, "varied-share", 0, "share of the training chats whose workspace shape is drawn afresh: module host, directory, file names, layout, comments, fillers and files beside (shape.go's varied)")
	fs.StringVar(&f.names, "names", "small", "names of functions, parameters, constants and settings: small (a few per kind) or wide (two words of 160, which only copying gets right)")
	fs.BoolVar(&f.copy, "copy", false, "write copy chats to --out instead of agent transcripts: the user gives 3 to 6 lines of two-word names and numbers, the assistant writes them again (copy.go)")
	fs.IntVar(&f.turns, "copy-turns", 1, "with --copy, the user's requests in each chat: above 1, the chat opens with the agent's system prompt and tools, so that its copies sit where the agent's do (copy.go)")
	fs.StringVar(&f.template, "template", "", "chat template (.jinja) to render the chats with for the length report (default: characters of the JSON)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if f.out == "" && f.tasksDir == "" {
		return errors.New("nothing to do: give --out FILE, --tasks DIR or both")
	}
	if f.seed >= 1<<32 || f.n < 0 || f.nTasks < 0 || f.n >= heldOutBit || f.nTasks >= heldOutBit {
		return errors.New("--seed must be below 2^32, --n and --n-tasks between 0 and 2^31")
	}
	if f.copy || f.turns != 1 {
		return f.copyChats(stderr)
	}
	if f.varied < 0 || f.varied > 1 || f.varied != f.varied {
		return fmt.Errorf("--varied-share %v: want a share from 0 to 1", f.varied)
	}
	if f.names != "small" && f.names != "wide" {
		return fmt.Errorf("--names %q: want small or wide", f.names)
	}
	fams, err := pickFamilies(f.families)
	if err != nil {
		return err
	}
	os.Setenv("GOFLAGS", goFlags)
	os.Setenv("GOWORK", "off")
	g := generator{fams: fams, seed: f.seed, window: f.window, retry: f.retry, wide: f.names == "wide", varied: f.varied}
	if f.out != "" {
		if err := g.writeChats(ctx, f.out, f.n, f.template, stderr); err != nil {
			return err
		}
	}
	if f.tasksDir != "" {
		n, err := g.writeHeldOut(ctx, f.tasksDir, f.n, f.nTasks)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "%d held-out tasks in %s\n", n, f.tasksDir)
	}
	return nil
}

// copyChats writes the copy chats that --copy asks for.
func (f genFlags) copyChats(stderr io.Writer) error {
	if !f.copy {
		return errors.New("--copy-turns is for --copy")
	}
	if f.out == "" || f.tasksDir != "" || len(f.families) > 0 {
		return errors.New("--copy writes training chats only: give --out FILE, and no --tasks or --families")
	}
	if f.turns < 1 || f.turns > 100 {
		return fmt.Errorf("--copy-turns %d: want 1 to 100", f.turns)
	}
	return writeCopyChats(f.out, f.seed, f.n, f.turns, stderr)
}
