//go:build linux || darwin

package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// Tests of a workspace that is a hostile repository: files that block or
// never end when read, links and hard links to files outside, and files
// swapped for links while the tools run. They need FIFOs and sockets.

// runWithin runs tool and fails the test when it does not answer within a
// few seconds. On a timeout it opens the FIFOs named for writing, which
// lets a read blocked on one return.
func runWithin(t *testing.T, tool Tool, ws *Workspace, args string, fifos ...string) Result {
	t.Helper()
	done := make(chan Result, 1)
	go func() {
		r, err := tool.Run(context.Background(), ws, json.RawMessage(args))
		if err != nil {
			r = Result{Content: "harness error: " + err.Error(), IsError: true}
		}
		done <- r
	}()
	select {
	case r := <-done:
		return r
	case <-time.After(5 * time.Second):
		for _, p := range fifos {
			if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
		}
		t.Fatalf("%s(%s) blocked for 5s", tool.Name(), args)
		return Result{}
	}
}

// specialWorkspace holds a FIFO, a socket, a link to /dev/zero and, when
// the tests run as root, a character device (/dev/zero's numbers), next
// to a plain file.
func specialWorkspace(t *testing.T) (ws *Workspace, fifo string, device bool) {
	t.Helper()
	ws = newWorkspace(t, map[string]string{"plain.txt": "plain\n"}, Config{})
	fifo = filepath.Join(ws.Root(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/dev/zero", filepath.Join(ws.Root(), "zero")); err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("unix", filepath.Join(ws.Root(), "sock"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	device = syscall.Mknod(filepath.Join(ws.Root(), "dev"), syscall.S_IFCHR|0o666, 1<<8|5) == nil
	return ws, fifo, device
}

// TestSpecialFilesRefused: read_file and edit_file on a FIFO, a socket, a
// device or a link to /dev/zero answer at once with a result that names
// the file and what it is. Nothing is read from them.
func TestSpecialFilesRefused(t *testing.T) {
	ws, fifo, device := specialWorkspace(t)
	tests := []struct {
		name, path, want string
		root             bool // needs the device, made only by root
	}{
		{name: "fifo", path: "fifo", want: "%s: fifo is a FIFO, not a regular file"},
		{name: "socket", path: "sock", want: "%s: sock is a socket, not a regular file"},
		{name: "device", path: "dev", want: "%s: dev is a character device, not a regular file", root: true},
		{name: "link to /dev/zero", path: "zero", want: `%s: refused: "zero" is outside the workspace root; use a path relative to the root, like src/main.go`},
	}
	for _, tool := range []Tool{ReadFile{}, EditFile{}} {
		for _, tt := range tests {
			t.Run(tool.Name()+"/"+tt.name, func(t *testing.T) {
				if tt.root && !device {
					t.Skip("mknod needs root")
				}
				args := `{"path": "` + tt.path + `", "old_string": "a", "new_string": "b"}`
				if tool.Name() == ReadFileName {
					args = `{"path": "` + tt.path + `"}`
				}
				got := runWithin(t, tool, ws, args, fifo)
				want := strings.ReplaceAll(tt.want, "%s", tool.Name())
				if !got.IsError || got.Content != want {
					t.Errorf("%s(%s) = %+v, want the error %q", tool.Name(), args, got, want)
				}
			})
		}
	}
}

// TestWalksSkipSpecialFiles: grep, list_files and Workspace.Files over a
// tree with a FIFO, a socket and a device answer at once; grep reads only
// the plain file, and Files lists only it.
func TestWalksSkipSpecialFiles(t *testing.T) {
	ws, fifo, _ := specialWorkspace(t)
	if r := runWithin(t, Grep{}, ws, `{"pattern": "."}`, fifo); r.Content != "plain.txt:1: plain" {
		t.Errorf("grep = %q, want only plain.txt", r.Content)
	}
	if r := runWithin(t, ListFiles{}, ws, `{"pattern": "**"}`, fifo); r.IsError || !strings.Contains(r.Content, "fifo") {
		t.Errorf("list_files = %+v, want the FIFO listed", r)
	}
	files, complete, err := ws.Files(context.Background(), 100)
	if err != nil || !complete || strings.Join(files, " ") != "plain.txt" {
		t.Errorf("Files = %v, %v, %v; want [plain.txt]", files, complete, err)
	}
}

// hostileLinks is a workspace ws/ with a file, and a file outside it,
// outside/secret.txt, in the same temporary directory.
func hostileLinks(t *testing.T) (ws *Workspace, secret string) {
	t.Helper()
	base := t.TempDir()
	secret = filepath.Join(base, "outside", "secret.txt")
	writeFiles(t, base, map[string]string{"ws/file.txt": "mine\n", "outside/secret.txt": "secret\n"})
	ws, err := NewWorkspace(filepath.Join(base, "ws"), Config{})
	if err != nil {
		t.Fatal(err)
	}
	return ws, secret
}

// assertSecret fails the test when the file outside changed.
func assertSecret(t *testing.T, secret string) {
	t.Helper()
	if got, err := os.ReadFile(secret); err != nil || string(got) != "secret\n" {
		t.Errorf("the file outside the workspace = %q, %v; want it unchanged", got, err)
	}
}

// TestHardLinkOutside: a hard link in the workspace to a file outside is
// replaced by write_file and edit_file, never written through.
func TestHardLinkOutside(t *testing.T) {
	tests := []struct {
		name string
		tool Tool
		args string
		want string // the link's content afterwards
	}{
		{"write_file", WriteFile{}, `{"path": "hard", "content": "owned\n"}`, "owned\n"},
		{"edit_file", EditFile{}, `{"path": "hard", "old_string": "secret", "new_string": "owned"}`, "owned\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, secret := hostileLinks(t)
			if err := os.Link(secret, filepath.Join(ws.Root(), "hard")); err != nil {
				t.Fatal(err)
			}
			if r := call(t, tt.tool, ws, tt.args); r.IsError {
				t.Fatalf("%s(%s) = %+v", tt.name, tt.args, r)
			}
			assertSecret(t, secret)
			if got := readBack(t, ws, "hard"); got != tt.want {
				t.Errorf("hard after %s = %q, want %q", tt.name, got, tt.want)
			}
		})
	}
}

// swapper swaps the workspace file name back and forth between a regular
// file and a symlink to target, as fast as it can, until stop is called.
func swapper(t *testing.T, ws *Workspace, name, target string) (stop func()) {
	t.Helper()
	p := filepath.Join(ws.Root(), name)
	link, file := p+".link", p+".file"
	var quit atomic.Bool
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		for !quit.Load() {
			os.Remove(link)
			os.Symlink(target, link)
			os.Rename(link, p)
			os.WriteFile(file, []byte("mine\n"), 0o644)
			os.Rename(file, p)
		}
	}()
	return func() { quit.Store(true); wg.Wait() }
}

// TestSwapRace runs each file tool many times on a path that a goroutine
// keeps swapping between a file and a symlink to a file outside: a check
// of the path followed by a use by name would sooner or later read or
// write the file outside. It must never change, nor be shown.
func TestSwapRace(t *testing.T) {
	tests := []struct {
		name string
		tool Tool
		args string
	}{
		{"write_file", WriteFile{}, `{"path": "file.txt", "content": "owned\n"}`},
		{"edit_file", EditFile{}, `{"path": "file.txt", "old_string": "e", "new_string": "E"}`},
		{"read_file", ReadFile{}, `{"path": "file.txt"}`},
		{"grep", Grep{}, `{"pattern": "sec.et", "path": "file.txt"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws, secret := hostileLinks(t)
			stop := swapper(t, ws, "file.txt", secret)
			for range 500 {
				r := call(t, tt.tool, ws, tt.args)
				if strings.Contains(r.Content, "secret") {
					stop()
					t.Fatalf("%s(%s) showed the file outside: %q", tt.name, tt.args, r.Content)
				}
			}
			stop()
			assertSecret(t, secret)
		})
	}
}

// TestListFilesUnreadable: a directory list_files cannot read is named,
// not listed as if empty; an unreadable start directory or root is an
// error. Root reads every directory, so as root the test runs itself
// again as the user nobody.
func TestListFilesUnreadable(t *testing.T) {
	if !unprivileged(t) {
		return
	}
	ws := newWorkspace(t, map[string]string{"a.go": "", "src/b.go": "", "src/deep/c.go": ""}, Config{})
	src := filepath.Join(ws.Root(), "src")
	if err := os.Chmod(src, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(src, 0o755) })
	tests := []struct {
		name, pattern string
		want          Result
	}{
		{name: "below", pattern: "**", want: Result{Content: "a.go\nsrc/\nlist_files: src: permission denied"}},
		{name: "start", pattern: "src/*.go", want: Result{Content: "list_files: src: permission denied", IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := call(t, ListFiles{}, ws, `{"pattern": "`+tt.pattern+`"}`)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("list_files(%q) mismatch (-want +got):\n%s", tt.pattern, diff)
			}
		})
	}
	if r := call(t, Grep{}, ws, `{"pattern": "x"}`); !strings.Contains(r.Content, "grep: src: permission denied") {
		t.Errorf("grep over an unreadable directory = %q, want it named", r.Content)
	}
	if _, complete, err := ws.Files(context.Background(), 100); complete || err != nil {
		t.Errorf("Files with an unreadable directory: complete %v, err %v; want incomplete", complete, err)
	}
	if err := os.Chmod(ws.Root(), 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(ws.Root(), 0o755) })
	if r := call(t, ListFiles{}, ws, `{"pattern": "*"}`); !r.IsError || r.Content != "list_files: the workspace root cannot be read: permission denied" {
		t.Errorf("list_files of an unreadable root = %+v", r)
	}
}

// TestPackageCheckHostile: the check reads only regular files beside the
// one written; a FIFO, a link out of the workspace and a file over the
// size limit are passed over, and nothing blocks.
func TestPackageCheckHostile(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"calc.go": rankGo}, Config{})
	outside := filepath.Join(t.TempDir(), "out.go")
	if err := os.WriteFile(outside, []byte("package secret\n\nfunc Extra() {}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(ws.Root(), "fifo.go"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(ws.Root(), "link.go")); err != nil {
		t.Fatal(err)
	}
	big := "package big\n\nfunc Extra() {}\n" + strings.Repeat("// padding\n", pkgMaxBytes/10)
	if err := os.WriteFile(filepath.Join(ws.Root(), "big.go"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	r := call(t, WriteFile{}, ws, `{"path": "extra.go", "content": "package calc\n\nfunc Extra() {}\n"}`)
	if r.IsError {
		t.Errorf("write beside a FIFO, a link out and a large file: %q, want it made", r.Content)
	}
	r = call(t, WriteFile{}, ws, `{"path": "more.go", "content": "package secret\n"}`)
	if !strings.Contains(r.Content, "are package calc") {
		t.Errorf("write of another package: %q, want the refusal naming calc", r.Content)
	}
	// The names check cannot see the files it did not read, which may
	// declare the name, so it refuses nothing here.
	r = call(t, WriteFile{}, ws, `{"path": "use.go", "content": "package calc\n\nvar v = Hidden()\n"}`)
	if r.IsError {
		t.Errorf("write using a name only unread files may declare: %q, want it made", r.Content)
	}
}

// TestNamesCheckBound: in a directory of more Go source than the names
// check type-checks (namesMaxTotal), a write using an undeclared name
// goes ahead unchecked: a large package must not cost every write
// seconds of type-checking.
func TestNamesCheckBound(t *testing.T) {
	files := map[string]string{}
	for i := range 3 {
		var s strings.Builder
		s.WriteString("package big\n")
		for j := 0; s.Len() < namesMaxTotal/3+1; j++ {
			fmt.Fprintf(&s, "\nfunc F%d_%d(n int) int { return n + %d }\n", i, j, j)
		}
		files[fmt.Sprintf("f%d.go", i)] = s.String()
	}
	ws := newWorkspace(t, files, Config{})
	r := call(t, EditFile{}, ws, `{"path": "f0.go", "old_string": "func F0_1(n int) int { return n + 1 }", "new_string": "func F0_1(n int) int { return n + undeclared }"}`)
	if r.IsError {
		t.Errorf("edit in a package past the names check's bound: %q, want it made", r.Content)
	}
}
