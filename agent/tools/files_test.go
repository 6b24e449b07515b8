package tools

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestWorkspaceFiles(t *testing.T) {
	ws := newWorkspace(t, map[string]string{
		"b.go": "", "a.go": "", "sub/c.go": "", "sub/deep/d.txt": "",
		".git/HEAD": "", "node_modules/x/index.js": "", "sub/.git/config": "",
	}, Config{})
	ctx := context.Background()
	files, complete, err := ws.Files(ctx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"a.go", "b.go", "sub/c.go", "sub/deep/d.txt"}, files); diff != "" || !complete {
		t.Errorf("Files (complete %v), -want +got:\n%s", complete, diff)
	}
	files, complete, err = ws.Files(ctx, 2)
	if err != nil || complete || len(files) != 2 {
		t.Errorf("Files with limit 2 = %v, complete %v, err %v; want 2 files, incomplete", files, complete, err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, _, err := ws.Files(cctx, 100); err == nil {
		t.Error("Files after cancel: no error")
	}
}

func TestExistingFileArgs(t *testing.T) {
	s := Default()
	for name, want := range map[string][]string{"read_file": {"path"}, "edit_file": {"path"}, "write_file": nil, "shell": nil, "nope": nil} {
		if got := s.ExistingFileArgs(name); !cmp.Equal(got, want) {
			t.Errorf("ExistingFileArgs(%q) = %v, want %v", name, got, want)
		}
	}
}

func TestFileTextArg(t *testing.T) {
	s := Default()
	if text, file, ok := s.FileTextArg("edit_file"); text != "old_string" || file != "path" || !ok {
		t.Errorf("FileTextArg(edit_file) = %q, %q, %v", text, file, ok)
	}
	for _, name := range []string{"read_file", "write_file", "nope"} {
		if _, _, ok := s.FileTextArg(name); ok {
			t.Errorf("FileTextArg(%s): ok", name)
		}
	}
}
