// Package window decides which tokens go into each request of a coding
// agent, so that a long session never overflows a small context window.
//
// # Budget
//
// A window splits into fixed parts (system prompt, tools, instruction
// files, repository map), a reserve for the reply (ReserveFor), and the
// history. The Counter is the model's tokenizer; Estimate (4 characters
// per token, 3 for tool output) stands in only when no model is loaded,
// and Corrected then takes the prompt_tokens a reply reports as exact for
// the messages its request sent. CompareEstimate and WriteEstimates print
// how far the estimate is from each real tokenizer (`loop tokenize
// --estimate`).
// Plan derives the settings for a window (reserve, tool cap, read lines,
// repository map, keep-recent, compaction trigger, search by subagent or
// direct); WriteStrategies prints them as `loop context-plan` does.
//
// # The manager
//
// The agent loop adds every message to a Manager and sends what Request
// returns:
//
//	m := window.New(window.Config{Window: 8192, System: sys, Counter: tok, Summarize: summarize})
//	m.Append(chat.Message{Role: "user", Content: task})
//	for {
//		req, err := m.Request(ctx)  // validates pairs, compacts above the trigger, checks the fit
//		...                         // send req.Messages; add the reply and each result:
//		m.Append(reply)
//		result.Content = m.Cap(call.Function.Name, result.Content, exitCode != 0)
//		m.Append(result)
//	}
//
// The manager owns the conversation: the loop only adds to it (Append;
// Remove takes out failed attempts), and reads it back with History. Off
// keeps the history without managing it.
//
// Cap cuts a tool result before it is appended (Caps: head, tail,
// head+tail by characters or by lines, with a marker saying how much was
// cut; a failed command's output is cut to its error lines first), so
// that an oversized result never enters the history. Every change and
// every request is checked by ValidatePairs: every result has its call,
// every call its results. Above the trigger, Compact summarizes the old turns through the
// injected Summarizer (the model, given SummaryRequest.Prompt over a
// Transcript), keeps the system message and the newest turns verbatim,
// cuts only at a user (or assistant) message, replaces stale results with
// stubs (StubStale), carries the read and modified file lists over, and
// falls back to the task and the summary alone when even that is too big.
// What still does not fit is ErrContextFull: nothing is truncated
// silently.
//
// # The prompt cache
//
// Between compactions the history only grows at its end, so each rendered
// prompt extends the one before and the engine reuses its KV cache up to
// the new messages. Keep changing data (times, counters) out of the
// system message: put it in the newest message.
//
// The tables that WriteBudgets, WriteStrategies and WriteTriggers print
// come from the project's specification (../shared/seeds); the tests
// compare with them.
package window
