package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

func TestDefaultSet(t *testing.T) {
	s := Default()
	want := []string{"read_file", "edit_file", "write_file", "shell", "grep", "list_files"}
	if diff := cmp.Diff(want, s.Names()); diff != "" {
		t.Errorf("Default().Names() mismatch (-want +got):\n%s", diff)
	}
	readOnly := map[string]bool{}
	for _, n := range append(want, "nope") {
		readOnly[n] = s.ReadOnly(n)
	}
	wantRO := map[string]bool{"read_file": true, "grep": true, "list_files": true,
		"edit_file": false, "write_file": false, "shell": false, "nope": false}
	if diff := cmp.Diff(wantRO, readOnly); diff != "" {
		t.Errorf("ReadOnly mismatch (-want +got):\n%s", diff)
	}
	if _, err := NewSet(ReadFile{}, ReadFile{}); !errors.Is(err, ErrDuplicate) {
		t.Errorf("NewSet with a duplicate: %v, want ErrDuplicate", err)
	}
}

type definition struct {
	Type     string `json:"type"`
	Function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	} `json:"function"`
}

func definitions(t *testing.T, raw json.RawMessage) []definition {
	t.Helper()
	var defs []definition
	if err := json.Unmarshal(raw, &defs); err != nil {
		t.Fatalf("Definitions is not a JSON array of tools: %v\n%s", err, raw)
	}
	return defs
}

func TestDefinitionsSubset(t *testing.T) {
	s := Default()
	names := func(raw json.RawMessage) []string {
		var out []string
		for _, d := range definitions(t, raw) {
			out = append(out, d.Function.Name)
		}
		return out
	}
	tests := []struct {
		name  string
		names []string
		want  []string
	}{
		{"all", nil, s.Names()},
		{"set order, not argument order", []string{"shell", "read_file"}, []string{"read_file", "shell"}},
		{"unknown names are left out", []string{"grep", "web_search"}, []string{"grep"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, names(s.Definitions(tt.names...))); diff != "" {
				t.Errorf("Definitions(%q) mismatch (-want +got):\n%s", tt.names, diff)
			}
		})
	}
	if got := string(s.Definitions("nope")); got != "[]" {
		t.Errorf(`Definitions("nope") = %s, want []`, got)
	}
	sub, err := s.Subset("grep", "read_file")
	if err != nil || !slicesEqual(sub.Names(), []string{"read_file", "grep"}) {
		t.Errorf("Subset(grep, read_file) = %v, %v", sub.Names(), err)
	}
	if _, err := s.Subset("web_search"); err == nil {
		t.Error("Subset(web_search) succeeded, want an error")
	}
}

func slicesEqual(a, b []string) bool { return cmp.Equal(a, b) }

// property is one schema property, in the order the schema lists it.
type property struct {
	Name   string
	Schema map[string]any
}

// orderedProperties reads a schema's properties in their written order.
func orderedProperties(t *testing.T, schema json.RawMessage) []property {
	t.Helper()
	var top map[string]json.RawMessage
	if err := json.Unmarshal(schema, &top); err != nil {
		t.Fatal(err)
	}
	dec := json.NewDecoder(bytes.NewReader(top["properties"]))
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		t.Fatalf("properties is not an object: %s", top["properties"])
	}
	var props []property
	for dec.More() {
		name, _ := dec.Token()
		var p map[string]any
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		props = append(props, property{name.(string), p})
	}
	return props
}

// TestDefinitionsLint applies the linter rules of seed 000 Example 7 and
// the schema rules of seed 003 to the default tools.
func TestDefinitionsLint(t *testing.T) {
	defs := definitions(t, Default().Definitions())
	verbs := map[string]string{}
	for _, d := range defs {
		f := d.Function
		if d.Type != "function" {
			t.Errorf("%s: type %q", f.Name, d.Type)
		}
		if len(f.Description) < 25 || !strings.HasSuffix(f.Description, ".") || !strings.Contains(strings.ToLower(f.Description), "return") {
			t.Errorf("%s: description %q must be a sentence of 25 or more characters that says what the tool returns", f.Name, f.Description)
		}
		verb, _, _ := strings.Cut(f.Name, "_")
		if other, dup := verbs[verb]; dup {
			t.Errorf("%s: same verb as %s", f.Name, other)
		}
		verbs[verb] = f.Name
		var schema struct {
			Type     string   `json:"type"`
			Required []string `json:"required"`
		}
		json.Unmarshal(f.Parameters, &schema)
		props := orderedProperties(t, f.Parameters)
		if schema.Type != "object" || len(props) == 0 || len(schema.Required) == 0 {
			t.Errorf("%s: parameters must be an object with at least one required property", f.Name)
		}
		optional := 0
		for i, p := range props {
			required := i < len(schema.Required) && schema.Required[i] == p.Name
			if !required {
				optional++
				for _, r := range schema.Required {
					if r == p.Name {
						t.Errorf("%s.%s: required properties must come first, in the order of required", f.Name, p.Name)
					}
				}
			}
			if d, _ := p.Schema["description"].(string); d == "" {
				t.Errorf("%s.%s: no description", f.Name, p.Name)
			}
			switch typ := p.Schema["type"]; typ {
			case "string":
				// An empty value the tool takes on purpose says so with
				// minLength 0 (edit_file's new_string deletes).
				if _, ok := p.Schema["minLength"].(float64); required && !ok {
					t.Errorf("%s.%s: a required string needs minLength 1, or 0 when empty is meant", f.Name, p.Name)
				}
			case "integer":
				// TestIntegerArgsBounded checks that the tool refuses
				// what the bounds exclude.
				lo, okLo := p.Schema["minimum"].(float64)
				hi, okHi := p.Schema["maximum"].(float64)
				if !okLo || !okHi || lo > hi {
					t.Errorf("%s.%s: an integer needs a minimum and a maximum", f.Name, p.Name)
				}
			default:
				t.Errorf("%s.%s: type %v; tools take flat strings and integers", f.Name, p.Name, typ)
			}
		}
		if optional > 2 {
			t.Errorf("%s: %d optional parameters", f.Name, optional)
		}
	}
	t.Logf("%d tools, %d characters of definitions", len(defs), len(Default().Definitions()))
}

// TestSchemasMatchParams checks each schema against its tool's params
// struct (the same names, in order) and compiles it with a JSON Schema
// validator.
func TestSchemasMatchParams(t *testing.T) {
	params := map[string]any{
		ReadFileName: ReadFileParams{}, EditFileName: EditFileParams{}, WriteFileName: WriteFileParams{},
		ShellName: ShellParams{}, GrepName: GrepParams{}, ListFilesName: ListFilesParams{},
	}
	for _, tool := range Default().tools {
		var names []string
		for _, p := range orderedProperties(t, tool.Schema()) {
			names = append(names, p.Name)
		}
		var fields []string
		for f := range reflect.TypeOf(params[tool.Name()]).Fields() {
			fields = append(fields, f.Tag.Get("json"))
		}
		if diff := cmp.Diff(fields, names); diff != "" {
			t.Errorf("%s: schema properties differ from the params struct (-struct +schema):\n%s", tool.Name(), diff)
		}
		compileSchema(t, tool)
	}
}

func compileSchema(t *testing.T, tool Tool) *jsonschema.Schema {
	t.Helper()
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(tool.Schema()))
	if err != nil {
		t.Fatalf("%s: %v", tool.Name(), err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("tool.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("tool.json")
	if err != nil {
		t.Fatalf("%s: schema does not compile: %v", tool.Name(), err)
	}
	return s
}

func TestSchemasValidate(t *testing.T) {
	tests := []struct {
		tool  Tool
		args  string
		valid bool
	}{
		{ReadFile{}, `{"path": "a.go"}`, true},
		{ReadFile{}, `{"path": "a.go", "offset": 3, "limit": 10}`, true},
		{ReadFile{}, `{"path": ""}`, false},
		{ReadFile{}, `{"path": "a.go", "offset": 1.5}`, false},
		{ReadFile{}, `{"file": "a.go"}`, false},
		{EditFile{}, `{"path": "a", "old_string": "x", "new_string": "y"}`, true},
		{EditFile{}, `{"path": "a", "old_string": "x", "new_string": ""}`, true},
		{EditFile{}, `{"path": "a", "old_string": "", "new_string": "y"}`, false},
		{EditFile{}, `{"path": "a", "old_string": "x"}`, false},
		{WriteFile{}, `{"path": "a", "content": "x"}`, true},
		{Shell{}, `{"command": "go test ./..."}`, true},
		{Shell{}, `{"command": "go test", "timeout": "10"}`, false},
		{Shell{}, `{"command": "go test", "timeout": 600}`, true},
		{Shell{}, `{"command": "go test", "timeout": 2183000000000000}`, false},
		{Shell{}, `{"command": "go test", "timeout": 0}`, false},
		{ReadFile{}, `{"path": "a.go", "offset": -1}`, false},
		{ReadFile{}, `{"path": "a.go", "limit": 10001}`, false},
		{Grep{}, `{"pattern": "x"}`, true},
		{ListFiles{}, `{"pattern": "**/*.go"}`, true},
		{ListFiles{}, `{}`, false},
	}
	for _, tt := range tests {
		s := compileSchema(t, tt.tool)
		inst, err := jsonschema.UnmarshalJSON(strings.NewReader(tt.args))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(inst); (err == nil) != tt.valid {
			t.Errorf("%s schema on %s: %v, want valid %v", tt.tool.Name(), tt.args, err, tt.valid)
		}
	}
}

// TestIntegerArgsBounded: every integer argument of every tool has a
// "minimum" and a "maximum" in its schema, which the call grammar and the
// validator enforce, and the tool itself refuses a value past them before
// it does anything, naming the argument and the range. Unchecked, a shell
// timeout of 2183000000000000 seconds overflowed time.Duration and killed
// the command at once.
func TestIntegerArgsBounded(t *testing.T) {
	// Arguments that would otherwise succeed; the shell command leaves a
	// mark if it runs.
	base := map[string]string{
		ReadFileName: `"path": "a.txt"`, EditFileName: `"path": "a.txt", "old_string": "a", "new_string": "b"`,
		WriteFileName: `"path": "b.txt", "content": "b"`, ShellName: `"command": "touch ran"`,
		GrepName: `"pattern": "a"`, ListFilesName: `"pattern": "*"`,
	}
	ws := newWorkspace(t, map[string]string{"a.txt": "a\n"}, Config{Policy: Policy{Yes: true}})
	integers := 0
	for _, tool := range Default().tools {
		s := compileSchema(t, tool)
		for _, p := range orderedProperties(t, tool.Schema()) {
			if p.Schema["type"] != "integer" {
				continue
			}
			integers++
			lo, okLo := p.Schema["minimum"].(float64)
			hi, okHi := p.Schema["maximum"].(float64)
			if !okLo || !okHi {
				t.Errorf("%s.%s: no minimum and maximum in the schema", tool.Name(), p.Name)
				continue
			}
			for _, v := range []string{fmt.Sprint(int64(lo) - 1), fmt.Sprint(int64(hi) + 1), "-1", "2183000000000000",
				"9223372036854775807", "-9223372036854775808", "99999999999999999999"} {
				if v == "0" { // an argument left out: the default
					continue
				}
				args := fmt.Sprintf(`{%s, %q: %s}`, base[tool.Name()], p.Name, v)
				inst, err := jsonschema.UnmarshalJSON(strings.NewReader(args))
				if err != nil {
					t.Fatal(err)
				}
				if s.Validate(inst) == nil {
					t.Errorf("%s schema accepts %s", tool.Name(), args)
				}
				r := call(t, tool, ws, args)
				want := fmt.Sprintf("argument %q must be an integer from %d to %d, not %s", p.Name, int64(lo), int64(hi), v)
				if !r.IsError || !strings.Contains(r.Content, want) || r.Ran || len(r.Changed) > 0 || len(r.Read) > 0 {
					t.Errorf("%s(%s) = %+v, want an error that says %s", tool.Name(), args, r, want)
				}
			}
		}
	}
	if integers == 0 {
		t.Error("no integer arguments found; the test reads the schemas wrong")
	}
	if _, err := os.Stat(filepath.Join(ws.Root(), "ran")); err == nil {
		t.Error("a shell call with a timeout out of range ran its command")
	}
	if got := readBack(t, ws, "a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q after calls out of range, want it unchanged", got)
	}
}

func TestSetRun(t *testing.T) {
	ws := newWorkspace(t, map[string]string{"a.txt": "x\n"}, Config{})
	s, _ := Default().Subset("read_file", "grep")
	r, err := s.Run(context.Background(), ws, "read_file", json.RawMessage(`{"path": "a.txt"}`))
	if err != nil || r.Content != "1| x" {
		t.Errorf("Run(read_file) = %+v, %v", r, err)
	}
	r, err = s.Run(context.Background(), ws, "shell", json.RawMessage(`{"command": "ls"}`))
	want := Result{IsError: true, Content: `unknown tool "shell"; the tools are read_file, grep`}
	if err != nil || !cmp.Equal(r, want) {
		t.Errorf("Run(shell) on a set without it = %+v, %v, want %+v", r, err, want)
	}
}
