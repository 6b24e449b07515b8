package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopagent/loop/agent/tools"
)

// Tool is one tool of a server, offered to the model as
// mcp__SERVER__TOOL. It is a tools.Tool: the agent validates, constrains
// and repairs its calls as any other's.
type Tool struct {
	name        string // mcp__SERVER__TOOL
	remote      string // the tool's name on its server
	description string
	schema      json.RawMessage
	srv         *server
	allowed     bool // runs without asking
	ask         Ask
}

// Ask asks the user whether a call of an MCP tool may run: the tool's
// name (mcp__SERVER__TOOL) and the call's arguments. An error is a
// failure of the harness (the terminal went away), not a no.
type Ask func(ctx context.Context, tool string, args json.RawMessage) (bool, error)

func (t *Tool) Name() string            { return t.name }
func (t *Tool) Description() string     { return t.description }
func (t *Tool) Schema() json.RawMessage { return t.schema }

// ReadOnly is false: a server's tools may change anything, and the
// user's answers to Ask come one at a time.
func (t *Tool) ReadOnly() bool { return false }

// Server is the name of the tool's server, and Remote the tool's name
// there.
func (t *Tool) Server() string { return t.srv.name }
func (t *Tool) Remote() string { return t.remote }

// Run sends the call to the server, once the user allowed it, and returns
// what the server answered, capped to the workspace's ResultChars. A
// refusal, a call the server fails, a server that has exited and a call
// that takes longer than the call timeout are results with IsError set;
// an error from Ask is returned as it is.
func (t *Tool) Run(ctx context.Context, ws *tools.Workspace, args json.RawMessage) (tools.Result, error) {
	if r, ok, err := t.permit(ctx, args); !ok || err != nil {
		return r, err
	}
	arguments := bytes.TrimSpace(args)
	if len(arguments) == 0 || string(arguments) == "null" {
		arguments = []byte("{}")
	}
	if arguments[0] != '{' || !json.Valid(arguments) {
		return t.errorf("the arguments must be a JSON object"), nil
	}
	callCtx, cancel := context.WithTimeout(ctx, t.srv.timeout)
	defer cancel()
	res, err := t.srv.session.CallTool(callCtx, &sdk.CallToolParams{Name: t.remote, Arguments: json.RawMessage(arguments)})
	switch {
	case ctx.Err() != nil:
		return t.errorf("stopped: %v", context.Cause(ctx)), nil
	case err != nil:
		return t.failed(callCtx, err), nil
	}
	return t.result(ws, res), nil
}

// permit decides whether the call runs: allowed by the user's list, or
// asked. Without Ask the call is refused with what would allow it.
func (t *Tool) permit(ctx context.Context, args json.RawMessage) (tools.Result, bool, error) {
	if t.allowed {
		return tools.Result{}, true, nil
	}
	if t.ask == nil {
		return t.errorf("refused: the user has not allowed this MCP tool (loop run --allow-mcp %s__%s) and this run cannot ask; do the task without it",
			t.srv.name, strings.TrimPrefix(t.name, "mcp__"+t.srv.name+"__")), false, nil
	}
	ok, err := t.ask(ctx, t.name, args)
	if err != nil {
		return tools.Result{}, false, &Error{Op: "ask about", Subject: t.name, Err: err}
	}
	if !ok {
		return t.errorf("refused: the user did not allow this call; choose another way or ask the user"), false, nil
	}
	return tools.Result{}, true, nil
}

// failed is the result of a call that got no answer: the server exited,
// did not answer within the call timeout, or refused the request.
func (t *Tool) failed(callCtx context.Context, err error) tools.Result {
	var rpc *jsonrpc.Error
	if errors.As(err, &rpc) {
		return t.errorf("the server refused the call: %s", rpc.Message)
	}
	err = t.srv.why(callCtx, err, t.srv.timeout, "the call")
	switch {
	case errors.Is(err, ErrExited):
		return t.errorf("MCP server %s %v; its tools cannot run for the rest of this run", t.srv.name, err)
	case errors.Is(err, ErrTimeout):
		return t.errorf("no answer from MCP server %s within %v; the call was abandoned", t.srv.name, t.srv.timeout)
	}
	return t.errorf("%v", err)
}

// errorf is a result with IsError, naming the tool.
func (t *Tool) errorf(format string, args ...any) tools.Result {
	return tools.Result{Content: t.name + ": " + fmt.Sprintf(format, args...), IsError: true}
}
