//go:build linux || darwin

package instructions

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLoadHostile loads the instruction files of repositories whose
// AGENTS.md is made to hurt: a FIFO, a link to /dev/zero, a device, a
// sparse file of 1 GiB. Load answers promptly; the first three are passed
// over for CLAUDE.md, and the large file is read only as far as MaxBytes
// and cut.
func TestLoadHostile(t *testing.T) {
	tests := []struct {
		name  string
		setup func(t *testing.T, agents string)
		want  string // the first file's heading
		cut   int
	}{
		{name: "fifo", setup: func(t *testing.T, p string) { check(t, syscall.Mkfifo(p, 0o644)) }, want: "CLAUDE.md"},
		{name: "link to /dev/zero", setup: func(t *testing.T, p string) { check(t, os.Symlink("/dev/zero", p)) }, want: "CLAUDE.md"},
		{name: "device", setup: func(t *testing.T, p string) {
			if err := syscall.Mknod(p, syscall.S_IFCHR|0o666, 1<<8|5); err != nil {
				t.Skipf("mknod needs root: %v", err)
			}
		}, want: "CLAUDE.md"},
		{name: "1 GiB", setup: func(t *testing.T, p string) {
			check(t, os.WriteFile(p, []byte("rules\n"), 0o644))
			check(t, os.Truncate(p, 1<<30)) // sparse: no disk used
		}, want: "AGENTS.md", cut: 1<<30 - DefaultMaxChars},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, map[string]string{"CLAUDE.md": "claude\n"})
			agents := filepath.Join(dir, "AGENTS.md")
			tt.setup(t, agents)
			done := make(chan []File, 1)
			go func() {
				files, err := Load(dir, dir, Config{})
				if err != nil {
					t.Error(err)
				}
				done <- files
			}()
			select {
			case files := <-done:
				if len(files) != 1 || files[0].Path != tt.want || files[0].Cut != tt.cut {
					t.Fatalf("Load = %d files %+v, want %s cut by %d", len(files), headings(files), tt.want, tt.cut)
				}
				if tt.cut > 0 && !strings.HasPrefix(files[0].Text, "rules\n") {
					t.Errorf("the large file's text starts %q", files[0].Text[:min(20, len(files[0].Text))])
				}
			case <-time.After(5 * time.Second):
				if w, err := os.OpenFile(agents, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					w.Close() // lets a blocked open of the FIFO return
				}
				t.Fatal("Load blocked for 5s")
			}
		})
	}
}

// headings are the files' paths and cuts, for a message.
func headings(files []File) []string {
	var h []string
	for _, f := range files {
		h = append(h, fmt.Sprintf("%s (cut %d)", f.Path, f.Cut))
	}
	return h
}

func check(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}
