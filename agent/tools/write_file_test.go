package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWriteFile(t *testing.T) {
	tests := []struct {
		name  string
		files map[string]string
		args  string
		want  Result
		file  string // the path written and its expected content
		body  string
	}{
		{name: "create", args: `{"path": "a.txt", "content": "one\ntwo\n"}`,
			want: Result{Content: "Created a.txt: 2 lines, 8 bytes.", Changed: []string{"a.txt"}}, file: "a.txt", body: "one\ntwo\n"},
		{name: "create with parents", args: `{"path": "deep/er/b.go", "content": "package er"}`,
			want: Result{Content: "Created deep/er/b.go: 1 lines, 10 bytes.", Changed: []string{"deep/er/b.go"}}, file: "deep/er/b.go", body: "package er"},
		{name: "overwrite", files: map[string]string{"a.txt": "old content that is longer"}, args: `{"path": "a.txt", "content": "new"}`,
			want: Result{Content: "Wrote a.txt: 1 lines, 3 bytes.", Changed: []string{"a.txt"}}, file: "a.txt", body: "new"},
		{name: "empty content", args: `{"path": "__init__.py", "content": ""}`,
			want: Result{Content: "Created __init__.py: 0 lines, 0 bytes.", Changed: []string{"__init__.py"}}, file: "__init__.py", body: ""},
		{name: "directory", files: map[string]string{"d/x": "x"}, args: `{"path": "d", "content": "x"}`,
			want: Result{Content: "write_file: d is a directory", IsError: true}},
		{name: "root", args: `{"path": ".", "content": "x"}`,
			want: Result{Content: "write_file: the path names the workspace root; give a file path like src/main.go", IsError: true}},
		{name: "parent is a file", files: map[string]string{"f": "x"}, args: `{"path": "f/g.txt", "content": "x"}`,
			want: Result{Content: "write_file: f/g.txt: not a directory", IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, tt.files, Config{})
			got := call(t, WriteFile{}, ws, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("write_file(%s) mismatch (-want +got):\n%s", tt.args, diff)
			}
			if tt.file != "" {
				if body := readBack(t, ws, tt.file); body != tt.body {
					t.Errorf("%s = %q, want %q", tt.file, body, tt.body)
				}
			}
		})
	}
}

func TestWriteFileKeepsMode(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"run.sh": "#!/bin/sh\n"}, Config{})
	p := filepath.Join(ws.Root(), "run.sh")
	if err := os.Chmod(p, 0o755); err != nil {
		t.Fatal(err)
	}
	call(t, WriteFile{}, ws, `{"path": "run.sh", "content": "#!/bin/sh\necho hi\n"}`)
	if info, _ := os.Stat(p); info.Mode().Perm() != 0o755 {
		t.Errorf("mode after write_file = %v, want 0755", info.Mode().Perm())
	}
}

// TestWriteThroughLinkInside: a symlink to a file inside the workspace,
// relative or absolute, is followed, as an editor does: the target gets
// the content and the link stays a link. edit_file does the same.
func TestWriteThroughLinkInside(t *testing.T) {
	tests := []struct {
		name string
		tool Tool
		args string
	}{
		{"write_file", WriteFile{}, `{"path": "%s", "content": "new\n"}`},
		{"edit_file", EditFile{}, `{"path": "%s", "old_string": "old", "new_string": "new"}`},
	}
	for _, tt := range tests {
		for _, absolute := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/absolute=%v", tt.name, absolute), func(t *testing.T) {
				ws := newWorkspace(t, map[string]string{"real/target.txt": "old\n"}, Config{})
				target := "real/target.txt"
				if absolute {
					target = filepath.Join(ws.Root(), target)
				}
				link := filepath.Join(ws.Root(), "alias.txt")
				if err := os.Symlink(target, link); err != nil {
					t.Fatal(err)
				}
				r := call(t, tt.tool, ws, fmt.Sprintf(tt.args, "alias.txt"))
				if r.IsError || !cmp.Equal(r.Changed, []string{"real/target.txt"}) {
					t.Errorf("%s through a link = %+v, want real/target.txt changed", tt.name, r)
				}
				if got := readBack(t, ws, "real/target.txt"); got != "new\n" {
					t.Errorf("the link's target = %q, want %q", got, "new\n")
				}
				if info, err := os.Lstat(link); err != nil || info.Mode()&os.ModeSymlink == 0 {
					t.Errorf("alias.txt is no longer a symlink: %v, %v", info, err)
				}
			})
		}
	}
}
