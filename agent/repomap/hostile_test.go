//go:build linux || darwin

package repomap

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestScanHostile scans a repository with a FIFO named like a source
// file, a link to a directory of sources outside it and a link to
// /dev/zero: the scan answers promptly and maps only the file inside.
func TestScanHostile(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "repo")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{dir, outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	files := map[string]string{
		filepath.Join(dir, "main.go"):       "package main\n\nfunc main() {}\n",
		filepath.Join(outside, "secret.go"): "package secret\n\nfunc Secret() {}\n",
	}
	for p, src := range files {
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	fifo := filepath.Join(dir, "fifo.go")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"ext": outside, "zero.go": "/dev/zero"} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan *Map, 1)
	go func() {
		m, err := Scan(dir, Options{})
		if err != nil {
			t.Error(err)
		}
		done <- m
	}()
	select {
	case m := <-done:
		if m == nil || m.Text != "main.go\n  func main()\n" || strings.Contains(m.Text, "Secret") {
			t.Errorf("Scan = %+v, want only main.go", m)
		}
	case <-time.After(5 * time.Second):
		if w, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close() // lets a blocked open of the FIFO return
		}
		t.Fatal("Scan blocked for 5s")
	}
}
