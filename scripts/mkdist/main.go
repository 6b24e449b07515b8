// Command mkdist writes make dist's file: the launcher followed by the
// builds of loop (internal/variants.Write).
//
//	go run ./scripts/mkdist -o dist/loop-linux-amd64 -launcher dist/launch NAME=PATH=FLAG,FLAG ...
//
// Builds come best first; FLAGs are /proc/cpuinfo names, none for a build
// every CPU of the architecture runs.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"

	"github.com/loopagent/loop/internal/variants"
)

func main() {
	out := flag.String("o", "", "the file to write")
	launcher := flag.String("launcher", "", "the launcher binary")
	flag.Parse()
	if err := run(*out, *launcher, flag.Args()); err != nil {
		fmt.Fprintln(os.Stderr, "mkdist:", err)
		os.Exit(1)
	}
}

func run(out, launcher string, specs []string) error {
	if out == "" || launcher == "" || len(specs) == 0 {
		return fmt.Errorf("want -o FILE -launcher FILE NAME=PATH=FLAGS ...")
	}
	var builds []variants.Build
	for _, s := range specs {
		parts := strings.SplitN(s, "=", 3)
		if len(parts) != 3 || parts[0] == "" || parts[1] == "" {
			return fmt.Errorf("%q: want NAME=PATH=FLAG,FLAG", s)
		}
		var req []string
		if parts[2] != "" {
			req = strings.Split(parts[2], ",")
		}
		builds = append(builds, variants.Build{Name: parts[0], Path: parts[1], Requires: req})
	}
	if err := variants.Write(out, launcher, builds); err != nil {
		return err
	}
	idx, err := variants.Read(out)
	if err != nil {
		return err
	}
	for _, v := range idx.Variants {
		fmt.Printf("%-12s %6.1f MB, %5.1f MB compressed, needs %s\n", v.Name, float64(v.RawSize)/1e6, float64(v.Size)/1e6, strings.Join(v.Requires, ","))
	}
	return nil
}
