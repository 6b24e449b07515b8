package tools

import (
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
