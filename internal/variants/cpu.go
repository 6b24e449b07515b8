package variants

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// CPUFlags returns the CPU's flags as Linux's /proc/cpuinfo lists them
// (sse4_2, avx2, avx512f, avx512_vnni, ...). The kernel lists only what it
// also enabled, such as the AVX-512 state, so a flag here is one a build
// may use.
func CPUFlags() (map[string]bool, error) {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return nil, fmt.Errorf("read the CPU's flags: %w", err)
	}
	defer f.Close()
	return parseFlags(f)
}

// parseFlags reads the first "flags" line of /proc/cpuinfo.
func parseFlags(r io.Reader) (map[string]bool, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || strings.TrimSpace(key) != "flags" {
			continue
		}
		flags := map[string]bool{}
		for _, f := range strings.Fields(val) {
			flags[f] = true
		}
		return flags, nil
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read the CPU's flags: %w", err)
	}
	return nil, fmt.Errorf("read the CPU's flags: /proc/cpuinfo has no flags line")
}
