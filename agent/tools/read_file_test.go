package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func numbered(from, to int) string {
	var l []string
	for i := from; i <= to; i++ {
		l = append(l, fmt.Sprintf("%d| line %d", i, i))
	}
	return strings.Join(l, "\n")
}

func TestReadFile(t *testing.T) {
	var hundred strings.Builder
	for i := 1; i <= 100; i++ {
		fmt.Fprintf(&hundred, "line %d\n", i)
	}
	ws := newWorkspace(t, map[string]string{
		"a.txt":       "line 1\nline 2\nline 3\n",
		"crlf.txt":    "line 1\r\nline 2\r\n",
		"nofinal.txt": "line 1\nline 2",
		"empty.txt":   "",
		"long.txt":    hundred.String(),
		"bin.dat":     "ab\x00cd",
		"dir/x.txt":   "x\n",
		"wide.txt":    strings.Repeat("w", 600) + "\n",
	}, Config{ReadLines: 10})
	tests := []struct {
		name string
		args string
		want Result
	}{
		{name: "whole file", args: `{"path": "a.txt"}`, want: Result{Content: numbered(1, 3), Read: []string{"a.txt"}}},
		{name: "crlf", args: `{"path": "crlf.txt"}`, want: Result{Content: numbered(1, 2), Read: []string{"crlf.txt"}}},
		{name: "no final newline", args: `{"path": "nofinal.txt"}`, want: Result{Content: numbered(1, 2), Read: []string{"nofinal.txt"}}},
		{name: "offset", args: `{"path": "a.txt", "offset": 2}`, want: Result{Content: numbered(2, 3), Read: []string{"a.txt"}}},
		{name: "offset zero reads from 1", args: `{"path": "a.txt", "offset": 0, "limit": 1}`,
			want: Result{Content: numbered(1, 1) + "\n[lines 1-1 of 3; read on with offset 2]", Read: []string{"a.txt"}}},
		{name: "default limit from config", args: `{"path": "long.txt"}`,
			want: Result{Content: numbered(1, 10) + "\n[lines 1-10 of 100; read on with offset 11]", Read: []string{"long.txt"}}},
		{name: "offset and limit", args: `{"path": "long.txt", "offset": 95, "limit": 3}`,
			want: Result{Content: numbered(95, 97) + "\n[lines 95-97 of 100; read on with offset 98]", Read: []string{"long.txt"}}},
		{name: "limit past the end", args: `{"path": "long.txt", "offset": 99, "limit": 50}`, want: Result{Content: numbered(99, 100), Read: []string{"long.txt"}}},
		{name: "largest offset and limit", args: `{"path": "a.txt", "offset": 100000000, "limit": 10000}`,
			want: Result{Content: "read_file: offset 100000000 is past the end of a.txt, which has 3 lines", IsError: true}},
		{name: "empty", args: `{"path": "empty.txt"}`, want: Result{Content: "(empty.txt is empty)", Read: []string{"empty.txt"}}},
		{name: "wide line", args: `{"path": "wide.txt"}`, want: Result{Content: "1| " + strings.Repeat("w", 500) + " [100 chars cut]", Read: []string{"wide.txt"}}},
		{name: "path named the long way", args: `{"path": "./dir/../dir/x.txt"}`, want: Result{Content: "1| x", Read: []string{"dir/x.txt"}}},
		{name: "offset past the end", args: `{"path": "a.txt", "offset": 9}`,
			want: Result{Content: "read_file: offset 9 is past the end of a.txt, which has 3 lines", IsError: true}},
		{name: "missing", args: `{"path": "nope.txt"}`,
			want: Result{Content: "read_file: nope.txt: no such file; list_files or grep can find the right path", IsError: true}},
		{name: "directory", args: `{"path": "dir"}`, want: Result{Content: "read_file: dir is a directory; list_files lists it", IsError: true}},
		{name: "binary", args: `{"path": "bin.dat"}`, want: Result{Content: "read_file: bin.dat is a binary file", IsError: true}},
		{name: "negative limit", args: `{"path": "a.txt", "limit": -1}`,
			want: Result{Content: `read_file: argument "limit" must be an integer from 1 to 10000, not -1; leave it out for the default`, IsError: true}},
		{name: "limit past the range", args: `{"path": "a.txt", "limit": 10001}`,
			want: Result{Content: `read_file: argument "limit" must be an integer from 1 to 10000, not 10001; leave it out for the default`, IsError: true}},
		{name: "offset past the range", args: `{"path": "a.txt", "offset": 9223372036854775807}`,
			want: Result{Content: `read_file: argument "offset" must be an integer from 1 to 100000000, not 9223372036854775807; leave it out for the default`, IsError: true}},
		{name: "offset past the range, file missing", args: `{"path": "nope.txt", "offset": -5}`,
			want: Result{Content: `read_file: argument "offset" must be an integer from 1 to 100000000, not -5; leave it out for the default`, IsError: true}},
		{name: "fractional offset", args: `{"path": "a.txt", "offset": 1.5}`,
			want: Result{Content: `read_file: argument "offset" must be an integer from 1 to 100000000, not 1.5; leave it out for the default`, IsError: true}},
		{name: "string offset", args: `{"path": "a.txt", "offset": "2"}`,
			want: Result{Content: `read_file: argument "offset" must be an integer, not a JSON string`, IsError: true}},
		{name: "unknown argument", args: `{"file_path": "a.txt"}`,
			want: Result{Content: `read_file: unknown argument "file_path"; the arguments are path, offset, limit`, IsError: true}},
		{name: "no path", args: `{}`, want: Result{Content: "read_file: path is empty; give a path relative to the workspace root, like src/main.go", IsError: true}},
		{name: "not an object", args: `["a.txt"]`,
			want: Result{Content: "read_file: the arguments must be a JSON object with path, offset, limit", IsError: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := call(t, ReadFile{}, ws, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("read_file(%s) mismatch (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

// TestReadFileNamesWhatItRead: Result.Read names the file shown relative
// to the root, however the path was written: absolute, or through a
// symlink (the link's target, as edit_file and write_file name it).
func TestReadFileNamesWhatItRead(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"real/target.txt": "x\n"}, Config{})
	if err := os.Symlink("real/target.txt", filepath.Join(ws.Root(), "alias.txt")); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"alias.txt", filepath.Join(ws.Root(), "real", "target.txt"), "real//target.txt"} {
		r := call(t, ReadFile{}, ws, fmt.Sprintf(`{"path": %q}`, path))
		if want := []string{"real/target.txt"}; r.IsError || !cmp.Equal(r.Read, want) {
			t.Errorf("read_file(%q) = %+v, want Read %q", path, r, want)
		}
	}
}

// TestReadFileBudget checks that a read stops at twice ResultChars and
// says where to go on.
func TestReadFileBudget(t *testing.T) {
	line := strings.Repeat("x", 99)
	ws := newWorkspace(t, map[string]string{"big.txt": strings.Repeat(line+"\n", 50)}, Config{ResultChars: 500})
	r := call(t, ReadFile{}, ws, `{"path": "big.txt", "limit": 50}`)
	// Each shown line is "N| " plus 99 bytes plus a newline: 10 lines pass
	// 1,000 bytes, and the line that crosses the budget is the last.
	if !strings.HasSuffix(r.Content, "[lines 1-10 of 50; read on with offset 11]") {
		t.Errorf("read_file over budget ends %q", r.Content[max(0, len(r.Content)-60):])
	}
}

// TestReadFileLongLine reads a file of one 20 MB line: the line is shown
// cut at 500 bytes with the count of the rest (lineReader holds only the
// start of it; TestLineReaderKeepsLittle checks that).
func TestReadFileLongLine(t *testing.T) {
	const size = 20 << 20
	ws := newWorkspace(t, map[string]string{"min.js": strings.Repeat("m", size) + "\nend\n"}, Config{})
	got := call(t, ReadFile{}, ws, `{"path": "min.js"}`)
	want := Result{Content: "1| " + strings.Repeat("m", 500) + fmt.Sprintf(" [%d chars cut]", size-500) + "\n2| end", Read: []string{"min.js"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("read_file of a 20 MB line mismatch (-want +got):\n%s", diff)
	}
}

// TestReadFileStops reads a file larger than read_file reads (a sparse
// file: lines of text, then zeros to 100 MB): it stops after readMaxBytes
// and says so, for a read at the start and for an offset past the bound.
func TestReadFileStops(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"big.log": strings.Repeat("a\n", 5000)}, Config{ReadLines: 2})
	if err := os.Truncate(filepath.Join(ws.Root(), "big.log"), 100<<20); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, args string
		want       Result
	}{
		{name: "start", args: `{"path": "big.log"}`, want: Result{Read: []string{"big.log"}, Content: "1| a\n2| a\n" +
			"[lines 1-2 of more than 5001; read_file reads only the first 64 MiB of big.log, so use shell commands past line 5001]"}},
		{name: "past the bound", args: `{"path": "big.log", "offset": 6000}`, want: Result{IsError: true, Content: "read_file: offset 6000 is past the first 64 MiB of big.log (5001 lines), " +
			"which is all read_file reads; use a shell command such as sed -n '6000,6039p' big.log"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, call(t, ReadFile{}, ws, tt.args)); diff != "" {
				t.Errorf("read_file(%s) mismatch (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

// BenchmarkReadFileLongLine reads a file of one 50 MB line. Its B/op is
// what the read holds, about the reader's buffer, not the line.
func BenchmarkReadFileLongLine(b *testing.B) {
	ws := newWorkspace(b, map[string]string{"min.js": strings.Repeat("m", 50<<20)}, Config{})
	b.ReportAllocs()
	for b.Loop() {
		call(b, ReadFile{}, ws, `{"path": "min.js"}`)
	}
}
