package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const rankGo = `package calc

func Rank(marks int) string {
	if marks > 47 {
		return "B"
	}
	return "C"
}
`

func TestCheckSyntax(t *testing.T) {
	tests := []struct {
		name, text string
		want       *syntaxError
	}{
		{"calc.go", rankGo, nil},
		{"calc.go", strings.Replace(rankGo, "marks > 47", "marks >= 47= 16", 1),
			&syntaxError{Line: 4, Column: 5, Msg: "expected boolean expression, found assignment (missing parentheses around composite literal?)"}},
		{"calc.go", strings.TrimSuffix(rankGo, "}\n"), &syntaxError{Line: 7, Column: 13, Msg: "expected '}', found 'EOF'"}},
		{"CALC.GO", "package", &syntaxError{Line: 1, Column: 8, Msg: "expected 'IDENT', found 'EOF'"}},
		{"a.json", `{"debug": true}`, nil},
		{"a.json", "{\n  \"debug\": true,\n}", &syntaxError{Line: 3, Column: 1, Msg: "invalid character '}' looking for beginning of object key string"}},
		{"a.json", `{"debug": `, &syntaxError{Line: 1, Column: 10, Msg: "unexpected end of JSON input"}},
		{"a.json", "", &syntaxError{Line: 1, Column: 1, Msg: "unexpected end of JSON input"}},
		{"calc.py", "def f(:\n", nil}, // not a language the check reads
		{"notes.txt", "{", nil},
	}
	for _, tt := range tests {
		got := checkSyntax(tt.name, tt.text)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("checkSyntax(%q, %q) (-want +got):\n%s", tt.name, tt.text, diff)
		}
	}
}

func TestEditKeepsSyntax(t *testing.T) {
	broken := strings.Replace(rankGo, "return \"C\"\n}", "return \"C\"\n", 1)
	tests := []struct {
		name     string
		cfg      Config
		files    map[string]string
		args     string
		wantErr  string // the start of the refusal; "" for an edit that is made
		wantFile string
	}{
		{
			name:  "refused",
			files: map[string]string{"calc.go": rankGo},
			args:  `{"path": "calc.go", "old_string": "marks >", "new_string": "marks >= 47= 16"}`,
			wantErr: "edit_file: not written: calc.go would not parse (calc.go:4:21: expected ';', found 47). It would read:\n" +
				"4| \tif marks >= 47= 16 47 {\ncalc.go is unchanged; send the change again with valid code.",
			wantFile: rankGo,
		},
		{
			name:     "valid",
			files:    map[string]string{"calc.go": rankGo},
			args:     `{"path": "calc.go", "old_string": "marks > 47", "new_string": "marks >= 47"}`,
			wantFile: strings.Replace(rankGo, "marks > 47", "marks >= 47", 1),
		},
		{
			name:     "already broken",
			files:    map[string]string{"calc.go": broken},
			args:     `{"path": "calc.go", "old_string": "marks > 47", "new_string": "marks >= 47"}`,
			wantFile: strings.Replace(broken, "marks > 47", "marks >= 47", 1),
		},
		{
			name:     "check off",
			cfg:      Config{NoSyntaxCheck: true},
			files:    map[string]string{"calc.go": rankGo},
			args:     `{"path": "calc.go", "old_string": "marks >", "new_string": "marks >= 47= 16"}`,
			wantFile: strings.Replace(rankGo, "marks >", "marks >= 47= 16", 1),
		},
		{
			name:  "JSON",
			files: map[string]string{"settings.json": "{\n  \"debug\": false\n}\n"},
			args:  `{"path": "settings.json", "old_string": "false", "new_string": "false,"}`,
			wantErr: "edit_file: not written: settings.json would not parse (settings.json:3:1: invalid character '}' looking for beginning of object key string). It would read:\n" +
				"2|   \"debug\": false,\nand:\n3| }\nsettings.json is unchanged; send the change again with valid code.",
			wantFile: "{\n  \"debug\": false\n}\n",
		},
		{
			name:     "other languages",
			files:    map[string]string{"calc.py": "def rank(m):\n    return 1\n"},
			args:     `{"path": "calc.py", "old_string": "(m):", "new_string": "(m:"}`,
			wantFile: "def rank(m:\n    return 1\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := newWorkspace(t, tt.files, tt.cfg)
			r := call(t, EditFile{}, ws, tt.args)
			if tt.wantErr != "" {
				if !r.IsError || !strings.HasPrefix(r.Content, tt.wantErr) || len(r.Changed) > 0 {
					t.Errorf("result %+v, want an error starting %q", r, tt.wantErr)
				}
			} else if r.IsError {
				t.Errorf("result %+v, want the edit made", r)
			}
			for name := range tt.files {
				if got := readBack(t, ws, name); got != tt.wantFile {
					t.Errorf("%s afterwards:\n%s\nwant:\n%s", name, got, tt.wantFile)
				}
			}
		})
	}
}

func TestWriteKeepsSyntax(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"calc.go": rankGo, "bad.go": "package calc\nfunc (\n"}, Config{})
	tests := []struct {
		path, content string
		refused       bool
	}{
		{"new.go", "package calc\nfunc F() {", true},           // a new file must parse
		{"calc.go", "package calc\nfunc Rank( {}\n", true},     // so must one that parses now
		{"bad.go", "package calc\nfunc (\n\n", false},          // one that did not may stay broken
		{"calc.go", "package calc\n\nfunc Rank() {}\n", false}, // valid code is written
		{"dir/new.json", "[1, 2", true},
		{"new.txt", "[1, 2", false},
	}
	for _, tt := range tests {
		before, beforeErr := os.ReadFile(filepath.Join(ws.Root(), tt.path))
		args, err := json.Marshal(WriteFileParams{Path: tt.path, Content: tt.content})
		if err != nil {
			t.Fatal(err)
		}
		r := call(t, WriteFile{}, ws, string(args))
		if tt.path == "new.go" && r.Content != "write_file: not written: new.go would not parse (new.go:2:11: expected '}', found 'EOF'). It would read:\n"+
			"1| package calc\n2| func F() {\nnew.go was not created; send it again with valid code." {
			t.Errorf("write_file new.go: %q, want the parser's error, the lines up to it and that nothing was created", r.Content)
		}
		if tt.refused && beforeErr != nil && !strings.HasSuffix(r.Content, tt.path+" was not created; send it again with valid code.") {
			t.Errorf("write_file %s refused: %q, want it to say the file was not created", tt.path, r.Content)
		}
		if r.IsError != tt.refused {
			t.Errorf("write_file %s %q: %+v, want refused %v", tt.path, tt.content, r, tt.refused)
		}
		after, afterErr := os.ReadFile(filepath.Join(ws.Root(), tt.path))
		switch {
		case !tt.refused && string(after) != tt.content:
			t.Errorf("write_file %s: file holds %q, want %q", tt.path, after, tt.content)
		case tt.refused && (string(after) != string(before) || (beforeErr == nil) != (afterErr == nil)):
			t.Errorf("write_file %s refused, yet the file changed: %q (%v) to %q (%v)", tt.path, before, beforeErr, after, afterErr)
		}
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "dir")); err == nil {
		t.Error("a refused write_file created the directory above its file")
	}
}
