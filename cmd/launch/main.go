// Command launch starts the best build of loop that this CPU can run, from
// the builds `make dist` appends to it (internal/variants). It is the
// first part of dist/loop-linux-amd64, and passes every argument through:
// the build it starts is loop itself.
//
// LOOP_VARIANT=NAME picks a build by name instead (an error when the CPU
// lacks its flags); LOOP_VARIANT=list prints the builds and which one this
// CPU gets.
package main

import (
	"fmt"
	"os"

	"github.com/loopagent/loop/internal/variants"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "loop:", err)
		os.Exit(1)
	}
}

func run() error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	idx, err := variants.Read(self)
	if err != nil {
		return err
	}
	flags, err := variants.CPUFlags()
	if err != nil {
		return err
	}
	want := os.Getenv("LOOP_VARIANT")
	if want != "" && want != "list" {
		idx, err = only(idx, want)
		if err != nil {
			return err
		}
	}
	v, err := variants.Pick(idx, flags)
	if want == "list" {
		list(idx, v)
		return nil
	}
	if err != nil {
		return err
	}
	return variants.Exec(self, v, os.Args)
}

// only keeps the build named name.
func only(idx *variants.Index, name string) (*variants.Index, error) {
	for _, v := range idx.Variants {
		if v.Name == name {
			return &variants.Index{Variants: []variants.Variant{v}}, nil
		}
	}
	return nil, fmt.Errorf("LOOP_VARIANT=%s: no build of that name here (LOOP_VARIANT=list lists them)", name)
}

func list(idx *variants.Index, picked *variants.Variant) {
	for _, v := range idx.Variants {
		mark := " "
		if picked != nil && v.Name == picked.Name {
			mark = "*"
		}
		fmt.Printf("%s %-12s %5.1f MB  needs %v\n", mark, v.Name, float64(v.RawSize)/1e6, v.Requires)
	}
}
