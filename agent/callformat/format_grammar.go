package callformat

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
)

// The grammars of the formats. Hermes, Llama 3 and Mistral Nemo are JSON
// calls in a wrapper, which grammar.ToolCalls builds from a grammar.Format;
// the prompt format is grammar.PromptBased; Qwen3-Coder, Harmony and the
// [ARGS] form of Mistral are built here with a grammar.Builder. Every
// grammar allows exactly the text its parser reads as calls, except the
// bare call object Hermes' lazy grammar also constrains (hermesGrammar).

var (
	// llama3Format writes {"name": ..., "parameters": {...}}, with no
	// wrapper; a call may also start with <|python_tag|> (see llama3Grammar).
	llama3Format = grammar.Format{Name: "llama3", NameKey: "name", ArgsKey: "parameters",
		Triggers: []string{`{"name"`, `{ "name"`, pythonTag}}
	// mistralFormat is Mistral Nemo's JSON array with 9-character ids.
	mistralFormat = grammar.Format{Name: "mistral", ListOpen: toolCalls + "[", ListClose: "]", Separator: ", ",
		NameKey: "name", ArgsKey: "arguments", IDKey: "id", IDRule: "[a-zA-Z0-9]{9}", Triggers: []string{toolCalls}}
)

// harmonyTrigger starts a Harmony call in the channel-header form.
const harmonyTrigger = hChannel + "commentary to=functions."

// hermesBare wakes Hermes' lazy grammar on a bare call object at the start
// of a reply, as llama-server's Hermes trigger pattern does.
var hermesBare = []string{`{"name"`, `{ "name"`}

// hermesGrammar is ToolCalls' grammar; when lazy, it also wakes on a call
// object written without <tool_call> at the start of the reply, and then
// allows that one object. The parser reads such a reply as content outside
// the format, which the agent's recovery takes as a
// call: what the grammar then guarantees is that the object is complete and
// fits its schema, as llama-server's does.
func hermesGrammar(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	g, err := grammar.ToolCalls(grammar.Hermes, chat.GrammarTools(f.tools), opts)
	if err != nil || g == nil || !g.Lazy {
		return g, err
	}
	body, err := rootBody(g.GBNF, f.name)
	if err != nil {
		return nil, err
	}
	_, rest, _ := strings.Cut(g.GBNF, "\n")
	g.GBNF = "root ::= " + body + " | call-object\n" + rest
	g.StartTriggers = hermesBare
	return g, nil
}

// rootBody returns the body of the root rule, the first rule of gbnf.
func rootBody(gbnf, name string) (string, error) {
	root, _, _ := strings.Cut(gbnf, "\n")
	body, ok := strings.CutPrefix(root, "root ::= ")
	if !ok {
		return "", &chat.Error{Op: "tool call grammar", Subject: name, Err: errors.New("root is not the first rule")}
	}
	return body, nil
}

func promptGrammar(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	return grammar.PromptBased(chat.GrammarTools(f.tools), opts)
}

// llama3Grammar is ToolCalls' grammar with an optional <|python_tag|>
// before the calls, so that the tag may also trigger it.
func llama3Grammar(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	g, err := grammar.ToolCalls(llama3Format, chat.GrammarTools(f.tools), opts)
	if err != nil || g == nil {
		return g, err
	}
	body, err := rootBody(g.GBNF, f.name)
	if err != nil {
		return nil, err
	}
	_, rest, _ := strings.Cut(g.GBNF, "\n")
	g.GBNF = "root ::= " + grammar.Quote(pythonTag) + "? (" + body + ")\n" + rest
	return g, nil
}

func mistralGrammar(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	if !f.opts.MistralArgs {
		return grammar.ToolCalls(mistralFormat, chat.GrammarTools(f.tools), opts)
	}
	return buildGrammar(f, opts, func(b *grammar.Builder, tools []chat.Tool) (string, string, []string, error) {
		var alts []string
		for _, t := range tools {
			args, err := b.ToolArgs(t.Name, t.Parameters)
			if err != nil {
				return "", "", nil, err
			}
			alts = append(alts, b.Rule("tool-"+t.Name, fmt.Sprintf(`%s (%s [a-zA-Z0-9]{9})? %s %s`,
				grammar.Quote(t.Name), grammar.Quote(callIDTag), grammar.Quote(argsTag), args)))
		}
		call := b.Rule("call", grammar.Quote(toolCalls)+" ("+strings.Join(alts, " | ")+")")
		return call, "", []string{toolCalls}, nil
	})
}

// harmonyGrammar writes one call in the channel-header form
// (<|channel|>commentary to=functions.NAME), after the <|start|>assistant that follows an analysis message
// (the reasoning block). gpt-oss makes one call per reply (<|call|> ends
// the generation), so Parallel is ignored; the grammar ends with the
// arguments, before <|call|>.
func harmonyGrammar(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	opts.Parallel = false
	return buildGrammar(f, opts, func(b *grammar.Builder, tools []chat.Tool) (string, string, []string, error) {
		var alts []string
		for _, t := range tools {
			args, err := b.ToolArgs(t.Name, t.Parameters)
			if err != nil {
				return "", "", nil, err
			}
			alts = append(alts, b.Rule("tool-"+t.Name, grammar.Quote(t.Name+" "+hConstrain+"json"+hMessage)+" "+args))
		}
		call := b.Rule("call", grammar.Quote(hStart+"assistant")+"? "+grammar.Quote(harmonyTrigger)+" ("+strings.Join(alts, " | ")+")")
		return call, "", []string{harmonyTrigger}, nil
	})
}

// buildBlock is buildGrammar for formats that put all calls of a reply in
// one block, open ... close, with sep (a GBNF expression or "") between
// parallel calls.
func buildBlock(f *format, opts grammar.CallOptions, open, close, sep string, one callRules) (*grammar.CallGrammar, error) {
	parallel, maxCalls := opts.Parallel, opts.MaxCalls
	opts.Parallel = false
	return buildGrammar(f, opts, func(b *grammar.Builder, tools []chat.Tool) (string, string, []string, error) {
		call, _, triggers, err := one(b, tools)
		if err != nil {
			return "", "", nil, err
		}
		body := call
		if parallel && maxCalls != 1 {
			rep := "*"
			if maxCalls > 1 {
				rep = fmt.Sprintf("{0,%d}", maxCalls-1)
			}
			body = call + " (" + strings.TrimSpace(sep+" "+call) + ")" + rep
		}
		return b.Rule("call-block", grammar.Quote(open)+" "+body+" "+grammar.Quote(close)), "", triggers, nil
	})
}

// callRules adds the rule of one call and returns it, the separator of
// parallel calls (a GBNF expression or ""), and the triggers.
type callRules func(b *grammar.Builder, tools []chat.Tool) (call, sep string, triggers []string, err error)

// buildGrammar is ToolCalls for formats that are not a JSON object in a
// wrapper: tool_choice, parallel calls, laziness and reasoning as there.
func buildGrammar(f *format, opts grammar.CallOptions, rules callRules) (*grammar.CallGrammar, error) {
	if opts.Choice.Mode == grammar.ChoiceNone {
		return nil, nil
	}
	tools, err := chooseTools(f.tools, opts.Choice)
	if err != nil {
		return nil, err
	}
	b := grammar.NewBuilder(opts.Options)
	call, sep, triggers, err := rules(b, tools)
	if err != nil {
		return nil, err
	}
	calls := call
	if opts.Parallel && opts.MaxCalls != 1 {
		rep := "*"
		if opts.MaxCalls > 1 {
			rep = fmt.Sprintf("{0,%d}", opts.MaxCalls-1)
		}
		calls = b.Rule("calls", call+" ("+strings.TrimSpace(sep+" "+call)+")"+rep)
	}
	g := &grammar.CallGrammar{}
	root := calls
	switch {
	case opts.Choice.Mode == grammar.ChoiceAuto:
		g.Lazy, g.Triggers = true, triggers
	case opts.Reasoning != nil:
		text := b.Until("reasoning-text", opts.Reasoning.Close)
		r := b.Rule("reasoning", grammar.Quote(opts.Reasoning.Open)+" "+text+" "+grammar.Quote(opts.Reasoning.Close)+` "\n"{0,2}`)
		root = r + "? " + calls
	}
	g.GBNF = b.GBNF(b.Rule("root", root))
	g.Notes = b.Notes()
	return g, nil
}

// chooseTools applies tool_choice to the tools, with the checks of
// grammar.ToolCalls.
func chooseTools(tools []chat.Tool, c grammar.Choice) ([]chat.Tool, error) {
	seen := map[string]bool{}
	for _, t := range tools {
		if t.Name == "" {
			return nil, &grammar.Error{Op: "tool call grammar", Err: errors.New("a tool has no name")}
		}
		if seen[t.Name] {
			return nil, &grammar.Error{Op: "tool call grammar", Subject: t.Name, Err: errors.New("two tools have this name")}
		}
		seen[t.Name] = true
	}
	if c.Mode == grammar.ChoiceFunction {
		i := slices.IndexFunc(tools, func(t chat.Tool) bool { return t.Name == c.Function })
		if i < 0 {
			return nil, &grammar.Error{Op: "tool call grammar", Subject: c.Function, Err: errors.New("tool_choice names a function that is not among the tools")}
		}
		return tools[i : i+1], nil
	}
	if len(tools) == 0 {
		return nil, &grammar.Error{Op: "tool call grammar", Err: errors.New("no tools")}
	}
	return tools, nil
}
