// Package repair fixes the tool calls a small model almost got right,
// without asking it again: JSON syntax repairs, and the recovery of calls
// written outside the format's tags.
//
// # JSON repair
//
// Repair reads a JSON object and fixes what models get wrong, naming each
// repair (TrailingComma, SingleQuotes, ...): `{'path': 'pom.xml',}`
// becomes `{"path": "pom.xml"}` with the repairs [single quotes, trailing
// comma]. Valid JSON is taken as written. It repairs:
//
//   - a trailing comma before a closing bracket (TrailingComma);
//   - single quotes around keys and strings (SingleQuotes);
//   - // and /* */ comments outside strings, dropped (Comment); the //
//     of a URL after its scheme (https://) is no comment;
//   - a key without quotes, {a: 2} (UnquotedKey), and a string value
//     without quotes, "city": New York (UnquotedValue), that runs to a
//     comma, a closing bracket or the end of the line, and holds a letter
//     or digit and no quote, bracket or colon: nothing else can be meant;
//   - True, False and None (PythonLiteral), and true, false and null in
//     another case, TRUE, Null (LiteralCase);
//   - a missing comma between members or elements, {"a":2⏎"b":3} and
//     ["x" "y"] (MissingComma);
//   - a quote inside a string that the model did not escape, "apple
//     "bee" carrot" (InnerQuote), where only that reading closes the
//     object;
//   - doubled quotes, {""answer"": ""5""} (DoubledQuotes), and an object
//     escaped as the text of a string, {\"key\": \"value\"} (EscapedJSON);
//   - raw newlines, tabs and other control characters in strings
//     (RawNewline, RawTab, RawControl), escaped;
//   - \' and a backslash before a character beyond ASCII, where JSON
//     allows no escape, lose the backslash; another unknown escape keeps
//     it, so that C:\dir stays C:\dir (InvalidEscape);
//   - a tuple, (1, 2), as an array (Tuple);
//   - a closing bracket that does not match (BracketClosed): a typo for
//     the right one, a missing one, or a stray one, whichever single
//     reading closes the object with nothing after it;
//   - text before the object and prose or a closing code fence after it,
//     dropped (TextAround, reported by Repair).
//
// Where the text has two readings (a quote that closes a string or sits
// in it, a bracket that is a typo or a missing one), the repair reads on
// with each, and takes the one that closes the object; when more than
// one does, it refuses (ErrAmbiguous): {"a":"b,"c":"d"} is a string with
// inner quotes or two members with a missing quote, and guessing could
// move an argument. Every repair ends with the no-loss check: the letters
// and digits of the text's keys and values, read on their own, are, in the
// same order, those of the result; otherwise the repair is refused
// (ErrLoss), naming what it would lose. So {"name":"f","arguments":
// {"a":["x"},"b":1}} keeps b in the arguments, and
// {"key": "value"}, "key2": "value2"} is refused rather than cut short.
//
// It refuses, with an *Error a model can act on:
//
//   - an object cut off before its end (ErrTruncated): closing it would
//     invent its end and the arguments it lost. A Fixer still closes it,
//     so that it can be reported, and never takes its call;
//   - another object, more JSON or a single word after the object
//     (ErrTextAfter): {"a":2}{} is two calls or a broken one, for the
//     caller to count, never text to drop;
//   - a value that is no JSON value and no plain string: 1/3, .25, 1e,
//     undefined, an ellipsis, a call such as ObjectId("1"), one value in
//     parentheses (a group, not a tuple), strings joined with +, curly
//     quotes, a missing value or colon, an extra comma. Each is a guess
//     about what the model meant.
//
// On the peers' own test cases whose answer is an object (testdata, from
// json_repair and jsonrepair), loop agrees or refuses on all but a few,
// and where it returns another object the test says why (TestPeers).
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
//		// "bare_object"), f.Call, f.Repairs (names from Names), and
//		// f.Refused when the call was found but not taken: the counts
//		// `loop eval` reports.
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
