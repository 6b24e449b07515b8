package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/loopagent/loop/agent/mcp/mcptest"
	"github.com/loopagent/loop/agent/sandbox"
	"github.com/loopagent/loop/agent/tools"
)

// init makes the test binary the test server when started as one, before
// TestMain: the sandbox's supervisor is this binary too.
func init() { mcptest.Main() }

func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}

// testServer is the config entry of the test server in mode.
func testServer(mode string, more ...string) Server {
	command, args := mcptest.Server(os.Args[0], mode, more...)
	return Server{Command: command, Args: args, File: "test"}
}

// start starts servers by name and stops them when the test ends.
func start(t *testing.T, servers map[string]Server, o Options) *Servers {
	t.Helper()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	s, err := Start(context.Background(), Config{Servers: servers}, o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(s.Close)
	return s
}

// call runs the named tool of s in a fresh workspace.
func call(t *testing.T, s *Servers, name, args string) (tools.Result, error) {
	t.Helper()
	ws, err := tools.NewWorkspace(t.TempDir(), tools.Config{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range s.Tools() {
		if tool.Name() == name {
			return tool.Run(context.Background(), ws, json.RawMessage(args))
		}
	}
	t.Fatalf("no tool %s among %v", name, names(s))
	return tools.Result{}, nil
}

func names(s *Servers) []string {
	var out []string
	for _, t := range s.Tools() {
		out = append(out, t.Name())
	}
	return out
}

func TestParseConfig(t *testing.T) {
	t.Setenv("MCPTEST_TOKEN", "secret")
	tests := []struct {
		name, data string
		want       Config
		err        string
	}{
		{name: "servers and allow", data: `{"mcpServers": {
			"docs": {"command": "docs-server", "args": ["--token", "${MCPTEST_TOKEN}", "${MCPTEST_UNSET:-none}", "$HOME"], "env": {"T": "${MCPTEST_TOKEN}"}},
			"web": {"type": "http", "url": "https://example.com/mcp"}},
			"allow": ["docs"]}`,
			want: Config{Servers: map[string]Server{"docs": {Command: "docs-server", Args: []string{"--token", "secret", "none", "$HOME"}, Env: map[string]string{"T": "secret"}, File: "f.json"}},
				Allow: []string{"docs"}, Notes: []string{`f.json: server "web" is not a stdio server (type "http"); loop starts stdio servers only`}}},
		{name: "not JSON", data: "{\"mcpServers\": {\n  \"a\": {\"command\": \"x\",}\n}}", err: "mcp: parse config f.json: line 2, column 24: invalid character '}'"},
		{name: "wrong type", data: `{"mcpServers": {"a": {"command": 7}}}`, err: `mcp: parse config f.json: server "a": json: cannot unmarshal number`},
		{name: "no mcpServers", data: `{"servers": {}}`, err: `mcp: parse config f.json: bad config: no "mcpServers" object`},
		{name: "no command", data: `{"mcpServers": {"a": {"args": ["x"]}}}`, err: `mcp: parse config f.json: bad config: server "a": no "command"`},
		{name: "a name with __", data: `{"mcpServers": {"a__b": {"command": "x"}}}`, err: `server "a__b": a name is letters, digits, "-" and single "_"`},
		{name: "unset variable", data: `{"mcpServers": {"a": {"command": "x", "env": {"K": "${MCPTEST_UNSET}"}}}}`, err: `server "a": ${MCPTEST_UNSET} is not set and has no default`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseConfig("f.json", []byte(tt.data))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("ParseConfig(%s) = %v, want an error with %q", tt.name, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseConfig(%s): %v", tt.name, err)
			}
			if d := cmp.Diff(tt.want, got); d != "" {
				t.Errorf("ParseConfig(%s) (-want +got):\n%s", tt.name, d)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	a := Config{Servers: map[string]Server{"x": {Command: "a"}, "y": {Command: "a"}}, Allow: []string{"x"}}
	b := Config{Servers: map[string]Server{"y": {Command: "b"}}, Allow: []string{"y__t"}}
	got := Merge(a, b)
	want := Config{Servers: map[string]Server{"x": {Command: "a"}, "y": {Command: "b"}}, Allow: []string{"x", "y__t"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Merge (-want +got):\n%s", d)
	}
}

// TestTools: the servers' tools come named mcp__SERVER__TOOL, server by
// server, with their schemas as the server wrote them, and their calls
// reach the server with the config's environment.
func TestTools(t *testing.T) {
	srv := testServer("tools")
	srv.Env = map[string]string{"MCPTEST_GREETING": "hello from env"}
	s := start(t, map[string]Server{"t": srv, "a": testServer("tools")}, Options{Allow: []string{"t", "a"}})
	want := []string{"add", "broken", "echo", "env", "fail", "sleep", "spawn"} // as the SDK's server lists them
	var all []string
	for _, server := range []string{"a", "t"} {
		for _, n := range want {
			all = append(all, "mcp__"+server+"__"+n)
		}
	}
	if d := cmp.Diff(all, names(s)); d != "" {
		t.Fatalf("tools (-want +got):\n%s", d)
	}
	for _, tool := range s.Tools() {
		if tool.Name() == "mcp__t__add" {
			if got := string(tool.Schema()); !strings.Contains(got, `"properties":{"b":{"type":"integer"},"a":{"type":"integer"}}`) &&
				!strings.Contains(got, `"properties": {"b": {"type": "integer"}, "a": {"type": "integer"}}`) {
				t.Errorf("add's schema = %s; want its properties b, a in the server's order", got)
			}
		}
	}
	tests := []struct {
		tool, args, want string
		isError          bool
	}{
		{"mcp__t__echo", `{"text": "hi"}`, "echo: hi", false},
		{"mcp__t__add", `{"b": 2, "a": 40}`, "42", false},
		{"mcp__t__env", ``, "hello from env", false},
		{"mcp__a__env", `{}`, "(the tool returned nothing)", false},
		{"mcp__t__fail", `{}`, "mcp__t__fail failed: the fail tool always fails", true},
		{"mcp__t__echo", `["text"]`, "mcp__t__echo: the arguments must be a JSON object", true},
	}
	for _, tt := range tests {
		r, err := call(t, s, tt.tool, tt.args)
		if err != nil || r.Content != tt.want || r.IsError != tt.isError {
			t.Errorf("%s(%s) = %+v, %v; want %q, IsError %v", tt.tool, tt.args, r, err, tt.want, tt.isError)
		}
	}
}

// TestResultCapped: a long answer is cut to the workspace's ResultChars
// with a marker.
func TestResultCapped(t *testing.T) {
	s := start(t, map[string]Server{"t": testServer("tools")}, Options{Allow: []string{"t"}})
	long := strings.Repeat("0123456789 ", 50)
	args, _ := json.Marshal(map[string]string{"text": strings.Repeat(long+"\n", 20)})
	ws, _ := tools.NewWorkspace(t.TempDir(), tools.Config{ResultChars: 300})
	var echo tools.Tool
	for _, tool := range s.Tools() {
		if tool.Name() == "mcp__t__echo" {
			echo = tool
		}
	}
	r, err := echo.Run(context.Background(), ws, args)
	if err != nil || len(r.Content) > 400 || !strings.Contains(r.Content, "cut]") {
		t.Errorf("echo of %d bytes = %d bytes %q, %v; want at most 300 and a cut marker", len(args), len(r.Content), r.Content, err)
	}
}

// TestPermissions: a call runs when an allow list names its server or
// the tool; else the user is asked; without a way to ask it is refused
// with a result saying how to allow it.
func TestPermissions(t *testing.T) {
	servers := map[string]Server{"t": testServer("tools")}
	yes := func(context.Context, string, json.RawMessage) (bool, error) { return true, nil }
	no := func(context.Context, string, json.RawMessage) (bool, error) { return false, nil }
	broken := func(context.Context, string, json.RawMessage) (bool, error) { return false, errors.New("no terminal") }
	tests := []struct {
		name  string
		o     Options
		tool  string
		want  string
		error string
	}{
		{name: "server allowed", o: Options{Allow: []string{"t"}}, tool: "mcp__t__echo", want: "echo: x"},
		{name: "tool allowed", o: Options{Allow: []string{"t__echo"}}, tool: "mcp__t__echo", want: "echo: x"},
		{name: "tool allowed by its full name", o: Options{Allow: []string{"mcp__t__echo"}}, tool: "mcp__t__echo", want: "echo: x"},
		{name: "another tool allowed", o: Options{Allow: []string{"t__add"}}, tool: "mcp__t__echo",
			want: "mcp__t__echo: refused: the user has not allowed this MCP tool (loop run --allow-mcp t__echo) and this run cannot ask; do the task without it"},
		{name: "nothing allowed, no terminal", tool: "mcp__t__echo", want: "mcp__t__echo: refused: the user has not allowed this MCP tool"},
		{name: "asked: yes", o: Options{Ask: yes}, tool: "mcp__t__echo", want: "echo: x"},
		{name: "asked: no", o: Options{Ask: no}, tool: "mcp__t__echo", want: "mcp__t__echo: refused: the user did not allow this call"},
		{name: "asking fails", o: Options{Ask: broken}, tool: "mcp__t__echo", error: "mcp: ask about mcp__t__echo: no terminal"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := start(t, servers, tt.o)
			r, err := call(t, s, tt.tool, `{"text": "x"}`)
			if tt.error != "" {
				if err == nil || err.Error() != tt.error {
					t.Errorf("call = %+v, %v; want the error %q", r, err, tt.error)
				}
				return
			}
			if err != nil || !strings.HasPrefix(r.Content, tt.want) || r.IsError != strings.Contains(tt.want, "refused") {
				t.Errorf("call = %+v, %v; want %q", r, err, tt.want)
			}
		})
	}
}

// TestStartErrors: a server that cannot start, exits or does not answer
// is an error naming it, with its exit status and the end of its stderr.
func TestStartErrors(t *testing.T) {
	tests := []struct {
		name   string
		server Server
		o      Options
		is     error
		want   string
	}{
		{"no such command", Server{Command: "mcptest-no-such-command"}, Options{}, nil,
			`mcp: start server s: command "mcptest-no-such-command": executable file not found in $PATH`},
		{"exits at once", testServer("exit"), Options{}, ErrExited,
			`mcp: start server s: the server exited (exit status 3); its stderr ends: "boom"`},
		{"never answers", testServer("hang"), Options{StartTimeout: 300 * time.Millisecond}, ErrTimeout,
			"mcp: start server s: no answer in time: the initialize handshake took more than 300ms"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.o.Dir = t.TempDir()
			s, err := Start(context.Background(), Config{Servers: map[string]Server{"s": tt.server}}, tt.o)
			if err == nil {
				s.Close()
				t.Fatalf("Start = nil error; want %q", tt.want)
			}
			if err.Error() != tt.want || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("Start = %q; want %q (wrapping %v)", err, tt.want, tt.is)
			}
		})
	}
}

// TestCallErrors: a call past the timeout and a call to a server that
// died are results the model reads, not errors.
func TestCallErrors(t *testing.T) {
	s := start(t, map[string]Server{"t": testServer("tools"), "d": testServer("die-on-call")},
		Options{Allow: []string{"t", "d"}, CallTimeout: 300 * time.Millisecond})
	r, err := call(t, s, "mcp__t__sleep", `{}`)
	if want := "mcp__t__sleep: no answer from MCP server t within 300ms; the call was abandoned"; err != nil || r.Content != want || !r.IsError {
		t.Errorf("sleep = %+v, %v; want %q", r, err, want)
	}
	if r, err := call(t, s, "mcp__t__echo", `{"text": "still here"}`); err != nil || r.Content != "echo: still here" {
		t.Errorf("echo after a timeout = %+v, %v; want the server to answer", r, err)
	}
	r, err = call(t, s, "mcp__d__echo", `{"text": "x"}`)
	want := `mcp__d__echo: MCP server d the server exited (exit status 4); its stderr ends: "dying on the first call"; its tools cannot run for the rest of this run`
	if err != nil || r.Content != want || !r.IsError {
		t.Errorf("a call that kills its server = %+v, %v; want %q", r, err, want)
	}
}

// TestCloseEndsWhatServersStarted: Close ends a server and the processes
// it started, which share its command line's mark.
func TestCloseEndsWhatServersStarted(t *testing.T) {
	mark := fmt.Sprintf("%d%d", 6000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	s, err := Start(context.Background(), Config{Servers: map[string]Server{"t": testServer("tools", mark)}}, Options{Dir: t.TempDir(), Allow: []string{"t"}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err := call(t, s, "mcp__t__spawn", `{}`); err != nil || r.IsError {
		s.Close()
		t.Fatalf("spawn = %+v, %v", r, err)
	}
	if n := len(withMark(mark)); n != 3 {
		t.Errorf("%d processes carry the mark before Close; want the supervisor, the server and its sleeper", n)
	}
	s.Close()
	s.Close()
	if left := withMark(mark); len(left) > 0 {
		t.Errorf("after Close these processes are left: %v", left)
	}
}

// withMark lists the command lines of the live processes that hold mark.
func withMark(mark string) []string {
	var out []string
	paths, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil || !strings.Contains(string(b), mark) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join(filepath.Dir(p), "stat"))
		if fields := strings.Fields(string(stat)); len(fields) > 2 && fields[2] == "Z" {
			continue // exited, not yet reaped by its parent
		}
		out = append(out, strings.ReplaceAll(string(b), "\x00", " "))
	}
	return out
}

// TestStartFailureStopsTheOthers: when one server does not start, Start
// stops those that did.
func TestStartFailureStopsTheOthers(t *testing.T) {
	mark := fmt.Sprintf("%d%d", 7000+os.Getpid()%1000, time.Now().UnixNano()%1000000)
	s, err := Start(context.Background(), Config{Servers: map[string]Server{"bad": testServer("exit"), "good": testServer("tools", mark)}}, Options{Dir: t.TempDir()})
	if err == nil {
		s.Close()
		t.Fatal("Start = nil error; want the bad server's")
	}
	if !errors.Is(err, ErrExited) || !strings.HasPrefix(err.Error(), "mcp: start server bad: ") {
		t.Errorf("Start = %v; want the bad server's exit", err)
	}
	if left := withMark(mark); len(left) > 0 {
		t.Errorf("after a failed Start these processes are left: %v", left)
	}
}

func TestObjectSchema(t *testing.T) {
	for _, tt := range []struct {
		schema string
		want   bool
	}{
		{`{"type": "object", "properties": {}}`, true},
		{`{"properties": {"a": {"type": "string"}}}`, true},
		{`{"type": "string"}`, false},
		{`{"type": ["object", "null"]}`, false},
		{`[]`, false},
	} {
		if got := objectSchema(json.RawMessage(tt.schema)); got != tt.want {
			t.Errorf("objectSchema(%s) = %v, want %v", tt.schema, got, tt.want)
		}
	}
}
