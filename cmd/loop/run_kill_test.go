package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestKilledRunLeavesNoProcess signals `loop run` while a command it ran
// has background children (one in its own session, one double-forked) and
// lists by process id every process of that command still alive after.
// SIGTERM is handled like Ctrl-C; SIGKILL gives loop no chance, and the
// sandbox's supervisor, told by the kernel that its parent died, ends the
// command's processes.
func TestKilledRunLeavesNoProcess(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGKILL, syscall.SIGHUP} {
		t.Run(sig.String(), func(t *testing.T) {
			mark := fmt.Sprintf("%d%d", 4000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
			command := fmt.Sprintf("sleep %[1]s1 & setsid sleep %[1]s2 & (sleep %[1]s3 &); sleep %[1]s4", mark)
			args, _ := json.Marshal(map[string]string{"command": command})
			script, _ := json.Marshal([]string{`<tool_call>` + "\n" + `{"name": "shell", "arguments": ` + string(args) + "}\n</tool_call>", "Done."})
			tmp := t.TempDir()
			scriptFile := filepath.Join(tmp, "script.json")
			os.WriteFile(scriptFile, script, 0o644)
			cmd := exec.Command(os.Args[0], "run", "--script", scriptFile, "--yes", "-C", tmp, "--transcript", filepath.Join(tmp, "run.jsonl"), "run the sleepers")
			cmd.Env = append(os.Environ(), envAsLoop+"=1")
			var out bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &out
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			if !waitFor(func() bool { return sleepers(processesWith(mark)) == 4 }) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("the command's four sleepers did not all start; found %v\n%s", processesWith(mark), out.String())
			}
			cmd.Process.Signal(sig)
			err := cmd.Wait()
			var left []proc
			waitFor(func() bool { left = processesWith(mark); return len(left) == 0 })
			for _, p := range left {
				syscall.Kill(p.pid, syscall.SIGKILL)
			}
			if len(left) > 0 {
				t.Errorf("after %v to loop, these processes of its command survived:\n%s", sig, strings.Join(describe(left), "\n"))
			}
			if sig != syscall.SIGKILL && !strings.Contains(out.String(), "cancelled") {
				t.Errorf("after %v: %v; want the run to end cancelled:\n%s", sig, err, out.String())
			}
		})
	}
}

// proc is a process found in /proc.
type proc struct {
	pid     int
	cmdline string
}

// processesWith lists the processes whose command line holds mark.
func processesWith(mark string) []proc {
	var found []proc
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(b, []byte(mark)) {
			found = append(found, proc{pid, strings.ReplaceAll(string(bytes.TrimRight(b, "\x00")), "\x00", " ")})
		}
	}
	return found
}

// sleepers counts the sleep processes among ps.
func sleepers(ps []proc) int {
	n := 0
	for _, p := range ps {
		if strings.HasPrefix(p.cmdline, "sleep ") {
			n++
		}
	}
	return n
}

func describe(ps []proc) []string {
	var out []string
	for _, p := range ps {
		out = append(out, fmt.Sprintf("  pid %d: %s", p.pid, p.cmdline))
	}
	return out
}

// waitFor polls cond for up to ten seconds.
func waitFor(cond func() bool) bool {
	for range 200 {
		if cond() {
			return true
		}
		time.Sleep(50 * time.Millisecond)
	}
	return false
}
