// Package repair fixes the tool calls a small model almost got right,
// without asking it again: the syntax repairs of seed 000 Example 4, and
// the recovery of calls written outside the format's tags.
//
// Repair reads the first JSON object of a text and fixes what models get
// wrong: trailing commas, single quotes, raw newlines, tabs and other
// control characters in strings, Python's True, False and None outside
// strings, and text around the object. It names each repair:
//
//	r, ok := repair.Repair(`Sure: {'path': 'pom.xml',}`)
//	// r.JSON == `{"path": "pom.xml"}`
//	// r.Repairs == [text around the object, single quotes, trailing comma]
//
// A text that ends inside the object is closed too, so that its JSON
// parses, but Truncated is set and Repairs ends with "truncated": the
// repair invented the end, and such a call must never run. It goes back
// to the model with a larger token budget instead.
//
// A Fixer applies this to a parsed reply, after the format's parser and
// before validation, and recovers calls the parser left in the content
// (see recover.go for the forms and the one rule where loop differs from
// llama.cpp):
//
//	fx := repair.Fixer{Format: format, Check: repair.Validates(validator)}
//	parsed, fixes := fx.Fix(raw, format.Parse(raw))
//	for _, f := range fixes {
//		// f.Kind ("json", "fenced", "function_tag", "wrapper",
//		// "bare_object"), f.Call, f.Repairs, and f.Refused when the call
//		// was found but not taken: the counts `loop eval` reports.
//	}
//
// The JSON repair re-reads the repaired text with the format's own
// parser, and keeps a repair only when it turns a broken call into a call.
// Recovery takes a call only when Check accepts it: a known tool whose
// arguments validate. NoRepair and NoRecovery turn either off, so that a
// run can measure the model's own rate: a parse rate after repair is
// higher than the model's, and a report says which it shows.
package repair
