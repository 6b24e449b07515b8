package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// orderGo is the fake workspace's bug of seed 000 Example 13, in Go:
// total() returns 27 instead of 30.
const orderGo = `package order

type Order struct{ Items []int }

// Total is the sum of the items.
func (o Order) Total() int {
	sum := 0
	for _, it := range o.Items {
		sum += it
	}
	return sum - 3
}
`

func TestEditFile(t *testing.T) {
	tests := []struct {
		name     string
		files    map[string]string
		args     string
		want     Result
		wantFile string // the file's content afterwards, when it changes
	}{
		{
			name:     "one match",
			files:    map[string]string{"order.go": orderGo},
			args:     `{"path": "order.go", "old_string": "return sum - 3", "new_string": "return sum"}`,
			want:     Result{Content: "Edited order.go. Lines 11-11 now read:\n11| \treturn sum", Changed: []string{"order.go"}},
			wantFile: strings.Replace(orderGo, "return sum - 3", "return sum", 1),
		},
		{
			name:     "multi-line replacement",
			files:    map[string]string{"a.txt": "one\ntwo\nthree\n"},
			args:     `{"path": "a.txt", "old_string": "two\n", "new_string": "2a\n2b\n"}`,
			want:     Result{Content: "Edited a.txt. Lines 2-3 now read:\n2| 2a\n3| 2b", Changed: []string{"a.txt"}},
			wantFile: "one\n2a\n2b\nthree\n",
		},
		{
			name:     "delete",
			files:    map[string]string{"a.txt": "one\ntwo\nthree\n"},
			args:     `{"path": "a.txt", "old_string": "two\n", "new_string": ""}`,
			want:     Result{Content: "Edited a.txt: removed text at line 2. Lines 1-2 now read:\n1| one\n2| three", Changed: []string{"a.txt"}},
			wantFile: "one\nthree\n",
		},
		{
			name:     "line numbers copied from read_file",
			files:    map[string]string{"order.go": orderGo},
			args:     `{"path": "order.go", "old_string": "10| \t}\n11| \treturn sum - 3", "new_string": "10| \t}\n11| \treturn sum"}`,
			want:     Result{Content: "Edited order.go. Lines 10-11 now read:\n10| \t}\n11| \treturn sum", Changed: []string{"order.go"}},
			wantFile: strings.Replace(orderGo, "return sum - 3", "return sum", 1),
		},
		{
			name:     "crlf file",
			files:    map[string]string{"w.txt": "a\r\nb\r\nc\r\n"},
			args:     `{"path": "w.txt", "old_string": "a\nb", "new_string": "a\nB"}`,
			want:     Result{Content: "Edited w.txt. Lines 1-2 now read:\n1| a\n2| B", Changed: []string{"w.txt"}},
			wantFile: "a\r\nB\r\nc\r\n",
		},
		{
			name:  "not found: nearest lines quoted",
			files: map[string]string{"order.go": orderGo},
			args:  `{"path": "order.go", "old_string": "for _, item := range o.Items {\n\t\tsum += item", "new_string": "x"}`,
			want: Result{IsError: true, Content: "edit_file: old_string was not found in order.go. The most similar lines (91% alike) are:\n" +
				"8| \tfor _, it := range o.Items {\n9| \t\tsum += it\nCopy the text exactly, without the line numbers, and try again."},
		},
		{
			name:  "not found: white space only",
			files: map[string]string{"order.go": orderGo},
			args:  `{"path": "order.go", "old_string": "    sum := 0\n    for _, it := range o.Items {", "new_string": "x"}`,
			want: Result{IsError: true, Content: "edit_file: old_string was not found in order.go. These lines differ from it only in white space (indentation, tabs or spaces):\n" +
				"7| \tsum := 0\n8| \tfor _, it := range o.Items {\nCopy the text exactly, without the line numbers, and try again."},
		},
		{
			name:  "not found: nothing similar",
			files: map[string]string{"order.go": orderGo},
			args:  `{"path": "order.go", "old_string": "zzzz qqqq", "new_string": "x"}`,
			want: Result{IsError: true, Content: "edit_file: old_string was not found in order.go. No lines of the file resemble it; " +
				"read the file with read_file and copy the text to replace."},
		},
		{
			name:  "two matches",
			files: map[string]string{"a.go": "x := 1\ny := 2\nx := 1\n"},
			args:  `{"path": "a.go", "old_string": "x := 1", "new_string": "x := 3"}`,
			want: Result{IsError: true, Content: "edit_file: old_string occurs 2 times in a.go, at lines 1, 3; it must occur once. " +
				"Add neighbouring lines to old_string to pick one place:\n1| x := 1\n2| y := 2\n--\n2| y := 2\n3| x := 1"},
		},
		{
			name:  "missing file",
			files: map[string]string{},
			args:  `{"path": "new.go", "old_string": "a", "new_string": "b"}`,
			want:  Result{IsError: true, Content: "edit_file: new.go: no such file; write_file creates a file"},
		},
		{
			name:  "same strings",
			files: map[string]string{"a.txt": "a"},
			args:  `{"path": "a.txt", "old_string": "a", "new_string": "a"}`,
			want:  Result{IsError: true, Content: "edit_file: old_string and new_string are the same; there is nothing to change"},
		},
		{
			name:  "same once the line numbers are gone",
			files: map[string]string{"a.txt": "one\ntwo\n"},
			args:  `{"path": "a.txt", "old_string": "2| two", "new_string": "two"}`,
			want:  Result{IsError: true, Content: "edit_file: old_string and new_string are the same without read_file's line numbers; there is nothing to change"},
		},
		{
			name:  "empty old_string",
			files: map[string]string{"a.txt": "a"},
			args:  `{"path": "a.txt", "old_string": "", "new_string": "b"}`,
			want:  Result{IsError: true, Content: "edit_file: old_string is empty; copy the exact text to replace from read_file's output, without the line numbers"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, tt.files, Config{})
			got := call(t, EditFile{}, ws, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("edit_file(%s) mismatch (-want +got):\n%s", tt.args, diff)
			}
			for name, before := range tt.files {
				want := before
				if tt.wantFile != "" {
					want = tt.wantFile
				}
				if after := readBack(t, ws, name); after != want {
					t.Errorf("%s after the edit = %q, want %q", name, after, want)
				}
			}
		})
	}
}

// TestEditFileDeletesLine: an empty new_string is a normal edit, which
// the schema (and so the call grammar and the validator) allows: the line
// goes, and the result names the file changed. old_string still may not be
// empty.
func TestEditFileDeletesLine(t *testing.T) {
	args := `{"path": "a.txt", "old_string": "two\n", "new_string": ""}`
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
	if err != nil {
		t.Fatal(err)
	}
	if err := compileSchema(t, EditFile{}).Validate(inst); err != nil {
		t.Errorf("edit_file's schema refuses a deletion %s: %v", args, err)
	}
	ws := newWorkspace(t, map[string]string{"a.txt": "one\ntwo\nthree\n"}, Config{})
	got := call(t, EditFile{}, ws, args)
	want := Result{Content: "Edited a.txt: removed text at line 2. Lines 1-2 now read:\n1| one\n2| three", Changed: []string{"a.txt"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("edit_file(%s) mismatch (-want +got):\n%s", args, diff)
	}
	if body := readBack(t, ws, "a.txt"); body != "one\nthree\n" {
		t.Errorf("a.txt after deleting a line = %q, want %q", body, "one\nthree\n")
	}
}

// TestEditFileRetrySucceeds plays the loop the nearest-lines quote is for:
// a first edit with a wrong old_string fails, a second one made from the
// quoted lines succeeds.
func TestEditFileRetrySucceeds(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"order.go": orderGo}, Config{})
	r := call(t, EditFile{}, ws, `{"path": "order.go", "old_string": "return sum-3", "new_string": "return sum"}`)
	if !r.IsError {
		t.Fatalf("first edit = %+v, want an error", r)
	}
	// Take the quoted line, drop its number, and try again.
	var quoted string
	for _, l := range strings.Split(r.Content, "\n") {
		if _, text, ok := strings.Cut(l, "| "); ok && strings.Contains(text, "return") {
			quoted = text
		}
	}
	if quoted != "\treturn sum - 3" {
		t.Fatalf("quoted line = %q in %q", quoted, r.Content)
	}
	r = call(t, EditFile{}, ws, `{"path": "order.go", "old_string": "`+strings.ReplaceAll(quoted, "\t", `\t`)+`", "new_string": "\treturn sum"}`)
	if r.IsError || !strings.Contains(readBack(t, ws, "order.go"), "\treturn sum\n") {
		t.Errorf("second edit = %+v", r)
	}
}

func TestNearestLines(t *testing.T) {
	file := []string{"alpha", "beta gamma", "delta", "beta gamma", "epsilon"}
	tests := []struct {
		name string
		want []string
		near nearest
	}{
		{name: "exact", want: []string{"delta"}, near: nearest{start: 2, n: 1, score: 1}},
		{name: "ties go first", want: []string{"beta gamma"}, near: nearest{start: 1, n: 1, score: 1}},
		{name: "window", want: []string{"beta gamma", "epsilon"}, near: nearest{start: 3, n: 2, score: 1}},
		{name: "past the end", want: []string{"epsilon", "zeta"}, near: nearest{start: 4, n: 1, score: 0.5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := nearestLines(file, tt.want); got != tt.near {
				t.Errorf("nearestLines(%q) = %+v, want %+v", tt.want, got, tt.near)
			}
		})
	}
}

// TestEditFileLimits: a file over editMaxBytes is refused unread, with
// the way to go on; an old_string found many times names the first
// places only; a long line's similar-line search compares its start.
func TestEditFileLimits(t *testing.T) {
	many := strings.Repeat("x := 1\n", 30)
	tests := []struct {
		name  string
		files map[string]string
		args  string
		want  Result
	}{
		{
			name:  "over the limit",
			files: map[string]string{"big.txt": strings.Repeat("line\n", editMaxBytes/5+1)},
			args:  `{"path": "big.txt", "old_string": "line", "new_string": "x"}`,
			want:  Result{IsError: true, Content: "edit_file: big.txt is 4.0 MiB, over edit_file's limit of 4 MiB; change it with a shell command (sed, awk or a script)"},
		},
		{
			name:  "many places",
			files: map[string]string{"a.go": many},
			args:  `{"path": "a.go", "old_string": "x := 1", "new_string": "x := 2"}`,
			want: Result{IsError: true, Content: "edit_file: old_string occurs 30 times in a.go, at lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, and 10 more; " +
				"it must occur once. Add neighbouring lines to old_string to pick one place:\n1| x := 1\n2| x := 1\n--\n1| x := 1\n2| x := 1\n3| x := 1\n--\n2| x := 1\n3| x := 1\n4| x := 1"},
		},
		{
			name:  "long line",
			files: map[string]string{"min.js": "var a=" + strings.Repeat("b", 3<<20) + ";\n"},
			args:  `{"path": "min.js", "old_string": "var a=` + strings.Repeat("b", 200) + `c", "new_string": "x"}`,
			want: Result{IsError: true, Content: "edit_file: old_string was not found in min.js. The most similar lines (89% alike) are:\n" +
				"1| var a=" + strings.Repeat("b", 494) + fmt.Sprintf(" [%d chars cut]", 3<<20-494+1) + "\nCopy the text exactly, without the line numbers, and try again."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, tt.files, Config{})
			got := call(t, EditFile{}, ws, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("edit_file(%s) mismatch (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

// TestBigramsBounded: a line is compared by its first similarBytes only,
// so a search over lines of megabytes costs what one over short lines
// does.
func TestBigramsBounded(t *testing.T) {
	long := strings.Repeat("ab", 1<<20)
	if n := len(appendBigrams(nil, long)); n != similarBytes-1 {
		t.Errorf("bigrams of a 2 MB line: %d, want %d", n, similarBytes-1)
	}
	if n := len(appendBigrams(nil, strings.Repeat("é", 200))); n > similarBytes {
		t.Errorf("bigrams of 200 é: %d, want at most %d", n, similarBytes)
	}
}

// BenchmarkEditFileNotFound searches the worst file under editMaxBytes
// for the nearest lines: 2M lines of one character.
func BenchmarkEditFileNotFound(b *testing.B) {
	ws := newWorkspace(b, map[string]string{"a.txt": strings.Repeat("a\n", editMaxBytes/2)}, Config{})
	b.ReportAllocs()
	for b.Loop() {
		call(b, EditFile{}, ws, `{"path": "a.txt", "old_string": "no such text", "new_string": "x"}`)
	}
}
