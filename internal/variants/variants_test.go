package variants

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/pack"
)

func TestParseFlags(t *testing.T) {
	in := "processor\t: 0\nvendor_id\t: AuthenticAMD\nflags\t\t: fpu sse4_2 avx2 avx512_vnni\nbugs\t\t: none\nprocessor\t: 1\nflags\t\t: fpu\n"
	got, err := parseFlags(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 || !got["avx512_vnni"] || !got["sse4_2"] || got["none"] {
		t.Errorf("flags = %v", got)
	}
	if _, err := parseFlags(strings.NewReader("processor : 0\n")); err == nil {
		t.Errorf("no flags line: want an error")
	}
}

// distIndex is scripts/dist-variants.txt's list.
func distIndex(t *testing.T) *Index {
	data, err := os.ReadFile("../../scripts/dist-variants.txt")
	if err != nil {
		t.Fatal(err)
	}
	var idx Index
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Split(line, "|")
		if strings.HasPrefix(line, "#") || len(f) != 4 {
			continue
		}
		v := Variant{Name: strings.TrimSpace(f[0])}
		if r := strings.TrimSpace(f[3]); r != "" {
			v.Requires = strings.Split(r, ",")
		}
		idx.Variants = append(idx.Variants, v)
	}
	return &idx
}

func flagSet(s string) map[string]bool {
	m := map[string]bool{}
	for _, f := range strings.Fields(s) {
		m[f] = true
	}
	return m
}

// TestPick picks make dist's build for CPUs of each level.
func TestPick(t *testing.T) {
	v3 := "sse4_2 ssse3 popcnt cx16 avx avx2 fma f16c bmi1 bmi2 movbe abm"
	v4 := v3 + " avx512f avx512bw avx512cd avx512dq avx512vl"
	for _, c := range []struct{ cpu, flags, want string }{
		{"Sapphire Rapids", v4 + " avx512_vnni avx512vbmi avx512_bf16 amx_bf16 amx_tile amx_int8", "avx512-amx"},
		{"Zen 4", v4 + " avx512_vnni avx512vbmi avx512_bf16 gfni", "avx512-vnni"},
		{"Skylake-X", v4, "x86-64-v4"},
		{"Haswell", v3, "x86-64-v3"},
		{"Sandy Bridge", "sse4_2 ssse3 popcnt cx16 avx", "x86-64-v2"},
		{"Core 2", "ssse3 cx16", "x86-64"},
	} {
		v, err := Pick(distIndex(t), flagSet(c.flags))
		if err != nil || v.Name != c.want {
			t.Errorf("%s: picked %+v, %v; want %s", c.cpu, v, err, c.want)
		}
	}
	idx := distIndex(t)
	idx.Variants = idx.Variants[:4]
	_, err := Pick(idx, flagSet("sse4_2 avx avx2"))
	if err == nil || !strings.Contains(err.Error(), "x86-64-v3, needs fma, f16c, bmi1, bmi2, movbe, abm") {
		t.Errorf("a CPU below every build: %v", err)
	}
}

// write makes a file of the given bytes in dir.
func write(t *testing.T, dir, name string, data []byte, mode os.FileMode) string {
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestWriteRead writes a launcher with two builds, reads them back, and
// again after `loop pack` put a model after them.
func TestWriteRead(t *testing.T) {
	dir := t.TempDir()
	launcher := write(t, dir, "launch", bytes.Repeat([]byte("L"), 1000), 0o755)
	a, b := bytes.Repeat([]byte("build a "), 5000), []byte("build b")
	builds := []Build{
		{Name: "a", Requires: []string{"avx2"}, Path: write(t, dir, "a", a, 0o755)},
		{Name: "b", Path: write(t, dir, "b", b, 0o755)},
	}
	out := filepath.Join(dir, "loop")
	if err := Write(out, launcher, builds); err != nil {
		t.Fatal(err)
	}
	packed := filepath.Join(dir, "tool")
	model := write(t, dir, "m.gguf", append([]byte("GGUF"), bytes.Repeat([]byte{7}, 10000)...), 0o644)
	if err := pack.Write(packed, out, model); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{out, packed} {
		idx, err := Read(file)
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if len(idx.Variants) != 2 || idx.Variants[0].Name != "a" || idx.Variants[1].Requires != nil {
			t.Fatalf("%s: index %+v", file, idx)
		}
		for i, want := range [][]byte{a, b} {
			var got bytes.Buffer
			if err := Extract(&got, file, &idx.Variants[i]); err != nil || !bytes.Equal(got.Bytes(), want) {
				t.Errorf("%s: build %d: %d bytes, %v", file, i, got.Len(), err)
			}
		}
	}
	if _, err := Read(launcher); !errors.Is(err, ErrNone) {
		t.Errorf("a launcher alone: %v, want ErrNone", err)
	}
	data, _ := os.ReadFile(out)
	data[1000+10] ^= 0xff // inside build a's stream
	broken := write(t, dir, "broken", data, 0o755)
	idx, _ := Read(broken)
	if err := Extract(&bytes.Buffer{}, broken, &idx.Variants[0]); err == nil {
		t.Errorf("a damaged build extracted without an error")
	}
}

// TestLaunch builds the launcher, gives it two shell-script builds, and
// runs it: it starts the build this CPU can run, with the arguments and
// LOOP_EXE, and refuses by name a build the CPU cannot.
func TestLaunch(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the launcher runs on Linux")
	}
	dir := t.TempDir()
	launcher := filepath.Join(dir, "launch")
	build := exec.Command("go", "build", "-o", launcher, "../../cmd/launch")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	script := func(name string) string {
		return write(t, dir, name, []byte("#!/bin/sh\necho "+name+" \"$@\" \"$LOOP_EXE\"\n"), 0o755)
	}
	out := filepath.Join(dir, "loop")
	err := Write(out, launcher, []Build{
		{Name: "fancy", Requires: []string{"no_such_flag"}, Path: script("fancy")},
		{Name: "plain", Path: script("plain")},
	})
	if err != nil {
		t.Fatal(err)
	}
	run := func(variant string, args ...string) (string, error) {
		cmd := exec.Command(out, args...)
		cmd.Env = append(os.Environ(), "LOOP_VARIANT="+variant)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	if got, err := run("", "run", "a task"); err != nil || got != "plain run a task "+out+"\n" {
		t.Errorf("launch: %q, %v", got, err)
	}
	if got, err := run("list"); err != nil || !strings.Contains(got, "* plain") || strings.Contains(got, "* fancy") {
		t.Errorf("LOOP_VARIANT=list: %q, %v", got, err)
	}
	if got, err := run("fancy"); err == nil || !strings.Contains(got, "needs no_such_flag") {
		t.Errorf("LOOP_VARIANT=fancy on a CPU without its flag: %q, %v", got, err)
	}
}
