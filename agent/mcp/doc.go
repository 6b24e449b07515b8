// Package mcp offers the tools of MCP servers (the Model Context
// Protocol) to the agent beside its own. It starts each server over stdio
// with github.com/modelcontextprotocol/go-sdk, lists its tools, and
// exposes each as a tools.Tool named mcp__SERVER__TOOL, as Claude Code
// names them, so that the rest of the agent is unchanged: the tool's
// input schema goes into the call grammar and the validator, its calls
// are repaired and retried, and its results are capped like any other's.
//
//	cfg, err := mcp.ParseConfig("mcp.json", data) // {"mcpServers": {...}}
//	servers, err := mcp.Start(ctx, cfg, mcp.Options{Dir: workspace, Allow: []string{"docs"}})
//	if err != nil {
//		return err // a server that did not start, named
//	}
//	defer servers.Close()
//	settings.MoreTools = servers.Tools()
//	for _, w := range servers.Warnings() {
//		log.Print(w)
//	}
//
// Config. A file has the shape Claude Code and its peers read:
// {"mcpServers": {"NAME": {"command": ..., "args": [...], "env": {...}}},
// "allow": [...]}. ${VAR} and ${VAR:-default} take loop's environment.
// Servers over HTTP are left out with a note. Merge joins files, a later
// one's server replacing an earlier one of that name. A file is trusted:
// starting a server runs its command, so a caller never starts the
// servers of a file the user did not choose (a repository's .mcp.json).
//
// Lifetime. Start starts every server at once, each under the sandbox's
// supervisor without the kernel sandbox (the servers are the user's own
// programs, and may need the network): each runs in a process group of
// its own, and what it starts ends with it, and with loop, even when loop
// is killed. Start waits for each server's handshake and tool list, so
// the tools are known before the first request and stay the same for
// the run (a server's tools/list_changed is not followed, so that the
// prompt's tool block, and its cache, stay the same). Close closes each
// server's standard input, waits a moment, then ends it and everything
// it started. The caller must call sandbox.Main at its start, as for the
// shell tool.
//
// Permissions. A call runs when an allow list (Config.Allow,
// Options.Allow) names its server (all its tools) or SERVER__TOOL;
// otherwise Options.Ask asks the user, and without Ask (no terminal) the
// call is refused with a result that tells the model to do without it.
//
// Results and errors. A call's answer becomes text: the text of its
// content blocks, a note for images, audio and binary resources, the
// structured content as JSON when there is nothing else; cut to the
// workspace's ResultChars from the start. A tool error, a refusal, a
// server that exited, a call past Options.CallTimeout are results with
// IsError, which the model reads. A harness failure is an *Error with an
// Op, the file or server, and a cause: a config that does not parse
// (with its line and column), a server that does not start, exits (its
// exit status and the end of its stderr) or does not answer in time
// (ErrExited, ErrTimeout, ErrConfig).
//
// Schemas. A tool's input schema is kept as the server wrote it, key
// order included (the SDK's own decoding would sort the properties). One
// that the call grammar or the validator cannot compile is the agent's to
// leave out, with a warning (loop.Settings.MoreTools); loop run
// --mcp-tools prints the tools as an OpenAI tools array for loop lint and
// loop grammar --tools.
package mcp
