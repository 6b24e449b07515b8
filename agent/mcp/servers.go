package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/loopagent/loop/agent/tools"
)

// Options say how the servers run. The zero value runs them in the
// current directory, refuses every call that is not in an allow list, and
// uses the default timeouts.
type Options struct {
	// Dir is where the servers start: the workspace.
	Dir string
	// Allow lists more of what runs without asking, as Config.Allow
	// (loop run --allow-mcp).
	Allow []string
	// Ask asks the user about a call that no allow list allows; nil
	// refuses such calls with a result that says how to allow them.
	Ask Ask
	// CallTimeout bounds each call; 0 means 2 minutes. A call past it
	// is abandoned (the server is told it was cancelled) and the model
	// reads that it timed out.
	CallTimeout time.Duration
	// StartTimeout bounds a server's start, from its process to its
	// list of tools; 0 means 1 minute.
	StartTimeout time.Duration
	// Logger receives the SDK's log; nil discards it.
	Logger *slog.Logger
}

func (o Options) callTimeout() time.Duration  { return orDuration(o.CallTimeout, 2*time.Minute) }
func (o Options) startTimeout() time.Duration { return orDuration(o.StartTimeout, time.Minute) }

func (o Options) logger() *slog.Logger {
	if o.Logger == nil {
		return discard
	}
	return o.Logger
}

func orDuration(d, def time.Duration) time.Duration {
	if d <= 0 {
		return def
	}
	return d
}

// Servers are started servers and their tools. Close stops them; a
// Servers is safe for concurrent use.
type Servers struct {
	servers  []*server
	tools    []*Tool
	warnings []string
}

// Start starts every server of cfg at once, in its own process group
// under the sandbox's supervisor, and lists its tools. One server that
// does not start, or whose tools cannot be listed, stops the others and
// is an *Error naming it. The servers keep running until Close; they end
// with loop even when it is killed.
func Start(ctx context.Context, cfg Config, o Options) (*Servers, error) {
	names := cfg.Names()
	started := make([]*server, len(names))
	listed := make([][]*Tool, len(names))
	notes := make([][]string, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, name := range names {
		wg.Go(func() {
			started[i], listed[i], notes[i], errs[i] = startAndList(ctx, name, cfg.Servers[name], o)
		})
	}
	wg.Wait()
	s := &Servers{warnings: slices.Clone(cfg.Notes)}
	for i := range names {
		if started[i] != nil {
			s.servers = append(s.servers, started[i])
		}
	}
	for _, err := range errs {
		if err != nil {
			s.Close()
			return nil, err
		}
	}
	allow := append(slices.Clone(cfg.Allow), o.Allow...)
	seen := map[string]bool{}
	for i := range names {
		s.warnings = append(s.warnings, notes[i]...)
		for _, t := range listed[i] {
			if seen[t.name] {
				s.warnings = append(s.warnings, fmt.Sprintf("mcp server %s: two tools are named %s once made a tool name; the second is left out", names[i], t.name))
				continue
			}
			seen[t.name] = true
			t.allowed, t.ask = allows(allow, t), o.Ask
			s.tools = append(s.tools, t)
		}
	}
	s.warnings = append(s.warnings, unknownAllows(allow, names)...)
	return s, nil
}

// startAndList starts one server and lists its tools.
func startAndList(ctx context.Context, name string, cfg Server, o Options) (*server, []*Tool, []string, error) {
	srv, err := startServer(ctx, name, cfg, o)
	if err != nil {
		return nil, nil, nil, err
	}
	listCtx, cancel := context.WithTimeout(ctx, o.startTimeout())
	defer cancel()
	var out []*Tool
	var warnings []string
	for t, err := range srv.session.Tools(listCtx, nil) {
		if err != nil {
			return srv, nil, nil, &Error{Op: "list tools of", Subject: name, Err: srv.why(listCtx, err, o.startTimeout(), "tools/list")}
		}
		schema := srv.schemas.schema(t)
		if !objectSchema(schema) {
			warnings = append(warnings, fmt.Sprintf("mcp server %s: tool %s left out: its input schema is not an object schema", name, t.Name))
			continue
		}
		desc := strings.TrimSpace(t.Description)
		if desc == "" {
			desc = t.Title
		}
		out = append(out, &Tool{name: "mcp__" + name + "__" + toolName(t.Name), remote: t.Name, description: desc,
			schema: schema, srv: srv})
	}
	return srv, out, warnings, nil
}

// objectSchema reports whether a tool's input schema takes an object, as
// MCP requires: a call's arguments are one. No "type" counts as one.
func objectSchema(schema json.RawMessage) bool {
	var s struct {
		Type json.RawMessage `json:"type"`
	}
	if json.Unmarshal(schema, &s) != nil {
		return false
	}
	return len(s.Type) == 0 || string(s.Type) == `"object"`
}

// notInName is what a tool's name may not hold: the OpenAI API's names
// are letters, digits, "_" and "-".
var notInName = regexp.MustCompile(`[^A-Za-z0-9_-]`)

// toolName is a server's tool name made fit for a tool name: other
// characters become "_".
func toolName(remote string) string {
	if remote == "" {
		return "_"
	}
	return notInName.ReplaceAllString(remote, "_")
}

// allows reports whether an allow list lets t run without asking: an
// entry names its server, or its server and name (SERVER__TOOL, with or
// without the mcp__ in front).
func allows(allow []string, t *Tool) bool {
	short := strings.TrimPrefix(t.name, "mcp__")
	for _, a := range allow {
		a = strings.TrimPrefix(a, "mcp__")
		if a == t.srv.name || a == short || a == t.srv.name+"__"+t.remote {
			return true
		}
	}
	return false
}

// unknownAllows warns about allow entries that name no started server.
func unknownAllows(allow, servers []string) []string {
	var out []string
	for _, a := range allow {
		server, _, _ := strings.Cut(strings.TrimPrefix(a, "mcp__"), "__")
		if !slices.Contains(servers, server) {
			out = append(out, fmt.Sprintf("allow %q: no MCP server %q is configured", a, server))
		}
	}
	return out
}

// Tools are the servers' tools, server by server in the order of their
// names, each server's in the order it listed them. A nil Servers has
// none.
func (s *Servers) Tools() []tools.Tool {
	if s == nil {
		return nil
	}
	out := make([]tools.Tool, len(s.tools))
	for i, t := range s.tools {
		out[i] = t
	}
	return out
}

// Warnings say what Start left out, and why: servers that are not stdio
// servers, tools whose input is not an object or whose names collide,
// allow entries that name no server.
func (s *Servers) Warnings() []string {
	if s == nil {
		return nil
	}
	return s.warnings
}

// Close stops every server: it closes the server's standard input, gives
// it a moment to exit, then ends it and every process it started. A nil
// Servers, or a second Close, does nothing.
func (s *Servers) Close() {
	if s == nil {
		return
	}
	var wg sync.WaitGroup
	for _, srv := range s.servers {
		wg.Go(srv.Close)
	}
	wg.Wait()
}
