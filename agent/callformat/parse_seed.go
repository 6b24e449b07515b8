package callformat

import "github.com/loopagent/loop/grammar"

// The Seed-OSS format (ByteDance-Seed-OSS.jinja): Qwen3-Coder's XML
// functions in a block of its own, each value between its tags without
// newlines, and reasoning in <seed:think>:
//
//	<seed:think>The user wants pom.xml.</seed:think>
//	<seed:tool_call>
//	<function=read_file>
//	<parameter=path>pom.xml</parameter>
//	</function>
//	</seed:tool_call>
//
// Values are read as in Qwen3-Coder (parse_qwen3coder.go): text for a
// string parameter, JSON for the others. The template writes a non-string
// value with |string, which is Python's repr for lists, dicts and booleans
// (True); the grammar asks for JSON, and a value that is not JSON is kept
// as a string.

const (
	seedCallOpen  = "<seed:tool_call>"
	seedCallClose = "</seed:tool_call>"
)

// seedThink are Seed-OSS's reasoning markers.
var seedThink = grammar.Block{Open: "<seed:think>", Close: "</seed:think>"}

func scanSeed(f *format, s *scanState) {
	block := func(s *scanState, pos int) (int, bool) { return f.xmlBlock(s, pos, seedCallOpen, seedCallClose) }
	scanThinking(s, seedThink, f.opts.ReasoningOpen, map[string]callReader{seedCallOpen: block})
}

func seedGrammar(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	return xmlGrammar(f, opts, seedXML)
}
