package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/golden"
	"github.com/loopagent/loop/internal/testmodels"
)

// seedStream is seed 004 Example 10's real llama-server stream of one
// read_file call, its data lines with the Java text block's \\ escapes
// undone.
var seedStream = filepath.Join("testdata", "TestSeedExample10", "stream.txt")

// TestSeedExample10: loop accumulate joins the seed's stream (13 chunks,
// 11 argument pieces, arguments that parse only once joined) and prints
// the seed's output verbatim.
func TestSeedExample10(t *testing.T) {
	code, out, errOut := runLoop(t, "accumulate", seedStream)
	if code != 0 {
		t.Fatalf("loop accumulate = %d: %s", code, errOut)
	}
	golden.Seed(t, "output.txt", out)
}

// TestAccumulateBad: a stream cut before [DONE], a chunk that is not
// JSON, and joined arguments that break the tools' schema each fail,
// naming the file.
func TestAccumulateBad(t *testing.T) {
	seed, err := os.ReadFile(seedStream)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(seed), "\n")
	dir := t.TempDir()
	tools := filepath.Join(dir, "tools.json")
	os.WriteFile(tools, []byte(`[{"type": "function", "function": {"name": "read_file", "parameters": {"type": "object", "properties": {"file": {"type": "string"}}, "required": ["file"]}}}]`), 0o644)
	tests := []struct {
		name, stream string
		args         []string
		want         string
	}{
		{"cut", strings.Join(lines[:9], ""), nil, "the stream ended without data: [DONE]"},
		{"not json", lines[0] + "data: {\"choices\": [\n", nil, ":2: accumulate chunk: chunk 2:"},
		{"schema", string(seed), []string{"--tools", tools}, "2 problems with the joined calls"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			file := filepath.Join(dir, tt.name+".txt")
			os.WriteFile(file, []byte(tt.stream), 0o644)
			code, out, errOut := runLoop(t, append(append([]string{"accumulate"}, tt.args...), file)...)
			if code == 0 || !strings.Contains(errOut, file) || !strings.Contains(errOut, tt.want) {
				t.Errorf("loop accumulate = %d\n%s%s\nwant an error naming %s: %s", code, out, errOut, file, tt.want)
			}
		})
	}
}

// TestChatSSE: loop chat --sse streams a forced call as chunks that loop
// accumulate joins back into the call loop chat --json returns for the
// same seed, valid against the tools.
func TestChatSSE(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	conv, tools := longIDConversation(t, "call0abc1")
	args := []string{"chat", "-m", model, "--messages", conv, "--tools", tools, "--tool-choice", "required", "-n", "120", "--seed", "1", "-t", "1"}
	code, stream, errOut := runLoop(t, append(args, "--sse")...)
	if code != 0 || !strings.HasSuffix(stream, "data: [DONE]\n\n") {
		t.Fatalf("loop chat --sse = %d:\n%s%s", code, stream, errOut)
	}
	code, out, errOut := runLoop(t, append(args, "--json")...)
	var r chatResponse
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || len(r.Choices) != 1 || len(r.Choices[0].Message.ToolCalls) != 1 {
		t.Fatalf("loop chat --json = %d: %s %s", code, out, errOut)
	}
	call := r.Choices[0].Message.ToolCalls[0]
	file := filepath.Join(t.TempDir(), "stream.txt")
	os.WriteFile(file, []byte(stream), 0o644)
	code, joined, errOut := runLoop(t, "accumulate", "--tools", tools, file)
	var args2 bytes.Buffer
	if err := json.Compact(&args2, []byte(call.Function.Arguments)); err != nil {
		t.Fatalf("loop chat --json: arguments %q: %v", call.Function.Arguments, err)
	}
	for _, want := range []string{"finish_reason: tool_calls", "call 0: id=", " name=read_file ", "joined arguments parse to " + args2.String()} {
		if code != 0 || !strings.Contains(joined, want) {
			t.Errorf("loop accumulate = %d\n%s%s\nwant %q", code, joined, errOut, want)
		}
	}
}
