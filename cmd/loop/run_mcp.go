package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/loopagent/loop/agent/mcp"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/internal/termtext"
)

// workspaceMCP is the file of MCP servers a repository may carry, as
// Claude Code reads it.
const workspaceMCP = ".mcp.json"

// mcpFlags are `loop run`'s MCP servers: which config files to read, what
// runs without asking, and, once started, the servers.
type mcpFlags struct {
	files     []string      // --mcp
	workspace bool          // --mcp-workspace
	allow     []string      // --allow-mcp
	timeout   time.Duration // --mcp-timeout
	list      bool          // --mcp-tools
	servers   *mcp.Servers  // started by start
}

func (m *mcpFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&m.files, "mcp", nil, `an MCP config file, {"mcpServers": {"NAME": {"command": ..., "args": [...], "env": {...}}}, "allow": [...]}, whose servers start with the run (repeatable; the user's mcp.json in loop's config directory is read first when it exists)`)
	fs.BoolVar(&m.workspace, "mcp-workspace", false, "also start the servers of the workspace's .mcp.json, which are never started otherwise: starting a server runs its command, and the repository may be someone else's (its allow list is ignored; name it with --mcp to trust that too)")
	fs.StringArrayVar(&m.allow, "allow-mcp", nil, "let an MCP server's tools (NAME) or one tool (NAME__TOOL) run without asking (repeatable); other MCP calls are asked on the terminal, and refused without one; --yes does not cover them")
	fs.DurationVar(&m.timeout, "mcp-timeout", 2*time.Minute, "time limit of an MCP tool call; the model reads that it timed out")
	fs.BoolVar(&m.list, "mcp-tools", false, "start the MCP servers, print their tools as an OpenAI tools array (for loop lint and loop grammar --tools) and exit")
}

// start reads the config files and starts their servers in dir. With no
// file and no server it starts nothing and returns nil.
func (m *mcpFlags) start(ctx context.Context, dir string, stderr io.Writer) error {
	if m.timeout <= 0 {
		return usagef("--mcp-timeout %v: want more than 0", m.timeout)
	}
	cfg, err := m.config(dir, stderr)
	if err != nil || len(cfg.Servers) == 0 {
		return err
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	m.servers, err = mcp.Start(ctx, cfg, mcp.Options{Dir: abs, Allow: m.allow, Ask: askMCPOn(os.Stdin, stderr), CallTimeout: m.timeout})
	if err != nil {
		return err
	}
	for _, w := range m.servers.Warnings() {
		fmt.Fprintf(stderr, "loop run: %s\n", w)
	}
	return nil
}

// config merges, in order, the user's mcp.json, the workspace's
// .mcp.json with --mcp-workspace (without its allow list), and the --mcp
// files: a later server replaces an earlier one of its name. Without
// --mcp-workspace the workspace's file is not read, only mentioned.
func (m *mcpFlags) config(dir string, stderr io.Writer) (mcp.Config, error) {
	var cfgs []mcp.Config
	if user := userMCPConfig(); user != "" {
		cfg, err := readMCPConfig(user, true)
		if err != nil {
			return cfg, err
		}
		cfgs = append(cfgs, cfg)
	}
	ws := filepath.Join(dir, workspaceMCP)
	if _, err := os.Stat(ws); err == nil && !m.names(ws) {
		if !m.workspace {
			fmt.Fprintf(stderr, "loop run: %s is not read: its servers start only with --mcp-workspace or --mcp %s\n", ws, ws)
		} else {
			cfg, err := readMCPConfig(ws, false)
			if err != nil {
				return cfg, err
			}
			cfg.Allow = nil
			cfgs = append(cfgs, cfg)
		}
	}
	for _, file := range m.files {
		cfg, err := readMCPConfig(file, false)
		if err != nil {
			return cfg, err
		}
		cfgs = append(cfgs, cfg)
	}
	return mcp.Merge(cfgs...), nil
}

// names reports whether --mcp names file.
func (m *mcpFlags) names(file string) bool {
	for _, f := range m.files {
		if sameFile(f, file) {
			return true
		}
	}
	return false
}

func sameFile(a, b string) bool {
	x, err1 := os.Stat(a)
	y, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(x, y)
}

// userMCPConfig is the user's own mcp.json in loop's config directory
// (~/.config/loop/mcp.json on Linux), or "" when there is none.
func userMCPConfig() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	file := filepath.Join(dir, "loop", "mcp.json")
	if _, err := os.Stat(file); err != nil {
		return ""
	}
	return file
}

// readMCPConfig reads and parses one config file; optional is a file
// that may be missing.
func readMCPConfig(file string, optional bool) (mcp.Config, error) {
	b, err := os.ReadFile(file)
	if optional && errors.Is(err, fs.ErrNotExist) {
		return mcp.Config{}, nil
	}
	if err != nil {
		return mcp.Config{}, &mcp.Error{Op: "read config", Subject: file, Err: unwrapPath(err)}
	}
	return mcp.ParseConfig(file, b)
}

// unwrapPath is a *fs.PathError's cause, so that the path is not named
// twice.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// tools are the started servers' tools; none before start.
func (m *mcpFlags) tools() []tools.Tool { return m.servers.Tools() }

// close stops the servers.
func (m *mcpFlags) close() { m.servers.Close() }

// printTools writes every MCP tool as an OpenAI tools array, those the
// agent would leave out too: loop lint and loop grammar --tools say why.
func (m *mcpFlags) printTools(stdout io.Writer) error {
	set, err := tools.NewSet(m.tools()...)
	if err != nil {
		return err
	}
	return writeJSON(stdout, set.Definitions())
}

// askMCPOn asks the user on the terminal before an MCP call that no allow
// list allows, showing the arguments the model wrote without their
// terminal controls. Without a terminal on in it is nil: such calls are
// refused.
func askMCPOn(in *os.File, stderr io.Writer) mcp.Ask {
	if !term.IsTerminal(int(in.Fd())) {
		return nil
	}
	return func(ctx context.Context, tool string, args json.RawMessage) (bool, error) {
		shown := strings.ReplaceAll(termtext.Strip(strings.ToValidUTF8(string(args), "\uFFFD")), "\n", " ")
		if r := []rune(shown); len(r) > 300 {
			shown = string(r[:300]) + "..."
		}
		fmt.Fprintf(stderr, "\ncall %s %s? [y/N] ", tool, shown)
		line, err := bufio.NewReader(in).ReadString('\n')
		if err != nil && !errors.Is(err, io.EOF) {
			return false, err
		}
		return strings.EqualFold(strings.TrimSpace(line), "y"), nil
	}
}
