//go:build linux || darwin

package gate

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestDetectCheckHostile runs DetectCheck on repositories whose Makefile
// is made to hurt: a FIFO (reading it waits for a writer forever), a link
// to /dev/zero (reading it fills memory), a device, a file far over the
// limit. Each is skipped, promptly: the Go module's check is found.
func TestDetectCheckHostile(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, makefile string)
	}{
		{"fifo", func(t *testing.T, p string) { must(t, syscall.Mkfifo(p, 0o644)) }},
		{"link to /dev/zero", func(t *testing.T, p string) { must(t, os.Symlink("/dev/zero", p)) }},
		{"link outside", func(t *testing.T, p string) {
			outside := filepath.Join(t.TempDir(), "Makefile")
			must(t, os.WriteFile(outside, []byte("test:\n"), 0o644))
			must(t, os.Symlink(outside, p))
		}},
		{"device", func(t *testing.T, p string) {
			if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|5); err != nil { // /dev/zero's numbers
				t.Skipf("mknod needs root: %v", err)
			}
		}},
		{"over the limit", func(t *testing.T, p string) {
			f, err := os.Create(p)
			must(t, err)
			_, err = f.WriteString("test:\n")
			must(t, err)
			must(t, f.Truncate(manifestLimit+1)) // sparse: no disk used
			must(t, f.Close())
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			must(t, os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module x\n"), 0o644))
			makefile := filepath.Join(dir, "Makefile")
			tt.setup(t, makefile)
			got := make(chan string, 1)
			go func() { got <- DetectCheck(dir) }()
			select {
			case g := <-got:
				if g != "go test ./..." {
					t.Errorf("DetectCheck = %q, want %q", g, "go test ./...")
				}
			case <-time.After(5 * time.Second):
				unblock(makefile)
				t.Fatal("DetectCheck blocked for 5s")
			}
		})
	}
}

// unblock lets an open of the FIFO p for reading return, by opening it
// for writing, so that a failed test does not leave a blocked goroutine.
func unblock(p string) {
	if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
		w.Close()
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
