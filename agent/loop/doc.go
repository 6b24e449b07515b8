// Package loop is the agent: it sends the conversation to a model, checks
// every reply before anything runs, runs the calls that pass, and stops
// when the work is verified or a limit is hit, saying which.
//
// One step is one model request; step.go shows its pipeline in one short
// function. The request's call grammar names only the workspace's files
// where a tool needs an existing one (agent/paths). Then:
//
//  1. finish_reason first: a call cut by the token limit never runs;
//  2. parse (the model's format parser ran already);
//  3. repair the JSON of the format's calls and recover calls written
//     outside the format (agent/repair); truncation is never repaired;
//  4. validate the calls against their schemas and count them;
//  5. retry a bad reply within a budget, with an error the model can act
//     on (agent/retry), or give up;
//  6. dispatch: independent read-only calls run concurrently, results come
//     back in call order;
//  7. detect loops (agent/loopguard: repeats, cycles, a step recurring
//     between others, one result for every call): a note on the first, a
//     stop on the second;
//  8. the verification gate (agent/gate): a final answer after an edit
//     with no passing check since is not done; the agent asks once. On a
//     task that asks for a change, an answer before any edit gets one
//     reminder.
//
// Every step is labelled by the failure classifier (agent/classify), and
// every event goes to a transcript.Sink, the terminal's and the JSONL
// file's alike:
//
//	a, err := loop.New(loop.Config{Model: m, Tools: tools.Default(), Workspace: ws})
//	out := a.Run(ctx, "make the failing test pass")
//	fmt.Println(out) // done (verified), 5 steps, ...
//
// An Agent keeps its conversation: Run again continues it (the
// interactive mode of `loop run`), and the model's prompt cache stays warm
// because the history only grows.
package loop
