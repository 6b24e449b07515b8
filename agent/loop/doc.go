// Package loop is the agent: it sends the conversation to a model, checks
// every reply before anything runs, runs the calls that pass, and stops
// when the work is verified or a limit is hit, saying which.
//
// New is the one constructor. From a model and Settings it assembles the
// workspace, the tools the window plan calls for, the system prompt (the
// instruction files from the repository root down, the repository map
// where the window has room), the context manager, the task tool's
// subagent and the guards. `loop run`, `loop eval`, the subagent itself,
// training-data generation and `loop bench` all build their agent with
// it, so that what is measured is what runs:
//
//	a, err := loop.New(m, loop.Settings{Dir: "."})
//	out := a.Run(ctx, "make the failing test pass")
//	fmt.Println(out) // done (verified): 5 requests, ...
//
// One step is one model request; step.go shows its pipeline in one short
// function, and guards.go the guards it applies, each a value with one
// method for its stage, in this order:
//
//  1. before the request: tool_choice required on a task that names a
//     file, and the call grammar's file names narrowed to the workspace's
//     files (agent/paths);
//  2. on the reply: a reply the token limit cut never runs; the JSON of
//     the format's calls is repaired and calls written outside the format
//     recovered (agent/repair), truncation never; the calls must parse,
//     fit their schemas and their count, and not copy a few-shot
//     example's value;
//  3. on a bad reply: its error goes back, in words the model can act on
//     (agent/retry), within a budget of bad replies in a row;
//  4. dispatch: independent read-only calls run concurrently, results come
//     back in call order; an edit or write that would leave a Go or JSON
//     file that parsed unparseable, or give a Go file another package than
//     its directory's, a name its package already declares or a use of a
//     name declared nowhere, is refused and the file kept as it was
//     (tools.Config.NoSyntaxCheck);
//  5. on each result: loop detection (agent/loopguard: repeats, cycles, a
//     step recurring between others, one result for every call), a note
//     on the first, a stop on the second;
//  6. on an answer: the verification gate (agent/gate): a final answer
//     after an edit with no passing check since is not done, and the
//     agent asks once; on a task that asks for a change, an answer before
//     any edit gets one reminder.
//
// Settings.Guards turns a guard off; it is then not in its list.
//
// The model resolves the sampling (model.Sampling) with its own keys, and
// every request event records what it resolved. Every step is labelled by
// the failure classifier (agent/classify), and every event goes to a
// transcript.Sink, the terminal's and the JSONL file's alike.
//
// An Agent keeps its conversation: Run again continues it (the
// interactive mode of `loop run`), and the model's prompt cache stays warm
// because the history only grows. At the end of each step a history event
// records what changed in it, so that the transcript rebuilds it
// (transcript.Conversation); Settings.History seeds a new Agent with such
// a conversation, and Continue goes on with an unfinished task without a
// new message (a continued session, agent/session). Settings.OnStepEnd
// hears each step's end, where a session saves the model's KV state.
package loop
