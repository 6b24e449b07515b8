package callformat

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/grammar"
)

// qwen3CoderGrammar writes the XML calls of Qwen3-Coder as its template
// renders them: parameters in declared order, the required ones
// mandatory, string values as raw text up to "\n</parameter>" and other
// values as JSON of the parameter's schema, as llama.cpp's PEG grammar for
// this format does (common/chat-syntax/qwen3-coder-xml.cpp). A tool
// without declared properties takes any parameters as text.
func qwen3CoderGrammar(f *format, opts grammar.CallOptions) (*grammar.CallGrammar, error) {
	return xmlGrammar(f, opts, qwen3CoderXML)
}

// xmlStyle is how a family writes its XML calls.
type xmlStyle struct {
	open, close string // the block around a function, and its trigger
	valueOpen   string // after <parameter=KEY
	valueClose  string // after the value
}

var (
	// qwen3CoderXML writes each value on lines of its own.
	qwen3CoderXML = xmlStyle{open: toolCallOpen, close: toolCallClose, valueOpen: ">\n", valueClose: "\n" + paramClose + "\n"}
	// seedXML writes <parameter=KEY>VALUE</parameter>.
	seedXML = xmlStyle{open: seedCallOpen, close: seedCallClose, valueOpen: ">", valueClose: paramClose + "\n"}
)

// xmlGrammar writes the XML calls of a style, one block a call.
func xmlGrammar(f *format, opts grammar.CallOptions, st xmlStyle) (*grammar.CallGrammar, error) {
	return buildGrammar(f, opts, func(b *grammar.Builder, tools []chat.Tool) (string, string, []string, error) {
		text := b.Until("xml-text", strings.TrimSuffix(st.valueClose, "\n"))
		var alts []string
		for _, t := range tools {
			r, err := xmlFunctionRule(b, t, text, st)
			if err != nil {
				return "", "", nil, err
			}
			alts = append(alts, r)
		}
		call := b.Rule("call", grammar.Quote(st.open+"\n")+" ("+strings.Join(alts, " | ")+") "+grammar.Quote(st.close))
		return call, grammar.Quote("\n"), []string{st.open}, nil
	})
}

// xmlFunctionRule adds the rule of <function=NAME> ... </function>.
func xmlFunctionRule(b *grammar.Builder, t chat.Tool, text string, st xmlStyle) (string, error) {
	props, order, err := chat.SchemaProperties(t.Parameters)
	if err != nil {
		return "", &grammar.Error{Op: "tool call grammar", Subject: t.Name, Err: err}
	}
	required := map[string]bool{}
	var req struct {
		Required []string `json:"required"`
	}
	if len(t.Parameters) > 0 && json.Unmarshal(t.Parameters, &req) == nil {
		for _, r := range req.Required {
			required[r] = true
		}
	}
	close := grammar.Quote(st.valueClose)
	var parts []string
	if len(order) == 0 {
		anyParam := b.Rule("xml-any-param", grammar.Quote(paramOpen)+` [^>\n<]+ `+grammar.Quote(st.valueOpen)+" "+text+" "+close)
		parts = append(parts, anyParam+"*")
	}
	for _, key := range order {
		value := text
		if lits := stringEnum(props[key]); len(lits) > 0 {
			value = "(" + strings.Join(lits, " | ") + ")"
		} else if !schemaIsString(props[key]) {
			if value, err = b.Schema("tool-"+t.Name+"-arg-"+key, t.Name, withDefs(props[key], t.Parameters)); err != nil {
				return "", err
			}
		}
		p := b.Rule("tool-"+t.Name+"-param-"+key, grammar.Quote(paramOpen+key+st.valueOpen)+" "+value+" "+close)
		if !required[key] {
			p += "?"
		}
		parts = append(parts, p)
	}
	return b.Rule("tool-"+t.Name, grammar.Quote(fnOpen+t.Name+">\n")+" "+strings.Join(parts, " ")+" "+grammar.Quote(fnClose+"\n")), nil
}

// withDefs gives a property schema the $defs and definitions of the tool's
// schema, so that its $refs resolve when it is compiled alone.
func withDefs(prop, root json.RawMessage) json.RawMessage {
	if !bytes.Contains(prop, []byte("$ref")) {
		return prop
	}
	var r, p map[string]json.RawMessage
	if json.Unmarshal(root, &r) != nil || json.Unmarshal(prop, &p) != nil {
		return prop
	}
	for _, k := range []string{"$defs", "definitions"} {
		if _, ok := p[k]; !ok && r[k] != nil {
			p[k] = r[k]
		}
	}
	out, err := json.Marshal(p)
	if err != nil {
		return prop
	}
	return out
}

// stringEnum returns the raw-text literals of a string property with an
// enum or const: in XML the value is written without quotes, so the
// grammar allows exactly these texts.
func stringEnum(prop json.RawMessage) []string {
	var s struct {
		Enum  []json.RawMessage `json:"enum"`
		Const json.RawMessage   `json:"const"`
	}
	if json.Unmarshal(prop, &s) != nil {
		return nil
	}
	values := s.Enum
	if len(s.Const) > 0 {
		values = []json.RawMessage{s.Const}
	}
	var out []string
	for _, v := range values {
		var str string
		if json.Unmarshal(v, &str) != nil {
			return nil // a non-string value: leave it to the schema rule
		}
		out = append(out, grammar.Quote(str))
	}
	return out
}
