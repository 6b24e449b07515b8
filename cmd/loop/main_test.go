package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/loopagent/loop/internal/testmodels"
)

// runLoop runs the command line in process and returns its exit code and
// output.
func runLoop(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), args, &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// TestMemoryEstimate reproduces seed 000 Example 12's table: weights plus an
// F16 KV cache at 32,768 tokens.
func TestMemoryEstimate(t *testing.T) {
	tests := []struct {
		name                string
		paramsB, bpw        float64
		layers, kvHeads, hd int
		want                string
	}{
		{"cand-1", 7.6, 4.9, 28, 4, 128, "weights 4.66 GB + KV 1.88 GB = 6.53 GB"},
		{"cand-2", 14.8, 4.9, 48, 8, 128, "weights 9.07 GB + KV 6.44 GB = 15.51 GB"},
		{"cand-3", 3.1, 8.5, 36, 2, 128, "weights 3.29 GB + KV 1.21 GB = 4.50 GB"},
		{"cand-4", 8.0, 4.9, 32, 8, 128, "weights 4.90 GB + KV 4.29 GB = 9.19 GB"},
		{"cand-5", 6.7, 4.9, 32, 4, 128, "weights 4.10 GB + KV 2.15 GB = 6.25 GB"},
	}
	for _, tt := range tests {
		e := estimateMemory(tt.paramsB*1e9*tt.bpw/8, tt.layers, tt.kvHeads, tt.hd, tt.hd, 32768)
		if got := e.String(); got != tt.want {
			t.Errorf("%s: estimateMemory = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestInfo(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	code, out, errOut := runLoop(t, "info", "-m", model, "--ctx", "32768")
	if code != 0 {
		t.Fatalf("loop info exited %d: %s", code, errOut)
	}
	for _, want := range []string{
		"architecture:   qwen2", "trained ctx:    32768", "vocabulary:     151646 tokens; BOS 151643",
		"chat templates: default", "memory:         at 32768 tokens of context: weights 0.08 GB + KV 0.01 GB",
		"system info:    CPU :", "tokenizer.ggml.pre", `"qwen2"`,
		`template caps:  {"supports_object_arguments":true,"supports_parallel_tool_calls":true,"supports_preserve_reasoning":false,"supports_reasoning_effort":false,"supports_string_content":true,"supports_system_role":true,"supports_tool_calls":true,"supports_tools":true,"supports_typed_content":false}`,
		"call format:    hermes",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("loop info output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runLoop(t, "info", "-m", model, "--json")
	var r infoReport
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil || r.Info.Layers != 2 || r.Metadata["general.architecture"] != `"qwen2"` {
		t.Errorf("loop info --json = %d, %.300s", code, out)
	}
}

func TestTokenizeCommand(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	prompt := filepath.Join("..", "..", "llama", "testdata", "TestSeedTokenCounts", "seed004-example1-tools.txt")
	code, out, errOut := runLoop(t, "tokenize", "-m", model, "-f", prompt)
	if code != 0 || !strings.HasSuffix(out, "Total number of tokens: 190\n") {
		t.Errorf("loop tokenize -f seed prompt = %d, %q, %s", code, tail(out), errOut)
	}
	code, out, _ = runLoop(t, "tokenize", "-m", model, "--pieces", "<|im_start|>user")
	if code != 0 || !strings.Contains(out, "151644 -> '<|im_start|>'") || !strings.HasSuffix(out, "Total number of tokens: 2\n") {
		t.Errorf("loop tokenize --pieces = %d, %q", code, out)
	}
	code, out, _ = runLoop(t, "tokenize", "-m", model, "--no-parse-special", "<|im_start|>user")
	if code != 0 || !strings.HasSuffix(out, "Total number of tokens: 7\n") {
		t.Errorf("loop tokenize --no-parse-special = %d, %q", code, out)
	}
}

func tail(s string) string { return s[max(0, len(s)-80):] }

// TestComplete repeats seed 004 Example 1: without a grammar the random
// model writes noise until n_predict (stop_type limit); with the grammar it
// writes the call and stops with eos, after evaluating 190 prompt tokens.
func TestComplete(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	dir := t.TempDir()
	prompt := filepath.Join("..", "..", "llama", "testdata", "TestSeedTokenCounts", "seed004-example1-tools.txt")
	gbnf := filepath.Join(dir, "toolcall.gbnf")
	os.WriteFile(gbnf, []byte(`root ::= "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"" [a-zA-Z./]{1,20} "\"}}\n</tool_call>"`+"\n"), 0o644)

	code, out, errOut := runLoop(t, "complete", "-m", model, "-f", prompt, "-n", "16", "--temp", "0", "-t", "1", "--json")
	var r completion
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("loop complete = %d: %s %s", code, out, errOut)
	}
	if r.StopType != "limit" || r.TokensPredicted != 16 || r.TokensEvaluated != 190 || r.Timings.PromptN != 190 {
		t.Errorf("without grammar: %+v, want stop_type limit, 16 predicted, 190 evaluated", r)
	}
	code, out, errOut = runLoop(t, "complete", "-m", model, "-f", prompt, "-n", "60", "--temp", "0", "-t", "1", "--grammar-file", gbnf, "--json")
	r = completion{}
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("loop complete --grammar-file = %d: %s %s", code, out, errOut)
	}
	if r.StopType != "eos" || r.TokensEvaluated != 190 || !strings.HasPrefix(r.Content, "<tool_call>\n{\"name\": \"read_file\"") {
		t.Errorf("with grammar: %+v, want a call and stop_type eos", r)
	}
	// The text alone goes to stdout (loop complete ... > out.txt); the
	// statistics go to stderr.
	code, out, errOut = runLoop(t, "complete", "-m", model, "-p", "hello", "-n", "40", "--temp", "0", "-t", "1", "--stop", "e")
	if code != 0 || strings.Contains(out, "stop_type") || strings.Contains(out, "timings") || !strings.Contains(errOut, "stop_type: word") {
		t.Errorf("loop complete --stop = %d, stdout %q, stderr %q", code, out, errOut)
	}
}

// TestCompleteFlags checks llama.cpp's meanings of -n, -c, -t and --seed,
// and that bad flags are usage errors (exit 2) found before the model
// loads: a model path that does not exist is never reached.
func TestCompleteFlags(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	run := func(args ...string) (int, completion, string) {
		t.Helper()
		code, out, errOut := runLoop(t, append([]string{"complete", "-p", "hello", "--temp", "0", "--json"}, args...)...)
		var r completion
		if code == 0 {
			if err := json.Unmarshal([]byte(out), &r); err != nil {
				t.Fatalf("%v: %v in %q", args, err, out)
			}
		}
		return code, r, errOut
	}
	if code, r, errOut := run("-m", model, "-n", "0", "-t", "1"); code != 0 || r.TokensPredicted != 0 || r.TokensEvaluated == 0 {
		t.Errorf("-n 0 = %d, %+v %s; want the prompt read and nothing generated", code, r, errOut)
	}
	if code, r, errOut := run("-m", model, "-n", "3", "-c", "0", "-t", "-1"); code != 0 || r.NCtx != 32768 || r.TokensPredicted != 3 {
		t.Errorf("-c 0 -t -1 = %d, n_ctx %d, %d predicted %s; want the trained context, 32768", code, r.NCtx, r.TokensPredicted, errOut)
	}
	if code, _, errOut := run("-m", model, "-n", "1", "-t", "1", "--logit-bias", "15+1e-5", "--logit-bias", "'hi'-2.5e+1"); code != 0 {
		t.Errorf("--logit-bias with exponents = %d: %s", code, errOut)
	}
	for _, bad := range [][]string{
		{"--seed", "4294967296"}, {"--seed", "-2"}, {"-t", "-2"}, {"-n", "-3"}, {"-c", "-1"},
		{"--mirostat", "3"}, {"--grammar-mode", "foo"}, {"--logit-bias", "15*2"}, {"--top-k", "x"}, {"--draft-max", "-2"}, {"--flash-attn", "maybe"},
	} {
		code, _, errOut := run(append([]string{"-m", "/nonexistent/model.gguf"}, bad...)...)
		if code != 2 || strings.Contains(errOut, "nonexistent") {
			t.Errorf("%v = exit %d, %q; want a usage error before loading", bad, code, errOut)
		}
	}
}

func TestBenchCommand(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	code, out, errOut := runLoop(t, "bench", "-m", model, "-p", "64", "-n", "8", "-r", "2", "-t", "1", "--turns", "3", "--turn-tokens", "32")
	if code != 0 {
		t.Fatalf("loop bench = %d: %s", code, errOut)
	}
	for _, want := range []string{" pp64 |", " tg8 |", "llama.cpp's own counters", "cache reuse"} {
		if !strings.Contains(out, want) {
			t.Errorf("loop bench output lacks %q:\n%s", want, out)
		}
	}
	code, out, _ = runLoop(t, "bench", "-m", model, "-p", "64", "-n", "8", "-r", "2", "-t", "1", "--turns", "3", "--turn-tokens", "32", "--json", "--cache-type-v", "F32")
	var rep benchReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("loop bench --json = %d: %s", code, out)
	}
	if len(rep.Results) != 2 || len(rep.Results[0].Samples) != 2 || rep.Results[0].AvgTS <= 0 {
		t.Errorf("bench results = %+v", rep.Results)
	}
	if r := rep.Results[0]; r.TypeK != "f16" || r.TypeV != "f32" {
		t.Errorf("bench --cache-type-v F32: type_k %q, type_v %q; want f16 and f32", r.TypeK, r.TypeV)
	}
	if code, _, errOut := runLoop(t, "bench", "-m", "/nonexistent/model.gguf", "--cache-type-k", "q3"); code != 2 || !strings.Contains(errOut, `"q3"`) {
		t.Errorf("bench --cache-type-k q3 = exit %d, %q; want a usage error that names it", code, errOut)
	}
	if len(rep.Reuse) != 3 {
		t.Fatalf("cache reuse turns = %d, want 3", len(rep.Reuse))
	}
	for i, turn := range rep.Reuse {
		if turn.Cold.CacheN != 0 || turn.Cold.PromptN != turn.Prompt {
			t.Errorf("turn %d cold: %+v, want nothing cached", i+1, turn.Cold)
		}
		if i > 0 && (turn.Warm.CacheN < rep.Reuse[i-1].Prompt || turn.Warm.CacheN+turn.Warm.PromptN != turn.Prompt) {
			t.Errorf("turn %d warm: %+v, want the previous prompt (%d tokens) cached", i+1, turn.Warm, rep.Reuse[i-1].Prompt)
		}
	}
}

// TestDraftCommand checks --draft-max: loop complete writes the same text
// with it, and loop bench adds the edit, text, edit-call, answer and step
// rows, plain and drafted.
func TestDraftCommand(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	complete := func(args ...string) completion {
		t.Helper()
		code, out, errOut := runLoop(t, append([]string{"complete", "-m", model, "-p", "a b c a b c a b c a b c", "-n", "24", "--temp", "0", "-t", "1", "--json"}, args...)...)
		var r completion
		if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
			t.Fatalf("loop complete %v = %d: %s %s", args, code, out, errOut)
		}
		return r
	}
	plain, drafted := complete(), complete("--draft-max", "6")
	if plain.Content != drafted.Content || plain.TokensPredicted != drafted.TokensPredicted {
		t.Errorf("--draft-max 6 wrote %q (%d tokens), without %q (%d)", drafted.Content, drafted.TokensPredicted, plain.Content, plain.TokensPredicted)
	}
	if drafted.Timings.DraftNAccepted > drafted.Timings.DraftN {
		t.Errorf("accepted %d of %d draft tokens", drafted.Timings.DraftNAccepted, drafted.Timings.DraftN)
	}
	code, out, errOut := runLoop(t, "bench", "-m", model, "-p", "0", "-n", "8", "-r", "1", "-t", "1", "--no-reuse", "--draft-max", "4", "--json")
	var rep benchReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("loop bench --draft-max 4 = %d: %s %s", code, out, errOut)
	}
	var tests []string
	for _, r := range rep.Results {
		tests = append(tests, r.Test)
	}
	want := []string{"tg8", "edit-tg8", "edit-tg8+draft4", "text-tg8", "text-tg8+draft4", "edit-call-tg8", "edit-call-tg8+draft4",
		"answer-tg8", "answer-tg8+draft4", "step-tg8", "step-tg8+draft4"}
	if strings.Join(tests, " ") != strings.Join(want, " ") {
		t.Fatalf("loop bench --draft-max 4: tests %v, want %v", tests, want)
	}
	for i, r := range rep.Results {
		// The step rows' replies end where the model ends them: 8 tokens at most.
		step := strings.HasPrefix(r.Test, "step-")
		if drafted := strings.HasSuffix(r.Test, "+draft4"); (r.Draft != nil) != drafted || drafted && !step && r.Draft.Tokens != 8 ||
			drafted && step && (r.Draft.Tokens < 1 || r.Draft.Tokens > 8) {
			t.Errorf("loop bench --draft-max 4: row %d %s draft stats %+v; want them on the drafted rows only, 8 tokens each (1 to 8 on a step row)", i, r.Test, r.Draft)
		}
		if step && (r.AvgTS <= 0 || r.NPrompt == 0) {
			t.Errorf("loop bench --draft-max 4: %s at %.2f t/s after %d prompt tokens", r.Test, r.AvgTS, r.NPrompt)
		}
	}
}

// TestBenchGrammar: loop bench --grammar times the agent's call grammar
// six ways; the required grammar constrains the random model (each run
// writes tokens), and rejection-first counts its rejections.
func TestBenchGrammar(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	code, out, errOut := runLoop(t, "bench", "-m", model, "-p", "0", "-n", "8", "-r", "1", "-t", "1", "--no-reuse", "--grammar", "--json")
	var rep benchReport
	if code != 0 || json.Unmarshal([]byte(out), &rep) != nil {
		t.Fatalf("loop bench --grammar = %d: %s %s", code, out, errOut)
	}
	var tests []string
	for _, r := range rep.Results[1:] {
		tests = append(tests, strings.TrimPrefix(r.Test, "tg8+grammar="))
		if r.Grammar == nil || r.Grammar.Tokens == 0 || r.AvgTS <= 0 {
			t.Errorf("%s: grammar stats %+v, %.1f t/s", r.Test, r.Grammar, r.AvgTS)
		}
	}
	want := "none lazy lazy+rejection-first required required+rejection-first required+grammar-first"
	if strings.Join(tests, " ") != want {
		t.Errorf("loop bench --grammar tests %v, want tg8 then %s", tests, want)
	}
	if g := rep.Results[5].Grammar; g != nil && g.Rejected == 0 {
		t.Errorf("required+rejection-first rejected nothing on a random model: %+v", g)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string
	}{
		{[]string{}, 2, "usage: loop"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"info"}, 2, "no model: pass -m FILE"},
		{[]string{"info", "-m", "/nonexistent/x.gguf"}, 1, "load model: /nonexistent/x.gguf: no such file or directory"},
		{[]string{"tokenize", "-m", "x.gguf"}, 2, "no text"},
		{[]string{"complete", "-m", "x.gguf"}, 2, "exactly one of -p PROMPT or -f FILE"},
		{[]string{"info", "--bogus"}, 2, "unknown flag: --bogus"},
	}
	for _, tt := range tests {
		code, _, errOut := runLoop(t, tt.args...)
		if code != tt.code || !strings.Contains(errOut, tt.want) {
			t.Errorf("loop %s = %d, %q; want %d and %q", strings.Join(tt.args, " "), code, errOut, tt.code, tt.want)
		}
	}
	if code, _, _ := runLoop(t, "info", "--help"); code != 0 {
		t.Errorf("loop info --help exited %d", code)
	}
}

// TestTemplateCommand repeats seed 004 Example 1's count: the prompt with
// one tool is 190 tokens, 35 without it, so the tool costs 155.
func TestTemplateCommand(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	dir := t.TempDir()
	conv := filepath.Join(dir, "conv.json")
	tools := filepath.Join(dir, "tools.json")
	os.WriteFile(conv, []byte(`[{"role": "user", "content": "What is in pom.xml?"}]`), 0o644)
	os.WriteFile(tools, []byte(`[{"type": "function", "function": {"name": "read_file", "description": "Read a text file from the workspace", "parameters": {"type": "object", "properties": {"path": {"type": "string", "description": "Path relative to the workspace root"}}, "required": ["path"]}}}]`), 0o644)
	code, out, errOut := runLoop(t, "template", "-m", model, "--messages", conv, "--tools", tools, "--json")
	var r templateReport
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("loop template = %d: %s %s", code, out, errOut)
	}
	want, _ := os.ReadFile(filepath.Join("..", "..", "llama", "testdata", "TestSeedTokenCounts", "seed004-example1-tools.txt"))
	if r.Prompt != string(want) || r.Tokens != 190 || r.NoTools != 35 || r.ToolsCost != 155 || r.Format.Format != "hermes" {
		t.Errorf("loop template: %d tokens, %d without tools, tools %d, format %s; prompt equal to the seed's: %v",
			r.Tokens, r.NoTools, r.ToolsCost, r.Format.Format, r.Prompt == string(want))
	}
	code, out, _ = runLoop(t, "template", "-m", model, "--messages", conv, "--chat-template-file",
		filepath.Join(testmodels.ChatTemplates(), "meta-llama-Llama-3.1-8B-Instruct.jinja"))
	if code != 0 || !strings.Contains(out, "<|start_header_id|>user<|end_header_id|>") {
		t.Errorf("loop template --chat-template-file = %d, %q", code, out)
	}
}

// TestTemplateRewrites: loop template shows the prompt loop chat sends,
// history rewrites included, on gemma-2, which refuses tool messages.
func TestTemplateRewrites(t *testing.T) {
	model := testmodels.Path(t, testmodels.TinyQwen15F32)
	dir := t.TempDir()
	conv := filepath.Join(dir, "conv.json")
	tools := filepath.Join(dir, "tools.json")
	os.WriteFile(conv, []byte(`[{"role": "user", "content": "What is in pom.xml?"},
		{"role": "assistant", "content": null, "tool_calls": [{"id": "call0abc1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"pom.xml\"}"}}]},
		{"role": "tool", "tool_call_id": "call0abc1", "content": "<project>demo</project>"}]`), 0o644)
	os.WriteFile(tools, []byte(`[{"type": "function", "function": {"name": "read_file", "description": "Read a text file.", "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]`), 0o644)
	code, out, errOut := runLoop(t, "template", "-m", model, "--messages", conv, "--tools", tools,
		"--chat-template-file", filepath.Join(testmodels.ChatTemplates(), "google-gemma-2-2b-it.jinja"))
	if code != 0 {
		t.Fatalf("loop template = %d: %s %s", code, out, errOut)
	}
	for _, want := range []string{`<start_of_turn>model` + "\n" + `{"tool": "read_file", "arguments": {"path": "pom.xml"}}<end_of_turn>`,
		"Result of read_file (call call0abc1):\n<project>demo</project>", `- read_file: Read a text file. Arguments: {"path": "<path>"}`,
		"rewrite: tool results sent as user messages (1)", "format: prompt"} {
		if !strings.Contains(out, want) {
			t.Errorf("loop template lacks %q:\n%s", want, out)
		}
	}
}

// TestRunScript runs `loop run --script` on a copy of the fixture
// workspace (a Go module whose test fails by one line): the scripted
// replies read, edit, test and answer through the real loop and tools; the
// run ends done (verified) with exit 0, writes its transcript, and `loop
// replay` runs that transcript again to the same end on a fresh copy.
func TestRunScript(t *testing.T) {
	fixture := func() string {
		dir := t.TempDir()
		for _, name := range []string{"go.mod", "calc.go", "calc_test.go"} {
			b, err := os.ReadFile(filepath.Join("..", "..", "agent", "loop", "testdata", "fixture", name))
			if err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, name), b, 0o644)
		}
		return dir
	}
	call := func(s string) string { return "<tool_call>\n" + s + "\n</tool_call>" }
	script, _ := json.Marshal([]string{
		call(`{"name": "read_file", "arguments": {"path": "calc.go"}}`),
		call(`{"name": "edit_file", "arguments": {"path": "calc.go", "old_string": "for i := 1; i", "new_string": "for i := 0; i"}}`),
		call(`{"name": "shell", "arguments": {"command": "go test ./..."}}`),
		"Fixed.",
	})
	tmp := t.TempDir()
	scriptFile, trans := filepath.Join(tmp, "script.json"), filepath.Join(tmp, "run.jsonl")
	os.WriteFile(scriptFile, script, 0o644)
	code, out, errOut := runLoop(t, "run", "--script", scriptFile, "-C", fixture(), "--transcript", trans, "fix TestTotal in calc.go")
	if code != 0 || !strings.Contains(out, "done (verified): 4 requests, 3 calls") {
		t.Fatalf("loop run --script = %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, out, errOut = runLoop(t, "replay", "-C", fixture(), "--transcript", filepath.Join(tmp, "replay.jsonl"), trans)
	if code != 0 || !strings.Contains(out, "done (verified)") {
		t.Fatalf("loop replay = %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	// Without the edit the gate refuses the answer, then the run ends
	// unverified with its own exit code.
	script, _ = json.Marshal([]string{call(`{"name": "edit_file", "arguments": {"path": "calc.go", "old_string": "for i := 1; i", "new_string": "for i := 2; i"}}`), "Fixed.", "Fixed."})
	os.WriteFile(scriptFile, script, 0o644)
	code, out, _ = runLoop(t, "run", "--script", scriptFile, "-C", fixture(), "--transcript", filepath.Join(tmp, "unverified.jsonl"), "fix TestTotal")
	if code != 3 || !strings.Contains(out, "unverified") {
		t.Errorf("an unverified answer = exit %d, %s", code, out)
	}
}

// TestDraftFlag checks what --draft-max asks of the client: by default
// (-1) drafts of callDraftMax inside tool calls only; 0 none; N drafts of
// N everywhere.
func TestDraftFlag(t *testing.T) {
	for _, tc := range []struct {
		flag, max int
		inCalls   bool
	}{{-1, callDraftMax, true}, {0, 0, false}, {8, 8, false}} {
		g := genFlags{draftMax: tc.flag}
		if max, inCalls := g.draft(); max != tc.max || inCalls != tc.inCalls {
			t.Errorf("--draft-max %d: draft() = %d, %v; want %d, %v", tc.flag, max, inCalls, tc.max, tc.inCalls)
		}
	}
	var f runFlags
	fs := newFlagSet("run", io.Discard)
	f.registerGen(fs, 1024)
	if err := fs.Parse(nil); err != nil || f.draftMax != -1 {
		t.Errorf("--draft-max defaults to %d (%v), want -1", f.draftMax, err)
	}
}

// TestSignalsCancel sends SIGINT, SIGTERM and SIGHUP to a real loop
// process, while a command runs and while interactive mode waits at its
// prompt: each cancels the run, which ends with exit code 130 (cancelled,
// or interrupted at the prompt) instead of dying of the signal.
func TestSignalsCancel(t *testing.T) {
	tests := []struct {
		name   string
		sig    syscall.Signal
		prompt bool   // at the prompt of interactive mode, else during a command
		want   string // in the output
	}{
		{"SIGINT during a command", syscall.SIGINT, false, "cancelled"},
		{"SIGTERM during a command", syscall.SIGTERM, false, "cancelled"},
		{"SIGHUP during a command", syscall.SIGHUP, false, "cancelled"},
		{"SIGINT at the prompt", syscall.SIGINT, true, "loop run: interrupted"},
		{"SIGTERM at the prompt", syscall.SIGTERM, true, "loop run: interrupted"},
		{"SIGHUP at the prompt", syscall.SIGHUP, true, "loop run: interrupted"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			script := writeScript(t, tmp, callReply("shell", map[string]string{"command": "sleep 60"}), "Done.")
			trans := filepath.Join(tmp, "run.jsonl")
			args := []string{"run", "--script", script, "--yes", "-C", tmp, "--transcript", trans}
			if !tt.prompt {
				args = append(args, "wait a minute")
			}
			cmd := exec.Command(os.Args[0], args...)
			cmd.Env = append(os.Environ(), envAsLoop+"=1")
			var out lockedBuffer
			cmd.Stdout, cmd.Stderr = &out, &out
			stdin, err := cmd.StdinPipe() // a terminal where nobody types
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			ready := func() bool {
				if tt.prompt {
					return strings.Contains(out.String(), "> ")
				}
				b, _ := os.ReadFile(trans)
				return bytes.Contains(b, []byte(`"kind":"call"`))
			}
			for deadline := time.Now().Add(10 * time.Second); !ready() && time.Now().Before(deadline); {
				time.Sleep(20 * time.Millisecond)
			}
			cmd.Process.Signal(tt.sig)
			exited := make(chan error, 1)
			go func() { exited <- cmd.Wait() }()
			select {
			case <-exited:
			case <-time.After(20 * time.Second):
				cmd.Process.Kill()
				<-exited
				t.Fatalf("loop still runs 20s after %v:\n%s", tt.sig, out.String())
			}
			if code := cmd.ProcessState.ExitCode(); code != 130 || !strings.Contains(out.String(), tt.want) {
				t.Errorf("after %v: %v (exit code %d), want exit code 130 and %q:\n%s", tt.sig, cmd.ProcessState, code, tt.want, out.String())
			}
		})
	}
}

// lockedBuffer is a bytes.Buffer that a process writes while a test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
