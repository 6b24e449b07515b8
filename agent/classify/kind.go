package classify

// Kind names what is wrong with a reply. Its value is a short id for
// transcripts and statistics; Remedy says in a few words what the agent
// does about it.
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

var remedies = map[Kind]string{
	OK:              "run it",
	OutsideFormat:   "grammar (Example 2) or a fallback parser",
	InvalidJSON:     "repair (Example 4)",
	UnknownTool:     "error with the tool list, retry (Example 5)",
	MissingArgument: "error with the schema, retry (Example 5)",
	WrongType:       "error with the schema, retry (Example 5)",
	UnknownArgument: "error with the schema, retry (Example 5)",
	CutOff:          "never run it; retry with more tokens",
	PathMissing:     "the tool's own error result",
	Repeat:          "loop detection (Example 11)",
	TextOnly:        "accept, or check that work was verified",
}

// Remedy returns what the agent does about the kind, in a few words.
func (k Kind) Remedy() string { return remedies[k] }
