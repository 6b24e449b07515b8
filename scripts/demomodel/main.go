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
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/spf13/pflag"
)

// The files of the demo directory.
const (
	ModelFile    = "model.gguf"
	ManifestFile = "manifest.json"
	SuiteDir     = "suite"
)

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "demomodel:", err)
		os.Exit(1)
	}
}

func run(args []string, stdout io.Writer) error {
	if len(args) == 0 {
		return errors.New("want a command: write, reeval, check or show")
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
		grows := fs.StringArray("grow", nil, "FROM=TO: the weights of a stage and the model scripts/growmodel made of them, the next stage's base")
		evals := fs.StringArray("eval", nil, "NAME=FILE: a loop eval --json report")
		secs := fs.StringArray("seconds", nil, "NAME=S: the wall time of a stage")
		recipe := fs.String("recipe", "scripts/train-demo.sh", "the recipe script")
		why := fs.String("why", "", "a file saying why the shape and the data are what they are")
		commit := fs.String("commit", "", "the repository's commit the chats were written and the model trained at")
		if err := fs.Parse(args[1:]); err != nil {
			return err
		}
		m, err := Write(*dir, Inputs{Checkpoint: *ckpt, Stages: *stages, Growths: *grows, Evals: *evals, Seconds: *secs, Recipe: *recipe, Why: *why, Commit: *commit})
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
