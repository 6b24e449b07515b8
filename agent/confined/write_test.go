//go:build linux || darwin

package confined

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name    string
		path    string
		setup   func(t *testing.T, dir string)
		created bool
		err     error
		read    string // the path to read back; path when empty
	}{
		{name: "new", path: "new.txt", created: true},
		{name: "new with parents", path: "a/b/c.txt", created: true},
		{name: "existing", path: "file.txt"},
		{name: "replaces a link inside", path: "link-in"},
		{name: "replaces a link outside", path: "link-out"},
		{name: "replaces a FIFO", path: "fifo"},
		{name: "directory", path: "sub", err: ErrNotRegular},
		{name: "through a link outside", path: "dir-out/x.txt", err: ErrOutside},
		{name: "dotdot", path: "../outside/x.txt", err: ErrOutside},
		{name: "parent is a file", path: "file.txt/x", err: syscall.ENOTDIR},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, dir := special(t)
			var created bool
			var err error
			within(t, func() { created, err = WriteFile(r, tt.path, []byte("new\n"), 0o644) })
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("WriteFile(%q) = %v, want %v", tt.path, err, tt.err)
				}
			} else {
				if err != nil || created != tt.created {
					t.Fatalf("WriteFile(%q) = %v, %v, want %v, nil", tt.path, created, err, tt.created)
				}
				if got, err := os.ReadFile(filepath.Join(dir, tt.path)); string(got) != "new\n" {
					t.Errorf("%s after WriteFile = %q, %v", tt.path, got, err)
				}
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "..", "outside", "secret.txt")); string(got) != "secret\n" {
				t.Errorf("outside/secret.txt = %q", got)
			}
			if tt.path == "link-in" {
				if got, _ := os.ReadFile(filepath.Join(dir, "file.txt")); string(got) != "hello\n" {
					t.Errorf("file.txt, the old link's target, = %q", got)
				}
			}
			assertNoTemp(t, dir)
		})
	}
}

// assertNoTemp fails when a temporary file was left in dir.
func assertNoTemp(t *testing.T, dir string) {
	t.Helper()
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && filepath.Ext(p) == ".tmp" {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

// TestWriteFileHardLink: a hard link to a file outside the root is
// replaced, and the file outside keeps its content.
func TestWriteFileHardLink(t *testing.T) {
	r, dir := special(t)
	secret := filepath.Join(dir, "..", "outside", "secret.txt")
	must(t, os.Link(secret, filepath.Join(dir, "hard")))
	if _, err := WriteFile(r, "hard", []byte("owned\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(secret); string(got) != "secret\n" {
		t.Errorf("the outside file = %q after writing its hard link", got)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "hard")); string(got) != "owned\n" {
		t.Errorf("hard = %q", got)
	}
}

func TestWriteFileKeepsMode(t *testing.T) {
	r, dir := special(t)
	p := filepath.Join(dir, "run.sh")
	must(t, os.WriteFile(p, []byte("#!/bin/sh\n"), 0o644))
	must(t, os.Chmod(p, 0o751))
	if _, err := WriteFile(r, "run.sh", []byte("#!/bin/sh\necho\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o751 {
		t.Errorf("mode after WriteFile = %v, want 0751", info.Mode().Perm())
	}
}
