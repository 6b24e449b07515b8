package callformat

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
)

// Format is one family's text form of tool calls: how a model writes its
// calls, content and reasoning, and the grammar that constrains them.
//
// A Format is safe for concurrent use unless Options.Rand is set;
// each StreamParser is used by one goroutine.
type Format interface {
	// Name is the format's name, one of Names.
	Name() string
	// Parse reads a whole reply. It never panics: whatever does not
	// parse is a Problem. Calls have the model's ids where the format has
	// them (Mistral), else none: assign them with NewID.
	Parse(text string) Parsed
	// Stream returns a parser for a reply that arrives piece by piece.
	Stream() StreamParser
	// Grammar compiles the grammar of calls in this format for the tools
	// the format was made with; nil for tool_choice none.
	Grammar(opts grammar.CallOptions) (*grammar.CallGrammar, error)
	// NewID returns a new call id in the scheme of the format: 9
	// alphanumeric characters for Mistral, whose templates reject others,
	// and 32 elsewhere, as llama-server's gen_tool_call_id. A nil r uses
	// the global generator.
	NewID(r *rand.Rand) string
	// StringText is how a string argument's value s appears in a call of
	// this format: as the body of a JSON string, escapes and all, or as
	// written in the XML formats' parameters.
	StringText(s string) string
	// ValidID reports whether id fits the format's scheme.
	ValidID(id string) bool
	// ReasoningBlock returns the markers of the reasoning the format
	// allows before a call, for grammar.CallOptions.Reasoning, or nil.
	ReasoningBlock() *grammar.Block
}

// Options configures a Format. The zero value is the default.
type Options struct {
	// ReasoningOpen says that the prompt ends inside a reasoning block the
	// template opened (<think> in QwQ, DeepSeek-R1 and Qwen3 thinking
	// templates): the reply is reasoning up to the first </think>, and all
	// of it when none comes. The formats with <think> reasoning only.
	ReasoningOpen bool
	// MistralArgs makes Mistral's grammar write each call as
	// [TOOL_CALLS]NAME[ARGS]{...}, optionally with [CALL_ID]ID before
	// [ARGS] (Mistral Small 3.2, Devstral), instead of the JSON array of
	// Mistral Nemo. The parser reads both forms either way.
	MistralArgs bool
	// Rand is the source of the ids stream parsers generate; nil means the
	// global generator. Set it for reproducible ids; the Format is then
	// not safe for concurrent use.
	Rand *rand.Rand
	// NoCalls reads replies that may not call tools (no tools, or
	// tool_choice none): reasoning is still split from the content, in the
	// format's reasoning markers, but call markers are content, as
	// llama-server parses such replies.
	NoCalls bool
}

// formatNames lists the formats in the order Names returns them.
var formatNames = []string{"hermes", "qwen3-coder", "llama3", "mistral", "harmony", "functionary-v3.1", "functionary-v3.2",
	"firefunction-v2", "nemotron-v2", "deepseek-r1", "deepseek-v3.1", "kimi-k2", "seed-oss", "command-r7b", "prompt"}

// Names returns the names New accepts.
func Names() []string { return append([]string(nil), formatNames...) }

// New returns the named format for tools with default options.
func New(name string, tools []chat.Tool) (Format, error) {
	return NewWithOptions(name, tools, Options{})
}

// NewWithOptions returns the named format for tools. Tools give the
// grammar its schemas, and the Qwen3-Coder parser the parameter types.
func NewWithOptions(name string, tools []chat.Tool, opts Options) (Format, error) {
	f := &format{name: name, tools: tools, opts: opts, idLen: 32}
	switch name {
	case "hermes":
		f.scan, f.grammar = scanHermes, hermesGrammar
		f.reasoning = &grammar.Block{Open: "<think>", Close: "</think>"}
		f.outside = hermesOutside
	case "qwen3-coder":
		f.scan, f.grammar = scanQwen3Coder, qwen3CoderGrammar
		f.reasoning = &grammar.Block{Open: "<think>", Close: "</think>"}
		f.outside = regexp.MustCompile(`\{\s*"name"\s*:`)
	case "llama3":
		f.scan, f.grammar = scanLlama3, llama3Grammar
	case "mistral":
		f.scan, f.grammar, f.idLen = scanMistral, mistralGrammar, 9
		f.outside = regexp.MustCompile(`\[\s*\{\s*"name"\s*:`)
	case "harmony":
		f.scan, f.grammar = scanHarmony, harmonyGrammar
		f.reasoning = &grammar.Block{Open: hChannel + "analysis" + hMessage, Close: hEnd}
	case "functionary-v3.1":
		f.scan, f.grammar = scanFunctionary31, functionary31Grammar
	case "functionary-v3.2":
		f.scan, f.grammar = scanFunctionary32, functionary32Grammar
	case "firefunction-v2":
		f.scan, f.grammar = scanJSONList(fireFunctionList), jsonListGrammar(fireFunctionList)
	case "nemotron-v2":
		f.scan, f.grammar = scanJSONList(nemotronList), jsonListGrammar(nemotronList)
		f.reasoning = &grammar.Block{Open: thinkOpen, Close: thinkClose}
	case "deepseek-r1", "deepseek-v3.1":
		r1 := name == "deepseek-r1"
		f.scan, f.grammar = scanDeepSeek(r1), deepSeekGrammar(r1)
		f.reasoning = &grammar.Block{Open: thinkOpen, Close: thinkClose}
	case "kimi-k2":
		f.scan, f.grammar = scanKimi, kimiGrammar
	case "seed-oss":
		f.scan, f.grammar = scanSeed, seedGrammar
		f.reasoning = &seedThink
	case "command-r7b":
		f.scan, f.grammar = scanCommandR7B, commandR7BGrammar
		f.reasoning = &r7bThink
		f.dropped = []string{r7bResponseOpen, r7bResponseClose}
		f.outside = r7bOutside
	case "prompt":
		f.scan, f.grammar = scanPrompt, promptGrammar
	default:
		return nil, &chat.Error{Op: "new format", Subject: name, Err: errors.New("unknown format; want one of " + strings.Join(formatNames, ", "))}
	}
	if opts.NoCalls {
		f.scan, f.outside = scanReasoningOnly, nil
	}
	return f, nil
}

// scanReasoningOnly reads a reply without calls: reasoning in the format's
// markers, everything else content but the dropped markers.
func scanReasoningOnly(f *format, s *scanState) {
	if f.reasoning == nil {
		s.content(s.text)
		return
	}
	scanThinking(s, *f.reasoning, f.opts.ReasoningOpen, droppedMarkers(f.dropped))
}

// droppedMarkers returns readers that drop each of markers from the reply.
func droppedMarkers(markers []string) map[string]callReader {
	readers := make(map[string]callReader, len(markers)+1)
	for _, m := range markers {
		readers[m] = func(_ *scanState, pos int) (int, bool) { return pos, true }
	}
	return readers
}

// format implements Format for every family: a scan function, a grammar
// function and a few settings.
type format struct {
	name      string
	tools     []chat.Tool
	opts      Options
	scan      func(f *format, s *scanState)
	grammar   func(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error)
	idLen     int
	reasoning *grammar.Block
	// dropped are markers the model writes around its content that are
	// not part of it (Command R7B's <|START_RESPONSE|>): the scan drops
	// them, with calls or without. Only formats with reasoning have them.
	dropped []string
	// outside matches content that looks like a call written outside the
	// format.
	outside *regexp.Regexp
}

func (f *format) Name() string { return f.name }

func (f *format) Parse(text string) Parsed {
	return f.parse(text, func(_ int, c *callItem) string { return c.id })
}

// parse runs a final scan; id gives the id of call attempt k.
func (f *format) parse(text string, id func(k int, c *callItem) string) Parsed {
	s := &scanState{text: text, final: true}
	f.scan(f, s)
	p := finalize(s.items, id)
	switch {
	case f.outside == nil || hasCallItem(s.items):
	case f.outside.MatchString(p.Content):
		p.Problems = append(p.Problems, Problem{Kind: OutsideFormat,
			Message: "the reply has what looks like a call outside the " + f.name + " format; calls must be written in the format"})
	case callTail(p.Content):
		p.Problems = append(p.Problems, Problem{Kind: OutsideFormat,
			Message: "the reply ends like the end of a call whose start is missing; write the whole call in the " + f.name + " format"})
	}
	return p
}

// callTail reports whether content ends as a call's arguments end, with
// more closing braces than it opened: `answers.go"}}`. Such a reply is a
// call whose start the model left out, not an answer.
func callTail(content string) bool {
	t := strings.TrimRight(content, " \t\r\n")
	return strings.HasSuffix(t, "}") && strings.Count(t, "}") > strings.Count(t, "{")
}

func (f *format) Grammar(opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	return f.grammar(f, opts)
}

func (f *format) ReasoningBlock() *grammar.Block {
	if f.reasoning == nil {
		return nil
	}
	b := *f.reasoning
	return &b
}

// tool returns the tool named name, or nil.
func (f *format) tool(name string) *chat.Tool {
	for i := range f.tools {
		if f.tools[i].Name == name {
			return &f.tools[i]
		}
	}
	return nil
}

func (f *format) StringText(s string) string {
	if f.name == "qwen3-coder" || f.name == "seed-oss" {
		return s
	}
	q := chat.QuoteJSON(s)
	return q[1 : len(q)-1]
}
