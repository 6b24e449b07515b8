// Package mcptest is a small MCP server for tests, written with the same
// SDK's server side. A test binary becomes the server when it starts
// with the arguments Arg and a mode: its init calls Main, which serves
// on standard input and output and exits.
//
//	func init() { mcptest.Main() }
//
//	command, args := mcptest.Server(os.Args[0], "tools")
//	cfg := mcp.Config{Servers: map[string]mcp.Server{"t": {Command: command, Args: args}}}
//
// Main runs before TestMain, so the sandbox's supervisor, which is the
// test binary started again with other arguments, is not taken for the
// server. The modes:
//
//   - "tools": echo {text} answers "echo: TEXT"; add {a, b} answers the
//     sum; env answers $MCPTEST_GREETING; fail answers a tool error; sleep
//     answers only when the call is cancelled; broken has a schema with a
//     look-ahead pattern, which no grammar can hold; spawn starts a child
//     "sleep" that carries the mode's third argument, and answers its
//     process id. The spawn mark is a number of seconds, so that the sleep
//     lasts and its command line names it.
//   - "echo": the echo tool alone.
//   - "exit": writes "boom" to stderr and exits with status 3 at once.
//   - "hang": reads its input and never answers.
//   - "die-on-call": lists echo, then exits with status 4 on the first
//     call.
package mcptest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Arg is the first argument that makes a test binary the server.
const Arg = "mcptest-server"

// Server is the config entry of a server in mode, run by the test binary
// bin; more are further arguments (spawn's mark).
func Server(bin, mode string, more ...string) (command string, args []string) {
	return bin, append([]string{Arg, mode}, more...)
}

// Main serves and exits when the process was started as the server;
// otherwise it returns at once.
func Main() {
	if len(os.Args) < 3 || os.Args[1] != Arg {
		return
	}
	mode := os.Args[2]
	switch mode {
	case "exit":
		fmt.Fprintln(os.Stderr, "boom")
		os.Exit(3)
	case "hang":
		io.Copy(io.Discard, os.Stdin)
		os.Exit(0)
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "mcptest", Version: "1"}, nil)
	switch mode {
	case "echo":
		addEcho(s)
	case "die-on-call":
		s.AddTool(tool("echo", `{"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}`),
			func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				fmt.Fprintln(os.Stderr, "dying on the first call")
				os.Exit(4)
				return nil, nil
			})
	default:
		addTools(s, os.Args[3:])
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	os.Exit(0)
}

// tool is a tool with a raw input schema.
func tool(name, schema string) *mcp.Tool {
	return &mcp.Tool{Name: name, Description: "The test server's " + name + " tool, which tests call.", InputSchema: json.RawMessage(schema)}
}

// text is a result of one text block.
func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

// addEcho adds the echo tool.
func addEcho(s *mcp.Server) {
	s.AddTool(tool("echo", `{"type": "object", "properties": {"text": {"type": "string", "description": "what to echo"}}, "required": ["text"]}`),
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ Text string }
			json.Unmarshal(req.Params.Arguments, &in)
			return text("echo: " + in.Text), nil
		})
}

// addTools adds the "tools" mode's tools; more holds spawn's mark.
func addTools(s *mcp.Server, more []string) {
	addEcho(s)
	// The properties come in an order no map keeps: b before a.
	s.AddTool(tool("add", `{"type": "object", "properties": {"b": {"type": "integer"}, "a": {"type": "integer"}}, "required": ["b", "a"]}`),
		func(_ context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			var in struct{ A, B int }
			json.Unmarshal(req.Params.Arguments, &in)
			return text(strconv.Itoa(in.A + in.B)), nil
		})
	s.AddTool(tool("env", `{"type": "object"}`),
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text(os.Getenv("MCPTEST_GREETING")), nil
		})
	s.AddTool(tool("fail", `{"type": "object"}`),
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			r := text("the fail tool always fails")
			r.IsError = true
			return r, nil
		})
	s.AddTool(tool("sleep", `{"type": "object"}`),
		func(ctx context.Context, _ *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	s.AddTool(tool("broken", `{"type": "object", "properties": {"q": {"type": "string", "pattern": "^(?=a)b$"}}}`),
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return text("broken ran"), nil
		})
	s.AddTool(tool("spawn", `{"type": "object"}`),
		func(context.Context, *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			mark := "0"
			if len(more) > 0 {
				mark = more[0]
			}
			cmd := exec.Command("sleep", mark)
			if err := cmd.Start(); err != nil {
				return nil, err
			}
			return text(strconv.Itoa(cmd.Process.Pid)), nil
		})
}
