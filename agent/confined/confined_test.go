//go:build linux || darwin

package confined

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// special is a directory holding ws/, a workspace with one of each kind of
// file, and outside/secret.txt next to it.
func special(t *testing.T) (root *os.Root, dir string) {
	t.Helper()
	base := t.TempDir()
	dir = filepath.Join(base, "ws")
	must(t, os.MkdirAll(filepath.Join(dir, "sub"), 0o755))
	must(t, os.MkdirAll(filepath.Join(base, "outside"), 0o755))
	must(t, os.WriteFile(filepath.Join(base, "outside", "secret.txt"), []byte("secret\n"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "file.txt"), []byte("hello\n"), 0o644))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	must(t, os.Symlink("file.txt", filepath.Join(dir, "link-in")))
	must(t, os.Symlink("/dev/zero", filepath.Join(dir, "zero")))
	must(t, os.Symlink("../outside/secret.txt", filepath.Join(dir, "link-out")))
	must(t, os.Symlink("../outside", filepath.Join(dir, "dir-out")))
	l, err := net.Listen("unix", filepath.Join(dir, "sock"))
	must(t, err)
	t.Cleanup(func() { l.Close() })
	root, err = os.OpenRoot(dir)
	must(t, err)
	t.Cleanup(func() { root.Close() })
	return root, dir
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// within fails the test when f does not return within a few seconds: a
// FIFO opened for reading blocks until a writer comes. On a timeout it
// opens the FIFOs named for writing, which lets a blocked open return.
func within(t *testing.T, f func(), fifos ...string) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		f()
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		for _, p := range fifos {
			if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
		t.Fatal("blocked for 5s")
	}
}

func TestReadFileIn(t *testing.T) {
	r, dir := special(t)
	tests := []struct {
		name, path string
		limit      int64
		want       string // the content, when no error
		err        error
		mode       fs.FileMode // for ErrNotRegular
	}{
		{name: "regular", path: "file.txt", want: "hello\n"},
		{name: "link inside", path: "link-in", want: "hello\n"},
		{name: "at the limit", path: "file.txt", limit: 6, want: "hello\n"},
		{name: "over the limit", path: "file.txt", limit: 5, err: ErrTooLarge},
		{name: "missing", path: "nope", err: fs.ErrNotExist},
		{name: "fifo", path: "fifo", err: ErrNotRegular, mode: fs.ModeNamedPipe},
		{name: "socket", path: "sock", err: ErrNotRegular, mode: fs.ModeSocket},
		{name: "directory", path: "sub", err: ErrNotRegular, mode: fs.ModeDir},
		{name: "link to /dev/zero", path: "zero", err: ErrOutside},
		{name: "link outside", path: "link-out", err: ErrOutside},
		{name: "through a link outside", path: "dir-out/secret.txt", err: ErrOutside},
		{name: "dotdot", path: "../outside/secret.txt", err: ErrOutside},
		{name: "absolute", path: filepath.Join(dir, "file.txt"), err: ErrOutside},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []byte
			var err error
			within(t, func() { got, err = ReadFileIn(r, tt.path, tt.limit) }, filepath.Join(dir, "fifo"))
			if tt.err == nil {
				if err != nil || string(got) != tt.want {
					t.Fatalf("ReadFileIn(%q) = %q, %v, want %q", tt.path, got, err, tt.want)
				}
				return
			}
			var e *Error
			if !errors.Is(err, tt.err) || !errors.As(err, &e) || e.Path != tt.path || e.Mode != tt.mode {
				t.Fatalf("ReadFileIn(%q) = %q, %#v, want an *Error for %q wrapping %v, mode %v", tt.path, got, err, tt.path, tt.err, tt.mode)
			}
		})
	}
}

func TestErrorText(t *testing.T) {
	r, _ := special(t)
	_, err := ReadFileIn(r, "fifo", 0)
	if want := "open fifo: a FIFO, not a regular file"; err == nil || err.Error() != want {
		t.Errorf("ReadFileIn(fifo) = %v, want %q", err, want)
	}
	_, err = ReadFileIn(r, "file.txt", 2)
	if want := "read file.txt: file too large: over the limit of 2 bytes"; err == nil || err.Error() != want {
		t.Errorf("ReadFileIn(file.txt, 2) = %v, want %q", err, want)
	}
}

// TestOpenOutside pins the text of os.Root's refusal, which escapes
// matches because os does not export the error.
func TestOpenOutside(t *testing.T) {
	r, _ := special(t)
	_, err := r.Open("link-out")
	if !escapes(err) {
		t.Fatalf("os.Root.Open(link-out) = %v; escapes no longer recognises os.Root's refusal", err)
	}
	if escapes(fs.ErrNotExist) {
		t.Error("escapes(fs.ErrNotExist) = true")
	}
}

// TestDevice opens a character device made inside the root (the same as
// /dev/null): it is refused unread. Only root may make one.
func TestDevice(t *testing.T) {
	r, dir := special(t)
	if err := syscall.Mknod(filepath.Join(dir, "null"), syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod needs root: %v", err)
	}
	_, err := ReadFileIn(r, "null", 0)
	var e *Error
	if !errors.As(err, &e) || e.Err != ErrNotRegular || e.Mode&fs.ModeCharDevice == 0 {
		t.Errorf("ReadFileIn(null) = %v, want a character device refused", err)
	}
}

func TestReadAllGrowing(t *testing.T) {
	// A file that grows past the limit after its size was taken.
	_, err := ReadAll(strings.NewReader(strings.Repeat("x", 100)), "grow", 10, 50)
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("ReadAll(100 bytes, size 10, limit 50) = %v, want ErrTooLarge", err)
	}
	got, err := ReadAll(strings.NewReader("abc"), "small", 0, 0)
	if err != nil || string(got) != "abc" {
		t.Errorf("ReadAll(abc) = %q, %v", got, err)
	}
}

// TestWalk walks the special tree: the link to a directory outside is
// listed, not entered; the FIFO and the socket are listed, not opened.
func TestWalk(t *testing.T) {
	r, dir := special(t)
	must(t, os.WriteFile(filepath.Join(dir, "sub", "a.go"), nil, 0o644))
	var got []string
	within(t, func() {
		err := fs.WalkDir(FS(r), ".", func(name string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			got = append(got, name)
			return nil
		})
		if err != nil {
			t.Error(err)
		}
	}, filepath.Join(dir, "fifo"))
	want := []string{".", "dir-out", "fifo", "file.txt", "link-in", "link-out", "sock", "sub", "sub/a.go", "zero"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("walk (-want +got):\n%s", diff)
	}
	if _, err := FS(r).(fs.ReadDirFS).ReadDir("fifo"); err == nil {
		t.Error("ReadDir(fifo) succeeded")
	}
	if _, err := FS(r).(fs.ReadDirFS).ReadDir("dir-out"); !errors.Is(err, ErrOutside) {
		t.Errorf("ReadDir(dir-out) = %v, want ErrOutside", err)
	}
}

// TestWalkUnreadable: a directory the process may not read reaches the
// walk function with fs.ErrPermission. Root reads every directory, so the
// case is skipped there (tools' tests run it as nobody).
func TestWalkUnreadable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a directory of mode 000")
	}
	r, dir := special(t)
	must(t, os.Chmod(filepath.Join(dir, "sub"), 0))
	t.Cleanup(func() { os.Chmod(filepath.Join(dir, "sub"), 0o755) })
	var denied []string
	fs.WalkDir(FS(r), ".", func(name string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrPermission) {
			denied = append(denied, name)
		}
		return nil
	})
	if diff := cmp.Diff([]string{"sub"}, denied); diff != "" {
		t.Errorf("denied (-want +got):\n%s", diff)
	}
}
