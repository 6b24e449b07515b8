package tools

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// undoWorkspace is a workspace with files whose writes an Undo keeps.
func undoWorkspace(t *testing.T, files map[string]string) (*Workspace, *Undo) {
	t.Helper()
	u, err := NewUndo(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { u.Close() })
	ws := newWorkspace(t, files, Config{Undo: u})
	u.Begin()
	return ws, u
}

func mustResult(t *testing.T, r Result) {
	t.Helper()
	if r.IsError {
		t.Fatalf("the call failed: %s", r.Content)
	}
}

// TestUndoEditedTwice: a file edited twice and written once in one task
// comes back byte for byte as it was before the task's first change,
// mode included, and a second Restore has nothing left to do.
func TestUndoEditedTwice(t *testing.T) {
	orig := "line one\r\nlíne two\x01\tend, no newline"
	ws, u := undoWorkspace(t, map[string]string{"src/a.txt": orig})
	p := filepath.Join(ws.Root(), "src", "a.txt")
	if err := os.Chmod(p, 0o640); err != nil {
		t.Fatal(err)
	}
	mustResult(t, call(t, EditFile{}, ws, `{"path": "src/a.txt", "old_string": "one", "new_string": "ONE"}`))
	mustResult(t, call(t, EditFile{}, ws, `{"path": "src/a.txt", "old_string": "ONE", "new_string": "uno"}`))
	mustResult(t, call(t, WriteFile{}, ws, `{"path": "src/a.txt", "content": "all new"}`))
	os.Chmod(p, 0o600) // as a command might
	if got := u.Changed(); !slices.Equal(got, []string{"src/a.txt"}) {
		t.Errorf("Changed() = %q, want [src/a.txt]", got)
	}
	done, err := u.Restore(ws)
	if err != nil || !slices.Equal(done.Restored, []string{"src/a.txt"}) || len(done.Removed)+len(done.Failed) > 0 {
		t.Fatalf("Restore = %+v, %v, want src/a.txt restored", done, err)
	}
	got, _ := os.ReadFile(p)
	if !bytes.Equal(got, []byte(orig)) {
		t.Errorf("after Restore the file holds %q, want %q", got, orig)
	}
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o640 {
		t.Errorf("after Restore the file's mode is %v, want 0640", info.Mode().Perm())
	}
	if entries, _ := os.ReadDir(u.Dir()); len(entries) != 0 {
		t.Errorf("the copies are still kept after Restore: %v", entries)
	}
	os.WriteFile(p, []byte("changed after"), 0o644)
	if done, _ := u.Restore(ws); len(done.Restored)+len(done.Removed) > 0 {
		t.Errorf("a second Restore = %+v, want nothing to do", done)
	}
	if got, _ := os.ReadFile(p); string(got) != "changed after" {
		t.Errorf("a second Restore wrote the file: %q", got)
	}
}

// TestUndoCreated: a file the task created is removed, with the
// directories its write created; a directory that holds something else
// by then stays.
func TestUndoCreated(t *testing.T) {
	ws, u := undoWorkspace(t, map[string]string{"keep.txt": "keep"})
	mustResult(t, call(t, WriteFile{}, ws, `{"path": "new/deep/x.go", "content": "package x"}`))
	mustResult(t, call(t, WriteFile{}, ws, `{"path": "new/deep/x.go", "content": "package y"}`))
	mustResult(t, call(t, WriteFile{}, ws, `{"path": "other/y.go", "content": "package y"}`))
	os.WriteFile(filepath.Join(ws.Root(), "other", "by-a-command.txt"), []byte("mine"), 0o644)
	done, err := u.Restore(ws)
	if err != nil || !slices.Equal(done.Removed, []string{"new/deep/x.go", "other/y.go"}) || len(done.Failed) > 0 {
		t.Fatalf("Restore = %+v, %v, want new/deep/x.go and other/y.go removed", done, err)
	}
	for _, gone := range []string{"new", "other/y.go"} {
		if _, err := os.Lstat(filepath.Join(ws.Root(), gone)); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("%s is still there after Restore (%v)", gone, err)
		}
	}
	for _, kept := range []string{"keep.txt", "other/by-a-command.txt"} {
		if _, err := os.Stat(filepath.Join(ws.Root(), kept)); err != nil {
			t.Errorf("%s is gone after Restore: %v", kept, err)
		}
	}
}

// TestUndoNeverOutside: Restore writes and removes beneath the root
// only. A write through a symlink out is refused and kept nowhere; a
// changed file, and a created one, replaced since by a symlink to a file
// outside are put back in the workspace, and the file outside keeps its
// bytes.
func TestUndoNeverOutside(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "secret.txt")
	os.WriteFile(outside, []byte("outside"), 0o644)
	ws, u := undoWorkspace(t, map[string]string{"a.txt": "before"})
	root := ws.Root()
	os.Symlink(outside, filepath.Join(root, "link"))

	if r := call(t, WriteFile{}, ws, `{"path": "link", "content": "pwned"}`); !r.IsError {
		t.Fatalf("write_file through a symlink out: %s", r.Content)
	}
	mustResult(t, call(t, EditFile{}, ws, `{"path": "a.txt", "old_string": "before", "new_string": "after"}`))
	mustResult(t, call(t, WriteFile{}, ws, `{"path": "b.txt", "content": "new"}`))
	if got := u.Changed(); !slices.Equal(got, []string{"a.txt", "b.txt"}) {
		t.Errorf("Changed() = %q, want [a.txt b.txt]: a refused write keeps nothing", got)
	}
	for _, name := range []string{"a.txt", "b.txt"} { // a command swaps links in
		p := filepath.Join(root, name)
		os.Remove(p)
		if err := os.Symlink(outside, p); err != nil {
			t.Fatal(err)
		}
	}
	done, err := u.Restore(ws)
	if err != nil || len(done.Failed) > 0 {
		t.Fatalf("Restore = %+v, %v", done, err)
	}
	if got, _ := os.ReadFile(outside); string(got) != "outside" {
		t.Errorf("the file outside holds %q after Restore, want %q", got, "outside")
	}
	if info, err := os.Lstat(filepath.Join(root, "a.txt")); err != nil || !info.Mode().IsRegular() {
		t.Errorf("a.txt after Restore: %v, %v; want a regular file again", info, err)
	} else if got, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(got) != "before" {
		t.Errorf("a.txt after Restore holds %q, want %q", got, "before")
	}
	if _, err := os.Lstat(filepath.Join(root, "b.txt")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("b.txt after Restore: %v, want it removed", err)
	}
	if _, err := os.Stat(outside); err != nil {
		t.Errorf("the file outside is gone after Restore: %v", err)
	}
}

// TestUndoBegin: each task keeps its own record; Begin drops the last
// task's, so Restore takes back only the current task's writes.
func TestUndoBegin(t *testing.T) {
	ws, u := undoWorkspace(t, map[string]string{"a.txt": "v1"})
	mustResult(t, call(t, WriteFile{}, ws, `{"path": "a.txt", "content": "v2"}`))
	u.Begin()
	mustResult(t, call(t, WriteFile{}, ws, `{"path": "a.txt", "content": "v3"}`))
	if _, err := u.Restore(ws); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(ws.Root(), "a.txt")); string(got) != "v2" {
		t.Errorf("after Restore a.txt holds %q, want the second task's start, %q", got, "v2")
	}
}

// TestUndoDirInside: copies inside the workspace, where commands write,
// are refused.
func TestUndoDirInside(t *testing.T) {
	root := t.TempDir()
	u, err := NewUndo(root)
	if err != nil {
		t.Fatal(err)
	}
	defer u.Close()
	if _, err := NewWorkspace(root, Config{Undo: u}); err == nil {
		t.Errorf("NewWorkspace with the undo copies in %s, inside the root: no error", u.Dir())
	}
}
