package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
)

// Config is what MCP config files say: the servers to start and the tools
// that run without asking. Files have the shape Claude Code reads
// (mcp.json, .mcp.json):
//
//	{
//	  "mcpServers": {
//	    "github": {"command": "github-mcp-server", "args": ["stdio"], "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}"}},
//	    "docs":   {"command": "npx", "args": ["-y", "some-docs-server"]}
//	  },
//	  "allow": ["docs", "github__get_issue"]
//	}
type Config struct {
	// Servers are the stdio servers by name.
	Servers map[string]Server
	// Allow lists what runs without asking: a server's name allows all
	// its tools, SERVER__TOOL (or mcp__SERVER__TOOL) one tool.
	Allow []string
	// Notes say which servers a file named and loop left out, and why
	// (a server over HTTP: loop starts stdio servers only).
	Notes []string
}

// Server is one stdio server: the command loop starts, in the workspace,
// and talks to over its standard input and output.
type Server struct {
	// Command is the program, looked up in PATH unless it holds a slash.
	Command string
	// Args are its arguments.
	Args []string
	// Env is added to loop's own environment.
	Env map[string]string
	// File is the config file that named the server, for messages.
	File string
}

// serverName is what a server may be called: the name goes into the tool
// names (mcp__NAME__TOOL) and into --allow-mcp NAME__TOOL, so it holds no
// "__" and nothing a tool name cannot.
var serverName = regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]|_[A-Za-z0-9-])*$`)

// ParseConfig reads a config file's content; file names it in errors and
// in the servers. ${VAR} and ${VAR:-default} in a command, its arguments
// and its environment take their value from loop's environment, as in
// Claude Code; a variable that is unset and has no default is an error.
// A server with a "url" or a "type" other than "stdio" is left out with a
// note.
func ParseConfig(file string, data []byte) (Config, error) {
	var raw struct {
		Servers map[string]json.RawMessage `json:"mcpServers"`
		Allow   []string                   `json:"allow"`
	}
	if err := json.Unmarshal(data, &raw); err != nil {
		return Config{}, &Error{Op: "parse config", Subject: file, Err: jsonError(data, err)}
	}
	if raw.Servers == nil {
		return Config{}, &Error{Op: "parse config", Subject: file, Err: fmt.Errorf(`%w: no "mcpServers" object`, ErrConfig)}
	}
	cfg := Config{Servers: map[string]Server{}, Allow: raw.Allow}
	names := make([]string, 0, len(raw.Servers))
	for name := range raw.Servers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		s, note, err := parseServer(file, name, raw.Servers[name])
		switch {
		case err != nil:
			return Config{}, &Error{Op: "parse config", Subject: file, Err: err}
		case note != "":
			cfg.Notes = append(cfg.Notes, note)
		default:
			cfg.Servers[name] = s
		}
	}
	return cfg, nil
}

// parseServer reads one entry of "mcpServers". A server loop does not
// start comes back as a note.
func parseServer(file, name string, data json.RawMessage) (Server, string, error) {
	if !serverName.MatchString(name) {
		return Server{}, "", fmt.Errorf(`%w: server %q: a name is letters, digits, "-" and single "_"`, ErrConfig, name)
	}
	var e struct {
		Type    string            `json:"type"`
		URL     string            `json:"url"`
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Env     map[string]string `json:"env"`
	}
	if err := json.Unmarshal(data, &e); err != nil {
		return Server{}, "", fmt.Errorf("server %q: %w", name, err)
	}
	if (e.Type != "" && e.Type != "stdio") || e.URL != "" {
		return Server{}, fmt.Sprintf("%s: server %q is not a stdio server (type %q); loop starts stdio servers only", file, name, e.Type), nil
	}
	var err error
	expand := func(s string) string {
		v, xerr := expandVars(s)
		if xerr != nil && err == nil {
			err = fmt.Errorf("%w: server %q: %v", ErrConfig, name, xerr)
		}
		return v
	}
	s := Server{Command: expand(e.Command), File: file}
	for _, a := range e.Args {
		s.Args = append(s.Args, expand(a))
	}
	if len(e.Env) > 0 {
		s.Env = map[string]string{}
		for k, v := range e.Env {
			s.Env[k] = expand(v)
		}
	}
	if err == nil && strings.TrimSpace(s.Command) == "" {
		err = fmt.Errorf(`%w: server %q: no "command"`, ErrConfig, name)
	}
	return s, "", err
}

// varRef is ${VAR} or ${VAR:-default}.
var varRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)(:-([^}]*))?\}`)

// expandVars replaces each ${VAR} and ${VAR:-default} of s; $VAR alone
// stays as written.
func expandVars(s string) (string, error) {
	var missing []string
	out := varRef.ReplaceAllStringFunc(s, func(ref string) string {
		m := varRef.FindStringSubmatch(ref)
		if v, ok := os.LookupEnv(m[1]); ok && (v != "" || m[2] == "") {
			return v
		}
		if m[2] != "" {
			return m[3]
		}
		missing = append(missing, m[1])
		return ""
	})
	if len(missing) > 0 {
		return "", fmt.Errorf("${%s} is not set and has no default", missing[0])
	}
	return out, nil
}

// jsonError names the line and column of a syntax error.
func jsonError(data []byte, err error) error {
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	var off int64
	switch {
	case errors.As(err, &syn):
		off = syn.Offset
	case errors.As(err, &typ):
		off = typ.Offset
	default:
		return err
	}
	before := data[:min(int(off), len(data))]
	line := bytes.Count(before, []byte("\n")) + 1
	col := len(before) - bytes.LastIndexByte(before, '\n') - 1 // the offset is past the byte at fault
	return fmt.Errorf("line %d, column %d: %w", line, col, err)
}

// Merge joins configs in order: a server a later config names replaces
// an earlier one of that name; the allow lists and notes add up.
func Merge(cfgs ...Config) Config {
	out := Config{Servers: map[string]Server{}}
	for _, c := range cfgs {
		for name, s := range c.Servers {
			out.Servers[name] = s
		}
		out.Allow = append(out.Allow, c.Allow...)
		out.Notes = append(out.Notes, c.Notes...)
	}
	return out
}

// Names lists the servers' names in order.
func (c Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for name := range c.Servers {
		names = append(names, name)
	}
	slices.Sort(names)
	return names
}
