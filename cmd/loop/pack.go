package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/loopagent/loop/internal/pack"
)

// launchedFrom is the file of make dist's launcher when it started this
// build from memory (internal/variants), else "".
var launchedFrom string

// selfExe is the file this loop runs from: the launcher it came out of, or
// its own executable. A packed model lies at its end, lib/ next to it.
func selfExe() (string, error) {
	if launchedFrom != "" {
		if st, err := os.Stat(launchedFrom); err == nil && st.Mode().IsRegular() {
			return launchedFrom, nil
		}
	}
	return os.Executable()
}

// runPack is `loop pack -m FILE.gguf -o TOOL`: a copy of this binary with
// the model inside, so that `./TOOL run "task"` needs no -m.
func runPack(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("pack", stderr)
	model := fs.StringP("model", "m", "", "GGUF model file to put inside")
	out := fs.StringP("output", "o", "", "the executable to write")
	if err := parse(fs, args); err != nil {
		return err
	}
	if *model == "" || *out == "" {
		return usagef("want -m FILE.gguf -o OUTPUT")
	}
	exe, err := selfExe()
	if err != nil {
		return err
	}
	if info, ok, err := pack.Find(exe); err != nil {
		return err
	} else if ok {
		return fmt.Errorf("this loop carries a model already (%d bytes); pack from a plain loop binary", info.Size)
	}
	if err := pack.Write(*out, exe, *model); err != nil {
		return err
	}
	info, _, err := pack.Find(*out)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: loop with %s inside (%d bytes at offset %d, sha256 %x)\n", *out, *model, info.Size, info.Offset, info.Sum[:8])
	return nil
}

// packedModel is the path of the model this binary carries, extracted on
// the first start into the cache directory, or "" when it carries none.
func packedModel(stderr io.Writer) (string, error) {
	exe, err := selfExe()
	if err != nil {
		return "", nil
	}
	info, ok, err := pack.Find(exe)
	if err != nil || !ok {
		return "", err
	}
	dir, err := pack.CacheDir()
	if err != nil {
		return "", err
	}
	path := dir + "/" + info.Name()
	if _, err := os.Stat(path); err != nil {
		fmt.Fprintf(stderr, "extracting the packed model to %s (once: llama.cpp loads a model from the start of a file)\n", path)
	}
	return pack.Extract(exe, info, dir)
}
