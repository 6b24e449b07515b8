package chat

import (
	"encoding/json"
	"testing"

	"github.com/loopagent/loop/internal/golden"
)

// TestPromptToolsSeed describes the two tools of seed 004 Example 12, with
// their argument examples given as JSON Schema "examples", and compares
// the system prompt with the one the seed printed.
func TestPromptToolsSeed(t *testing.T) {
	tools, err := ParseTools([]byte(`[
		{"type": "function", "function": {"name": "read_file", "description": "Read a text file.",
			"parameters": {"type": "object", "properties": {"path": {"type": "string", "examples": ["src/Main.java"]}}, "required": ["path"]}}},
		{"type": "function", "function": {"name": "list_files", "description": "List files in a directory.",
			"parameters": {"type": "object", "properties": {"dir": {"type": "string", "examples": ["src"]}}, "required": ["dir"]}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	msgs := WithPromptTools(nil, tools)
	if len(msgs) != 1 || msgs[0].Role != "system" {
		t.Fatalf("WithPromptTools(nil) = %+v, want one system message", msgs)
	}
	golden.Seed(t, "seed-example12.txt", msgs[0].Content)
}

// TestArgsExample derives short argument examples from schemas.
func TestArgsExample(t *testing.T) {
	tests := []struct {
		name, schema, want string
	}{
		{"examples", `{"type": "object", "properties": {"path": {"type": "string", "examples": ["src/Main.java"]}}, "required": ["path"]}`, `{"path": "src/Main.java"}`},
		{"placeholders of the required", `{"type": "object", "properties": {"path": {"type": "string", "description": "Path"}, "limit": {"type": "integer"}, "all": {"type": "boolean"}}, "required": ["path", "all"]}`,
			`{"path": "<path>", "all": true}`},
		{"none required", `{"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "array", "items": {"type": "string"}}, "c": {"type": "string"}, "d": {"type": "string"}}}`,
			`{"a": 1.5, "b": [], "c": "<c>"}`},
		{"enum, default, const", `{"type": "object", "properties": {"mode": {"enum": ["fast", "slow"]}, "n": {"type": "integer", "default": 10}, "v": {"const": 2.0}}, "required": ["mode", "n", "v"]}`,
			`{"mode": "fast", "n": 10, "v": 2.0}`},
		{"nested object", `{"type": "object", "properties": {"range": {"type": "object", "properties": {"from": {"type": "integer"}, "to": {"type": "integer"}}, "required": ["from", "to"]}}, "required": ["range"]}`,
			`{"range": {"from": 1, "to": 1}}`},
		{"no parameters", ``, `{}`},
		{"empty", `{}`, `{}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ArgsExample(json.RawMessage(tt.schema)); got != tt.want {
				t.Errorf("ArgsExample(%s) = %s, want %s", tt.schema, got, tt.want)
			}
		})
	}
}
