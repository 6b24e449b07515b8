package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/loopagent/loop/agent/mcp/mcptest"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/internal/testmodels"
)

// init makes the test binary the MCP test server when started as one.
// It runs before TestMain, whose supervisor mode starts with other
// arguments.
func init() { mcptest.Main() }

// mcpConfig writes an MCP config file of servers (name -> entry) and an
// allow list, and returns its path.
func mcpConfig(t *testing.T, dir string, servers map[string]any, allow ...string) string {
	t.Helper()
	cfg := map[string]any{"mcpServers": servers}
	if allow != nil {
		cfg["allow"] = allow
	}
	b, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "mcp.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// testServer is the config entry of the test server in mode.
func testServer(mode string, more ...string) map[string]any {
	command, args := mcptest.Server(os.Args[0], mode, more...)
	return map[string]any{"command": command, "args": args}
}

// mcpRun runs loop run as a process of its own, with no terminal on its
// standard input, and returns its exit code, its output and the events of
// its transcript.
func mcpRun(t *testing.T, args ...string) (int, string, []transcript.Event) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	cmd := exec.Command(os.Args[0], append([]string{"run", "--json", "--transcript", path}, args...)...)
	cmd.Env = append(os.Environ(), envAsLoop+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	events, _ := readTranscript(path)
	return code, out.String(), events
}

// results are the tool results of events, by tool.
func results(events []transcript.Event) map[string][]string {
	out := map[string][]string{}
	for _, e := range events {
		if e.Kind == transcript.KindResult && e.Call != nil {
			out[e.Call.Function.Name] = append(out[e.Call.Function.Name], e.Result)
		}
	}
	return out
}

// TestRunMCPScript: a scripted model calls two tools of an MCP server
// named in --mcp; the calls reach the server, with the config's
// environment (a ${VAR} of loop's), and their results come back to the
// model. The first request offers the server's tools after loop's own.
func TestRunMCPScript(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	t.Setenv("MCPTEST_FROM_LOOP", "hello through the config")
	ws, dir := t.TempDir(), t.TempDir()
	srv := testServer("tools")
	srv["env"] = map[string]string{"MCPTEST_GREETING": "${MCPTEST_FROM_LOOP}"}
	cfg := mcpConfig(t, dir, map[string]any{"t": srv})
	script := writeScript(t, dir, callReply("mcp__t__echo", map[string]string{"text": "hi"}), callReply("mcp__t__env", map[string]string{}), "Done.")
	path := filepath.Join(dir, "run.jsonl")
	code, out, errOut := runLoop(t, "run", "--script", script, "-C", ws, "--mcp", cfg, "--allow-mcp", "t", "--json", "--transcript", path, "greet")
	if code != 0 {
		t.Fatalf("loop run: exit %d\n%s\n%s", code, out, errOut)
	}
	events := readEvents(t, path)
	got := results(events)
	if want := []string{"echo: hi"}; !slices.Equal(got["mcp__t__echo"], want) {
		t.Errorf("mcp__t__echo results %q; want %q", got["mcp__t__echo"], want)
	}
	if want := []string{"hello through the config"}; !slices.Equal(got["mcp__t__env"], want) {
		t.Errorf("mcp__t__env results %q; want %q", got["mcp__t__env"], want)
	}
	first := requests(t, path)[0]
	if i := slices.Index(first.Tools, "mcp__t__echo"); i < 0 || !slices.Contains(first.Tools[:i], "read_file") {
		t.Errorf("first request's tools %v; want mcp__t__echo after loop's own", first.Tools)
	}
	if slices.Contains(first.Tools, "mcp__t__broken") || !strings.Contains(errOut, "loop run: tool mcp__t__broken left out: ") ||
		!strings.Contains(errOut, "(?=") {
		t.Errorf("the tool whose pattern no grammar holds: offered %v; stderr %q; want it left out with a warning naming its pattern", first.Tools, errOut)
	}
}

// TestRunMCPPermissions: an MCP call runs when --allow-mcp or the config
// file's allow list names its server or the tool; else, with no terminal
// to ask on, it is refused and the model reads how to allow it. A
// workspace .mcp.json's allow list counts for nothing.
func TestRunMCPPermissions(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	script := writeScript(t, dir, callReply("mcp__t__echo", map[string]string{"text": "hi"}), "Done.")
	plain := mcpConfig(t, t.TempDir(), map[string]any{"t": testServer("echo")})
	allowing := mcpConfig(t, t.TempDir(), map[string]any{"t": testServer("echo")}, "t__echo")
	refused := "mcp__t__echo: refused: the user has not allowed this MCP tool (loop run --allow-mcp t__echo) and this run cannot ask; do the task without it"
	tests := []struct {
		name string
		args []string
		ws   string // the workspace's .mcp.json
		want string
	}{
		{"server allowed", []string{"--mcp", plain, "--allow-mcp", "t"}, "", "echo: hi"},
		{"tool allowed", []string{"--mcp", plain, "--allow-mcp", "t__echo"}, "", "echo: hi"},
		{"another tool allowed", []string{"--mcp", plain, "--allow-mcp", "t__other"}, "", refused},
		{"nothing allowed", []string{"--mcp", plain}, "", refused},
		{"allowed by the config file", []string{"--mcp", allowing}, "", "echo: hi"},
		{"the workspace file's allow list", []string{"--mcp-workspace"}, allowing, refused},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ws := t.TempDir()
			if tt.ws != "" {
				b, _ := os.ReadFile(tt.ws)
				os.WriteFile(filepath.Join(ws, ".mcp.json"), b, 0o644)
			}
			code, out, events := mcpRun(t, append([]string{"--script", script, "-C", ws}, append(tt.args, "greet")...)...)
			if got := results(events)["mcp__t__echo"]; len(got) != 1 || got[0] != tt.want {
				t.Errorf("exit %d, mcp__t__echo results %q; want %q\n%s", code, got, tt.want, out)
			}
		})
	}
}

// TestRunMCPWorkspaceFile: the servers of a workspace's .mcp.json start
// only with --mcp-workspace (or --mcp naming it); without, the run says
// so, and the server's command never runs.
func TestRunMCPWorkspaceFile(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	marker := filepath.Join(t.TempDir(), "started")
	command, args := mcptest.Server(os.Args[0], "echo")
	line := fmt.Sprintf("touch %q && exec %q %s", marker, command, strings.Join(args, " "))
	script := writeScript(t, t.TempDir(), "Done.")
	for _, tt := range []struct {
		name    string
		args    []string
		started bool
	}{
		{"not trusted", nil, false},
		{"--mcp-workspace", []string{"--mcp-workspace"}, true},
		{"--mcp .mcp.json", []string{"--mcp", ".mcp.json"}, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			os.Remove(marker)
			ws := t.TempDir()
			mcpConfig(t, ws, map[string]any{"repo": map[string]any{"command": "sh", "args": []string{"-c", line}}})
			os.Rename(filepath.Join(ws, "mcp.json"), filepath.Join(ws, ".mcp.json"))
			args := append([]string{"--script", script, "-C", ws}, tt.args...)
			if slices.Contains(tt.args, ".mcp.json") {
				args[len(args)-1] = filepath.Join(ws, ".mcp.json")
			}
			code, out, events := mcpRun(t, append(args, "look")...)
			_, err := os.Stat(marker)
			if started := err == nil; started != tt.started || code != 0 {
				t.Errorf("exit %d, server started %v; want exit 0, started %v\n%s", code, started, tt.started, out)
			}
			note := strings.Contains(out, ".mcp.json is not read: its servers start only with --mcp-workspace")
			if note == tt.started {
				t.Errorf("the note about the workspace's file: %v; want %v\n%s", note, !tt.started, out)
			}
			for _, e := range events {
				if e.Kind == transcript.KindRequest && slices.Contains(e.Tools, "mcp__repo__echo") != tt.started {
					t.Errorf("request tools %v; want mcp__repo__echo offered: %v", e.Tools, tt.started)
				}
			}
		})
	}
}

// TestRunMCPErrors: a config that does not parse, a server that exits at
// once, a server that is no program, and a call that times out.
func TestRunMCPErrors(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	dir := t.TempDir()
	script := writeScript(t, dir, callReply("mcp__t__sleep", map[string]string{}), "Done.")
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte("{\"mcpServers\": {\n  \"t\": {\"command\": }\n}}\n"), 0o644)
	tests := []struct {
		name   string
		args   []string
		code   int
		output string
	}{
		{"config that does not parse", []string{"--mcp", bad}, 1, "mcp: parse config " + bad + ": line 2, column 20: invalid character '}' looking for beginning of value"},
		{"missing config", []string{"--mcp", filepath.Join(dir, "none.json")}, 1, "mcp: read config " + filepath.Join(dir, "none.json") + ": no such file or directory"},
		{"server that exits", []string{"--mcp", mcpConfig(t, t.TempDir(), map[string]any{"t": testServer("exit")})}, 1,
			`mcp: start server t: the server exited (exit status 3); its stderr ends: "boom"`},
		{"no such program", []string{"--mcp", mcpConfig(t, t.TempDir(), map[string]any{"t": map[string]any{"command": "loop-no-such-server"}})}, 1,
			`mcp: start server t: command "loop-no-such-server": executable file not found in $PATH`},
		{"call that times out", []string{"--mcp", mcpConfig(t, t.TempDir(), map[string]any{"t": testServer("tools")}), "--allow-mcp", "t", "--mcp-timeout", "500ms"}, 0,
			`"result":"mcp__t__sleep: no answer from MCP server t within 500ms; the call was abandoned"`},
		{"bad --mcp-timeout", []string{"--mcp-timeout", "0s"}, 2, "--mcp-timeout 0s: want more than 0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "run.jsonl")
			args := append([]string{"run", "--script", script, "-C", t.TempDir(), "--json", "--transcript", path}, append(tt.args, "wait")...)
			code, out, errOut := runLoop(t, args...)
			trans, _ := os.ReadFile(path)
			if code != tt.code || !strings.Contains(out+errOut+string(trans), tt.output) {
				t.Errorf("exit %d; want %d and %q\nstdout: %s\nstderr: %s\ntranscript: %s", code, tt.code, tt.output, out, errOut, trans)
			}
		})
	}
}

// TestRunMCPTools: --mcp-tools prints the servers' tools as an OpenAI
// tools array, each schema as the server wrote it, which loop lint reads.
func TestRunMCPTools(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	cfg := mcpConfig(t, t.TempDir(), map[string]any{"t": testServer("tools")})
	code, out, errOut := runLoop(t, "run", "--mcp", cfg, "--mcp-tools")
	if code != 0 {
		t.Fatalf("loop run --mcp-tools: exit %d\n%s", code, errOut)
	}
	var defs []struct {
		Function struct {
			Name       string          `json:"name"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	}
	if err := json.Unmarshal([]byte(out), &defs); err != nil || len(defs) != 7 {
		t.Fatalf("loop run --mcp-tools printed %d tools (%v); want 7:\n%s", len(defs), err, out)
	}
	for _, d := range defs {
		var params bytes.Buffer
		json.Compact(&params, d.Function.Parameters)
		if d.Function.Name == "mcp__t__add" && !strings.Contains(params.String(), `{"b":{"type":"integer"},"a":{"type":"integer"}}`) {
			t.Errorf("add's parameters %s; want b before a, as the server wrote them", d.Function.Parameters)
		}
	}
	file := filepath.Join(t.TempDir(), "tools.json")
	os.WriteFile(file, []byte(out), 0o644)
	code, lint, errOut := runLoop(t, "lint", file)
	if code != 0 || !strings.Contains(lint, "mcp__t__add.b: no description") || strings.Contains(lint, "mcp__t__echo.text: no description") {
		t.Errorf("loop lint of the MCP tools: exit %d\n%s%s\nwant a finding for add's undescribed b, none for echo's described text", code, lint, errOut)
	}
}

// TestRunMCPServerEndsWithLoop: loop killed with SIGKILL while an MCP
// call runs leaves neither the server nor what the server started.
func TestRunMCPServerEndsWithLoop(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	mark := fmt.Sprintf("%d%d", 5000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	cfg := mcpConfig(t, t.TempDir(), map[string]any{"t": testServer("tools", mark)})
	script := writeScript(t, t.TempDir(), callReply("mcp__t__spawn", map[string]string{}), callReply("mcp__t__sleep", map[string]string{}), "Done.")
	ws := t.TempDir()
	cmd := exec.Command(os.Args[0], "run", "--script", script, "--mcp", cfg, "--allow-mcp", "t", "-C", ws, "--json",
		"--transcript", filepath.Join(ws, "run.jsonl"), "spawn and wait")
	cmd.Env = append(os.Environ(), envAsLoop+"=1")
	var out lockedBuffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The server's command line and its sleeper's both carry the mark.
	if !waitFor(func() bool {
		return sleepers(processesWith(mark)) == 1 && strings.Contains(out.String(), "mcp__t__sleep")
	}) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the server's sleeper did not start, or the sleep call was not made; found %v\n%s", processesWith(mark), out.String())
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	var left []proc
	waitFor(func() bool { left = processesWith(mark); return len(left) == 0 })
	for _, p := range left {
		syscall.Kill(p.pid, syscall.SIGKILL)
	}
	if len(left) > 0 {
		t.Errorf("after SIGKILL to loop, these processes of its MCP server survived:\n%s", strings.Join(describe(left), "\n"))
	}
}

// TestLiveRunMCP runs loop run on a random-weight model with an MCP
// server's echo tool beside loop's own: the logit biases make every reply
// a call, keep strings short and favour the tokens of "mcp", and the call
// grammar holds the MCP tool's schema as any other's, so the model calls
// it with well-formed arguments and reads the server's answer.
func TestLiveRunMCP(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"notes.txt": "say hello\n"})
	cfg := mcpConfig(t, t.TempDir(), map[string]any{"e": testServer("echo")})
	path := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, stderr := runLoop(t, "run", "-m", testmodels.Path(t, testmodels.TinyQwen3F16), "-C", ws, "-c", "4096", "-t", "2",
		"--max-steps", "2", "--max-tokens", "64", "--reasoning", "off", "--seed", "1", "--no-subagent", "--no-loop-guard",
		"--retries", "20", "--logit-bias", "'<tool_call>'+20", "--logit-bias", `'"'+20`, "--logit-bias", "'mcp'+20",
		"--mcp", cfg, "--allow-mcp", "e", "--json", "--transcript", path, "echo hello")
	if code != 4 {
		t.Fatalf("loop run: exit %d, want 4 (step limit)\n%s", code, stderr)
	}
	events := readEvents(t, path)
	if tools := requests(t, path)[0].Tools; !slices.Contains(tools, "mcp__e__echo") {
		t.Fatalf("first request offers %v; want mcp__e__echo", tools)
	}
	var steps []int
	for _, e := range events {
		if e.Kind == transcript.KindResult && e.Call != nil && e.Call.Function.Name == "mcp__e__echo" {
			steps = append(steps, e.Step)
			t.Logf("step %d: mcp__e__echo %s -> %q", e.Step, e.Call.Function.Arguments, e.Result)
			var args map[string]any
			if err := json.Unmarshal([]byte(e.Call.Function.Arguments), &args); err != nil || len(args) != 1 || args["text"] == nil {
				t.Errorf("step %d: mcp__e__echo arguments %s; want {\"text\": ...} as its schema says", e.Step, e.Call.Function.Arguments)
			}
			if !strings.HasPrefix(e.Result, "echo: ") || e.IsError {
				t.Errorf("step %d: mcp__e__echo result %q (error %v); want the server's echo", e.Step, e.Result, e.IsError)
			}
		}
	}
	if len(steps) == 0 {
		t.Errorf("no call of mcp__e__echo in %d events; want the biased model to call it", len(events))
	}
	t.Logf("mcp__e__echo called at steps %v", steps)
}
