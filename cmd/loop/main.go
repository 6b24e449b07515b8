// Command loop is one Go binary that runs small local GGUF models in
// process (llama.cpp through cgo) as reliable coding agents, offline and
// without a server. Around the agent it inspects, benchmarks, evaluates,
// quantizes, packs and finetunes those models:
//
//	loop info -m model.gguf [--ctx N]
//	loop tokenize -m model.gguf [--pieces] [--no-parse-special] [-f FILE | TEXT]
//	loop complete -m model.gguf -p PROMPT [-n N] [--temp T] [--seed S] [--grammar-file F]
//	loop bench -m model.gguf [-p 512] [-n 128] [-t N] [-r 3] [--json]
//	loop explain-sampling [--json]
//	loop grammar --check FILE [-m model.gguf] | --schema FILE | --tools FILE [--tool-choice C]
//	loop template -m model.gguf --messages conv.json [--tools tools.json] [--chat-template-file F]
//	loop chat -m model.gguf --messages conv.json [--tools tools.json] [--tool-choice required] [--json]
//	loop run -m model.gguf [-C DIR] "TASK"   (or --script FILE; without TASK, one task per line)
//	loop replay [-C DIR] TRANSCRIPT.jsonl
//	loop lint tools.json [--no-schema] [--json]
//	loop context-plan [-c 8192,16384,32768] [--triggers] [--json]
//	loop map [-C DIR] [--tokens N] [--file PATH]... [-m model.gguf] [--json]
//	loop eval [--suite NAME|DIR] [--config NAME|FILE]... [--seeds N] [--json] [--html FILE] | --plan P1 P2
//	loop choose [--budget GB] [-c CTX] [--kv-type T] [--passed FILE=K/N]... FILE.gguf...
//	loop kld BASE.gguf OTHER.gguf [-f TEXT]
//	loop quantize IN.gguf OUT.gguf TYPE
//	loop pack -m FILE.gguf -o TOOL
//	loop train -m BASE.gguf --data chats.jsonl -o OUT.gguf [--epochs N] [--ctx N] [--lr F] [--seed S] [-t N] [--val F]
//
// `loop help` (or no command) prints the commands and what each does;
// `loop COMMAND --help` prints a command's flags.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/loopagent/loop/agent/sandbox"
	"github.com/loopagent/loop/internal/variants"
)

// command is one subcommand: it parses its own flags from args and writes
// to the injected streams.
type command struct {
	name    string
	summary string
	run     func(ctx context.Context, args []string, stdout, stderr io.Writer) error
}

var commands = []command{
	{"info", "print a model's metadata, system info and memory estimate", runInfo},
	{"tokenize", "tokenize text with a model's vocabulary", runTokenize},
	{"complete", "complete a raw prompt", runComplete},
	{"bench", "measure prefill, decode and prompt-cache reuse", runBench},
	{"explain-sampling", "show how temperature, min_p and a repeat penalty change a tool call's odds", runExplainSampling},
	{"grammar", "check a GBNF grammar, or build one from a JSON Schema or tools", runGrammar},
	{"template", "render a conversation with the model's chat template and count its tokens", runTemplate},
	{"chat", "complete a chat with tools: render, generate under the call grammar, parse, validate", runChat},
	{"accumulate", "join a streamed chat completion (llama-server's or loop chat --sse) as a client does, and check its calls", runAccumulate},
	{"run", "run the agent on a task in a workspace (or read tasks from standard input)", runRun},
	{"sessions", "list this workspace's sessions: time, task, outcome, steps, disk use (continue one with loop run --continue or --resume ID)", runSessions},
	{"replay", "run a transcript's model outputs again through today's parser and loop", runReplay},
	{"lint", "check tool definitions: descriptions, parameters, nesting, overlaps, schema rules", runLint},
	{"context-plan", "print the context settings derived from each window size", runContextPlan},
	{"map", "print a repository map: files and declarations, ranked, within a token budget", runMap},
	{"eval", "run scenarios against agent configurations: pass rates with Wilson intervals, compared", runEval},
	{"choose", "pick a GGUF file: memory at a context, trained context, template tools, license, ranked by eval results", runChoose},
	{"kld", "compare two files of one model: KL divergence of next-token distributions, same-top rate, perplexities", runKLD},
	{"quantize", "write a model with its weights in another type (llama-quantize)", runQuantize},
	{"pack", "write one executable that carries a GGUF model: loop with the model inside", runPack},
	{"train", "finetune every weight of a qwen2 F32 model on agent chats (JSONL), the assistant's tokens", runTrain},
}

func main() {
	sandbox.Main() // the supervisor of the commands the agent runs
	launchedFrom = os.Getenv(variants.EnvExe)
	os.Unsetenv(variants.EnvExe) // not for the commands loop runs
	// Ctrl-C, SIGTERM (kill, a container stopping) and SIGHUP (the
	// terminal closing) cancel the run, which ends with its outcome line
	// and transcript; a second one of any of them ends the process.
	ctx, stop := signal.NotifyContext(context.Background(), cancelSignals...)
	go func() {
		<-ctx.Done()
		stop()
	}()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// cancelSignals are the signals that cancel a command's context.
var cancelSignals = []os.Signal{os.Interrupt, syscall.SIGTERM, syscall.SIGHUP}

// run dispatches to a subcommand and turns its error into an exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		usage(stderr)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	for _, c := range commands {
		if c.name != args[0] {
			continue
		}
		err := c.run(ctx, args[1:], stdout, stderr)
		switch {
		case err == nil:
			return 0
		case errors.Is(err, pflag.ErrHelp):
			return 0
		case errors.As(err, new(usageError)):
			fmt.Fprintf(stderr, "loop %s: %v\n", c.name, err)
			return 2
		case errors.As(err, new(outcomeErr)):
			// The outcome line was shown already; its kind is the code.
			return err.(outcomeErr).o.Kind.ExitCode()
		case errors.Is(err, context.Canceled):
			fmt.Fprintf(stderr, "loop %s: interrupted\n", c.name)
			return 130
		}
		fmt.Fprintf(stderr, "loop %s: %v\n", c.name, err)
		return 1
	}
	fmt.Fprintf(stderr, "loop: unknown command %q\n", args[0])
	usage(stderr)
	return 2
}

// about says what loop is, at the top of the usage text.
const about = "loop is one Go binary that runs small local GGUF models in process (llama.cpp\n" +
	"through cgo) as reliable coding agents, offline and without a server."

// usage prints what loop is and every command of the dispatch table with
// its summary; TestUsage checks that none is missing.
func usage(w io.Writer) {
	fmt.Fprintf(w, "%s\n\nusage: loop <command> [flags]\n\ncommands:\n", about)
	for _, c := range commands {
		fmt.Fprintf(w, "  %-17s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nRun loop <command> --help for its flags.")
}

// usageError marks a bad command line (exit code 2).
type usageError struct{ error }

func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}
