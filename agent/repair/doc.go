// Package repair fixes the tool calls a small model almost got right,
// without asking it again: JSON syntax repairs, and the recovery of calls
// written outside the format's tags.
//
// # JSON repair
//
// The JSON repair reads a JSON object and fixes what models get wrong:
// trailing commas, single quotes, raw newlines, tabs and other control
// characters in strings, invalid escapes, mismatched brackets, and
// Python's True, False and None outside strings. It names each repair
// (TrailingComma, SingleQuotes, ...): `{'path': 'pom.xml',}` becomes
// `{"path": "pom.xml"}` with the repairs [single quotes, trailing comma].
//
// An object cut off before its end is closed too, so that its JSON
// parses, but the repair invented the end, and such a call must never
// run: it is never taken, and goes back to the model with a larger token
// budget instead.
//
// # Fixing a reply
//
// A Fixer applies this to a parsed reply, after the format's parser and
// before validation, and recovers calls the parser left in the content:
//
//	fx := repair.Fixer{Format: format, Check: repair.Validates(validator)}
//	parsed, fixes := fx.Fix(raw, format.Parse(raw))
//	for _, f := range fixes {
//		// f.Kind ("json", "fenced", "function_tag", "wrapper",
//		// "bare_object"), f.Call, f.Repairs, and f.Refused when the call
//		// was found but not taken: the counts `loop eval` reports.
//	}
//
// The JSON repair ("json") re-reads the repaired text with the format's
// own parser and keeps a repair only when it turns a broken call into a
// call; such a call goes on to validation like any other. NoRepair and
// NoRecovery turn either stage off, so that a run can measure the model's
// own rate: a parse rate after repair is higher than the model's, and a
// report says which it shows.
//
// # Recovery
//
// Recovery reads the content the parser left for calls in the forms that
// llama.cpp's Hermes 2 Pro parser accepts (tests/test-chat.cpp):
//
//	```json                        a Markdown fence, any language or none
//	{"name": "f", "arguments": {...}}
//	```
//	<function=f>{...}</function>
//	<function name="f">{...}</function>
//	<tool>{"name": ...}</tool>     also <tools>, <tool_call>, <function_call>,
//	                               <response>, <json>, <xml>, in any case
//	{"name": "f", "arguments": {...}}
//
// Wrappers nest (a fence around <response>, around <function_call>). The
// arguments may be called "parameters", or be a JSON string that holds
// the object; a fence or wrapper may hold several objects, or an array of
// them. Each object gets the JSON repair, and a truncated one is refused.
// A call is taken only when Check accepts it (a known tool whose arguments
// validate), and all calls of one fence or wrapper are taken, or none.
// Taken calls leave the content, in text order after the parsed ones; the
// OutsideFormat problem goes when every candidate was taken.
//
// Where loop differs from llama.cpp: a bare object is a call only where
// nothing but white space and other calls comes before it. llama.cpp's
// test reads "This is not a tool call:\n{"name": ...}" as content plus a
// call; loop keeps it as content and reports it as refused ("a mention,
// not a call"), because a model that writes prose and then an object is
// showing or quoting a call more often than making one, and running a call
// that was not meant costs more than a retry. A fence or a tag is
// recovered wherever it stands: the markup says the object is meant as a
// call. With its Hermes parser, loop agrees with 31 of the 34 Hermes 2 Pro
// parse cases of llama.cpp's tests (14 without recovery): it differs on
// the mention above and on two stream snapshots of unfinished text, a
// cut-off call and a held-back closing fence (TestLlamaCppHermes).
//
// The repairs' names and results follow the project's specification
// (../shared/seeds); the tests compare with it.
package repair
