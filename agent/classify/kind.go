package classify

// Kind names what is wrong with a reply. Its value is a short id for
// transcripts and statistics; Label and Remedy give the seed's words.
type Kind string

// The kinds, in the order Classify tries them.
const (
	TextOnly        Kind = "text_only"           // no call and nothing like one
	OutsideFormat   Kind = "outside_format"      // something like a call, not in the format
	CutOff          Kind = "cut_off"             // a call, and finish_reason length
	InvalidJSON     Kind = "invalid_json"        // a call the parser could not read
	UnknownTool     Kind = "unknown_tool"        // a tool that was not offered
	MissingArgument Kind = "missing_argument"    // a required argument is absent
	WrongType       Kind = "wrong_argument_type" // an argument breaks its schema (type, enum, length)
	UnknownArgument Kind = "unknown_argument"    // an argument the schema does not declare
	Repeat          Kind = "repeat"              // the calls of the previous step again
	PathMissing     Kind = "path_missing"        // a valid call to a path that does not exist
	OK              Kind = "ok"                  // a call to run
)

// Kinds returns every kind, in the order of the seed's catalog.
func Kinds() []Kind {
	return []Kind{OK, OutsideFormat, InvalidJSON, UnknownTool, MissingArgument, WrongType, UnknownArgument,
		CutOff, PathMissing, Repeat, TextOnly}
}

var kindWords = map[Kind][2]string{
	OK:              {"ok", "run it"},
	OutsideFormat:   {"call outside the call format", "grammar (Example 2) or a fallback parser"},
	InvalidJSON:     {"invalid JSON", "repair (Example 4)"},
	UnknownTool:     {"unknown tool", "error with the tool list, retry (Example 5)"},
	MissingArgument: {"missing argument", "error with the schema, retry (Example 5)"},
	WrongType:       {"wrong argument type", "error with the schema, retry (Example 5)"},
	UnknownArgument: {"unknown argument", "error with the schema, retry (Example 5)"},
	CutOff:          {"cut off by max_tokens", "never run it; retry with more tokens"},
	PathMissing:     {"valid call, path does not exist", "the tool's own error result"},
	Repeat:          {"same call as the previous step", "loop detection (Example 11)"},
	TextOnly:        {"text only, no call", "accept, or check that work was verified"},
}

// Label returns the kind in seed 000 Example 1's words: "invalid JSON".
func (k Kind) Label() string {
	if w, ok := kindWords[k]; ok {
		return w[0]
	}
	return string(k)
}

// Remedy returns what the agent does about the kind, in the seed's words.
func (k Kind) Remedy() string { return kindWords[k][1] }
