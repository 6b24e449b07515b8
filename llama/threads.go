package llama

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
)

// DefaultThreads is the thread count a Context uses when none is given:
// the number of physical cores, as llama.cpp's cpu_get_num_physical_cores
// counts them on Linux (the distinct sets of hyperthread siblings), and
// the logical CPUs where that cannot be read. ggml's threads spin while
// they wait, so a second thread on the same core slows generation down.
func DefaultThreads() int {
	defaultThreadsOnce.Do(func() { defaultThreads = physicalCores() })
	return defaultThreads
}

var (
	defaultThreadsOnce sync.Once
	defaultThreads     int
)

func physicalCores() int {
	n := runtime.NumCPU()
	if runtime.GOOS != "linux" {
		return n
	}
	files, _ := filepath.Glob("/sys/devices/system/cpu/cpu[0-9]*/topology/thread_siblings")
	siblings := map[string]bool{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			return n
		}
		siblings[strings.TrimSpace(string(b))] = true
	}
	if len(siblings) == 0 || len(siblings) > n {
		return n
	}
	return len(siblings)
}
