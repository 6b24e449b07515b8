package chat

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ardanlabs/jinja"
)

// Template is a model's compiled Jinja chat template. It renders a
// conversation into the prompt text llama-server (llama.cpp with --jinja)
// would build for the same request: the same variables, the same message
// and tool shapes, the same workarounds. It is safe for concurrent use.
type Template struct {
	source  string // as given
	subject string // short description for errors
	bos     string
	eos     string
	prog    *jinja.Template

	ministral3 bool // llama.cpp's Ministral/Devstral message rewrite
	gptOSS     bool // Harmony: thinking copied from reasoning, no developer mapping
	toolPlan   bool // Command R7B: a call's reasoning is its tool_plan
	capsOnce   sync.Once
	caps       Caps
	hist       historyOnce
}

// RenderInput is one request to render.
type RenderInput struct {
	// Messages is the conversation.
	Messages []Message
	// Tools are the tools offered, given to the template from Tool.Raw
	// in llama-server's shape ({"type": "function", "function": {"name",
	// "description", "parameters"}}) with the caller's key order inside
	// parameters. With no tools the variable tools is undefined.
	Tools []Tool
	// AddGenerationPrompt ends the prompt with the assistant's header.
	AddGenerationPrompt bool
	// Extra holds extra template variables as a JSON object, for example
	// {"enable_thinking": false}; llama-server's chat_template_kwargs.
	// Its keys override the standard variables. Key order is kept.
	Extra json.RawMessage
	// Now is the clock for date_string, datetime and strftime_now; nil
	// means time.Now. The time's location is used as is.
	Now func() time.Time
}

// NewTemplate compiles a chat template. bosToken and eosToken are the
// model's BOS and EOS texts, given to the template as bos_token and
// eos_token. The template's own BOS stays in the rendered text: strip it
// before tokenizing with a tokenizer that adds BOS itself.
func NewTemplate(source, bosToken, eosToken string) (*Template, error) {
	t := &Template{source: source, subject: describeTemplate(source), bos: bosToken, eos: eosToken}
	src := patchSource(source)
	prog, err := compile(src)
	if err != nil {
		return nil, &Error{Op: "compile template", Subject: t.subject, Err: err}
	}
	t.prog = prog
	t.ministral3 = strings.Contains(src, "[SYSTEM_PROMPT]") && strings.Contains(src, "[TOOL_CALLS]") &&
		strings.Contains(src, "[ARGS]") && !strings.Contains(src, "[CALL_ID]")
	t.gptOSS = strings.Contains(src, "<|channel|>")
	t.toolPlan = strings.Contains(src, "message.tool_plan")
	return t, nil
}

// compile runs the Jinja compiler, turning a panic into an error.
func compile(src string) (prog *jinja.Template, err error) {
	defer func() {
		if r := recover(); r != nil {
			prog, err = nil, fmt.Errorf("jinja compiler panicked: %v", r)
		}
	}()
	return jinja.Compile(src)
}

// describeTemplate names a template in errors: its size and a hash.
func describeTemplate(source string) string {
	sum := sha256.Sum256([]byte(source))
	return fmt.Sprintf("chat template %x (%d bytes)", sum[:4], len(source))
}

// Source returns the template's text as given to NewTemplate.
func (t *Template) Source() string { return t.source }

// tojsonFilter matches the tojson filter, which is replaced by one that
// writes JSON as llama.cpp does (see toJSON).
var tojsonFilter = regexp.MustCompile(`\|\s*tojson\b`)

const tojsonName = "__chat_tojson"

// stringFilter matches the string filter, which is replaced by one that
// writes the numbers of call arguments as the model wrote them (see
// stringFunc).
var stringFilter = regexp.MustCompile(`\|\s*string\b`)

const stringName = "__chat_string"

// patchSource reads the source as llama.cpp's lexer does (line ends
// normalized to "\n", one final newline dropped), applies llama.cpp's
// fixes to known templates (common_chat_templates_init) and routes tojson
// to toJSON: ardanlabs/jinja's tojson(indent=N) sorts keys and escapes
// '<', '>' and '&'. The string filter goes to stringFunc.
func patchSource(src string) string {
	src = strings.ReplaceAll(src, "\r\n", "\n")
	src = strings.ReplaceAll(src, "\r", "\n")
	src = strings.TrimSuffix(src, "\n")
	if strings.Contains(src, "<|channel|>") && strings.Contains(src, "in message.content or") {
		src = strings.ReplaceAll(src,
			`{%- if "<|channel|>analysis<|message|>" in message.content or "<|channel|>final<|message|>" in message.content %}`,
			`{%- if false %}`)
	}
	if strings.Contains(src, "[TOOL_CALLS]") && strings.Contains(src, "if (message['content'] is none or") {
		src = strings.ReplaceAll(src,
			"{%- if (message['content'] is none or message['content'] == '' or message['content']|length == 0) and (message['tool_calls'] is not defined or message['tool_calls'] is none or message['tool_calls']|length == 0) %}",
			`{%- if false %}`)
	}
	src = stringFilter.ReplaceAllString(src, "| "+stringName)
	return tojsonFilter.ReplaceAllString(src, "| "+tojsonName)
}

// Render renders a conversation. A template that fails or raises
// (raise_exception) gives an *Error with Op "render"; Render never
// panics.
func (t *Template) Render(in RenderInput) (string, error) {
	vars, err := t.variables(in)
	if err != nil {
		return "", &Error{Op: "render", Subject: t.subject, Err: err}
	}
	out, err := t.execute(vars)
	if err != nil {
		return "", &Error{Op: "render", Subject: t.subject, Err: err}
	}
	return out, nil
}

// execute runs the template on prepared variables.
func (t *Template) execute(vars map[string]jinja.Value) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = "", fmt.Errorf("jinja engine panicked: %v", r)
		}
	}()
	return t.prog.RenderValues(vars)
}

// variables builds the template's variables as common_chat_templates_apply
// and common_chat_template_direct_apply do.
func (t *Template) variables(in RenderInput) (map[string]jinja.Value, error) {
	nums := numberTexts{}
	msgs, err := t.messages(in.Messages, nums)
	if err != nil {
		return nil, err
	}
	now := time.Now
	if in.Now != nil {
		now = in.Now
	}
	at := now()
	vars := map[string]jinja.Value{
		"messages":        msgs,
		"bos_token":       jinja.NewString(t.bos),
		"eos_token":       jinja.NewString(t.eos),
		"enable_thinking": jinja.NewBool(true),
		"datetime":        jinja.NewString(strftime(at, "%b %d %Y")),
		"date_string":     jinja.NewString(strftime(at, "%d %b %Y")),
	}
	if len(in.Tools) > 0 {
		tools := make([]jinja.Value, len(in.Tools))
		for i, tool := range in.Tools {
			if tools[i], err = toolValue(tool); err != nil {
				return nil, fmt.Errorf("tool %d: %w", i, err)
			}
		}
		vars["tools"] = jinja.NewList(tools)
	}
	if err := addExtra(vars, in.Extra); err != nil {
		return nil, err
	}
	if in.AddGenerationPrompt {
		vars["add_generation_prompt"] = jinja.NewBool(true)
	}
	addFunctions(vars, now, nums)
	return vars, nil
}

// addExtra sets the variables of a JSON object.
func addExtra(vars map[string]jinja.Value, extra json.RawMessage) error {
	if len(extra) == 0 {
		return nil
	}
	v, err := decodeJSON(extra)
	if err != nil {
		return fmt.Errorf("extra variables: %w", err)
	}
	if v.IsNone() {
		return nil
	}
	if !v.IsDict() {
		return errors.New("extra variables: not a JSON object")
	}
	d := v.AsDict()
	for _, k := range d.Keys {
		vars[k] = d.Data[k]
	}
	return nil
}

// addFunctions binds the functions llama.cpp's engine has and
// ardanlabs/jinja lacks or does differently: strftime_now on the render's
// clock, tojson as filter and function, and the string filter, which
// writes the numbers of call arguments as nums has them.
func addFunctions(vars map[string]jinja.Value, now func() time.Time, nums numberTexts) {
	vars["strftime_now"] = jinja.NewCallable("strftime_now", func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
		if len(args) != 1 || !args[0].IsString() {
			return jinja.Undefined(), errors.New("strftime_now: expected one string argument")
		}
		return jinja.NewString(strftime(now(), args[0].AsString())), nil
	})
	tojson := jinja.NewCallable("tojson", tojsonFunc(nums))
	vars[tojsonName] = tojson
	if _, ok := vars["tojson"]; !ok {
		vars["tojson"] = tojson
	}
	vars[stringName] = jinja.NewCallable("string", stringFunc(nums))
}

// stringFunc is the string filter: the engine's, except that a float
// whose text nums knows is that text (Seed-OSS writes argument values
// with |string).
func stringFunc(nums numberTexts) func([]jinja.Value, map[string]jinja.Value) (jinja.Value, error) {
	return func(args []jinja.Value, _ map[string]jinja.Value) (jinja.Value, error) {
		if len(args) == 0 {
			return jinja.NewString(""), nil
		}
		v := args[0]
		switch {
		case v.IsFloat():
			if text, ok := nums.text(v.AsFloat()); ok {
				return jinja.NewString(text), nil
			}
			return jinja.NewString(fmt.Sprintf("%g", v.AsFloat())), nil
		case v.IsString():
			return v, nil
		case v.IsNone(), v.IsUndefined(), v.IsCallable():
			return jinja.NewString(""), nil
		case v.IsInt():
			return jinja.NewString(fmt.Sprintf("%d", v.AsInt())), nil
		}
		return jinja.NewString(v.String()), nil // bool, list, dict: Python's repr
	}
}

// tojsonFunc is the tojson filter of llama.cpp's engine: arguments
// (value, ensure_ascii, indent, separators, sort_keys), by position or
// name; ensure_ascii and sort_keys are refused, as llama.cpp refuses them.
func tojsonFunc(nums numberTexts) func([]jinja.Value, map[string]jinja.Value) (jinja.Value, error) {
	return func(args []jinja.Value, kwargs map[string]jinja.Value) (jinja.Value, error) {
		if len(args) == 0 || len(args) > 5 {
			return jinja.Undefined(), errors.New("tojson: expected 1 to 5 arguments")
		}
		arg := func(name string, pos int) jinja.Value {
			if v, ok := kwargs[name]; ok {
				return v
			}
			if pos < len(args) {
				return args[pos]
			}
			return jinja.Undefined()
		}
		if arg("ensure_ascii", 1).IsTruthy() {
			return jinja.Undefined(), errors.New("tojson ensure_ascii=true not implemented")
		}
		if arg("sort_keys", 4).IsTruthy() {
			return jinja.Undefined(), errors.New("tojson sort_keys=true not implemented")
		}
		indent := -1
		if v := arg("indent", 2); v.IsInt() {
			indent = int(max(min(v.AsInt(), 64), -1))
		}
		itemSep, keySep := ", ", ": "
		if indent >= 0 {
			itemSep = ","
		}
		if v := arg("separators", 3); v.IsList() {
			seps := v.AsList().Items
			if len(seps) > 0 {
				itemSep = printed(seps[0])
			}
			if len(seps) > 1 {
				keySep = printed(seps[1])
			}
		}
		return jinja.NewString(toJSON(args[0], nums, indent, itemSep, keySep)), nil
	}
}

// printed is a value as text.
func printed(v jinja.Value) string {
	if v.IsString() {
		return v.AsString()
	}
	return toJSON(v, nil, -1, ", ", ": ")
}

// messages converts the conversation as common_chat_templates_apply_jinja
// does, using the template's capabilities: developer becomes system
// (except for Harmony), content becomes typed parts for templates that
// only take parts, a system message merges into the next message for
// templates without a system role, arguments become objects for templates
// that read them as objects, and the Ministral/Devstral and gpt-oss
// templates get their messages in the shape llama.cpp gives them.
func (t *Template) messages(msgs []Message, nums numberTexts) (jinja.Value, error) {
	caps := t.Caps()
	o := valueOptions{objectArgs: caps.SupportsObjectArguments, typed: caps.SupportsTypedContent, nums: nums}
	items := make([]jinja.Value, 0, len(msgs))
	for i, m := range msgs {
		if m.Role == "developer" && !t.gptOSS {
			m.Role = "system"
		}
		v, err := messageValue(m, o)
		if err != nil {
			return jinja.Undefined(), fmt.Errorf("message %d: %w", i, err)
		}
		if c, _ := v.AsDict().Get("content"); c.IsString() && !caps.SupportsStringContent && caps.SupportsTypedContent {
			v.AsDict().Set("content", jinja.NewList([]jinja.Value{textPart(c)}))
		}
		items = append(items, v)
	}
	if !caps.SupportsSystemRole {
		var err error
		if items, err = mergeSystem(items); err != nil {
			return jinja.Undefined(), err
		}
	}
	for i, m := range items {
		switch {
		case t.ministral3:
			items[i] = ministralMessage(m, t.thinkingParts())
		case t.gptOSS:
			copyReasoning(m, "thinking")
		case t.toolPlan:
			copyReasoning(m, "tool_plan")
		}
	}
	return jinja.NewList(items), nil
}

// textPart is {"type": "text", "text": text}.
func textPart(text jinja.Value) jinja.Value {
	return dictOf("type", jinja.NewString("text"), "text", text)
}

// mergeSystem puts a leading system message in front of the next
// message's content, separated by a newline, or drops it when it is alone
// (llama.cpp's system_message_not_supported workaround).
func mergeSystem(items []jinja.Value) ([]jinja.Value, error) {
	if len(items) == 0 {
		return items, nil
	}
	if role, _ := items[0].AsDict().Get("role"); !role.IsString() || role.AsString() != "system" {
		return items, nil
	}
	if len(items) == 1 {
		return items[1:], nil
	}
	first, _ := items[0].AsDict().Get("content")
	second, _ := items[1].AsDict().Get("content")
	if !first.IsString() || !second.IsString() {
		return nil, errors.New("cannot merge the system message: content is not a string")
	}
	items[1].AsDict().Set("content", jinja.NewString(first.AsString()+"\n"+second.AsString()))
	return items[1:], nil
}

// ministralMessage gives system and assistant messages their content as
// parts, reasoning first as a "thinking" part, as llama.cpp does for the
// Ministral 3 and Devstral templates (common_chat_params_init_ministral_3).
// Without thinking (a template that reads only content[0].text, as
// Devstral's does), the reasoning is left out: llama.cpp puts it first
// there too, and the template then drops the message's text.
func ministralMessage(m jinja.Value, thinking bool) jinja.Value {
	d := m.AsDict()
	if role, _ := d.Get("role"); !role.IsString() || (role.AsString() != "system" && role.AsString() != "assistant") {
		return m
	}
	var parts []jinja.Value
	if r, ok := d.Get("reasoning_content"); ok && r.IsString() && thinking {
		parts = append(parts, dictOf("type", jinja.NewString("thinking"), "thinking", r))
	}
	if c, ok := d.Get("content"); ok {
		switch {
		case c.IsString():
			parts = append(parts, textPart(c))
		case c.IsList():
			parts = append(parts, c.AsList().Items...)
		}
	}
	out := jinja.NewDict()
	for _, k := range d.Keys {
		switch k {
		case "reasoning_content":
		case "content":
			out.AsDict().Set(k, jinja.NewList(parts))
		default:
			out.AsDict().Set(k, d.Data[k])
		}
	}
	if !d.Has("content") {
		out.AsDict().Set("content", jinja.NewList(parts))
	}
	return out
}

// copyReasoning gives an assistant message with reasoning and tool calls
// its reasoning under key too, where the template reads it: "thinking" in
// gpt-oss, "tool_plan" in Command R7B (llama.cpp moves it there).
func copyReasoning(m jinja.Value, key string) {
	d := m.AsDict()
	r, ok := d.Get("reasoning_content")
	calls, hasCalls := d.Get("tool_calls")
	if ok && r.IsString() && hasCalls && calls.IsList() {
		d.Set(key, r)
	}
}

// Caps returns what the template supports, found once by rendering probe
// conversations (see Caps).
func (t *Template) Caps() Caps {
	t.capsOnce.Do(func() { t.caps = detectCaps(t) })
	return t.caps
}

// strftime formats a time with C strftime conversions: %a %A %b %B %c %C
// %d %D %e %F %g %G %h %H %I %j %k %l %m %M %n %p %r %R %S %t %T %u %V %w
// %y %Y %z %Z %%, in the C locale. Others are written as they are.
func strftime(t time.Time, format string) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 == len(format) {
			b.WriteByte(format[i])
			continue
		}
		i++
		if s, ok := strftimeField(t, format[i]); ok {
			b.WriteString(s)
		} else {
			b.WriteByte('%')
			b.WriteByte(format[i])
		}
	}
	return b.String()
}

// strftimeField is one conversion.
func strftimeField(t time.Time, c byte) (string, bool) {
	if layout, ok := strftimeLayouts[c]; ok {
		return t.Format(layout), true
	}
	year, week := t.ISOWeek()
	switch c {
	case 'C':
		return fmt.Sprintf("%02d", t.Year()/100), true
	case 'e':
		return fmt.Sprintf("%2d", t.Day()), true
	case 'g':
		return fmt.Sprintf("%02d", year%100), true
	case 'G':
		return fmt.Sprintf("%d", year), true
	case 'j':
		return fmt.Sprintf("%03d", t.YearDay()), true
	case 'k':
		return fmt.Sprintf("%2d", t.Hour()), true
	case 'l':
		return fmt.Sprintf("%2d", (t.Hour()+11)%12+1), true
	case 'u':
		return fmt.Sprintf("%d", (int(t.Weekday())+6)%7+1), true
	case 'V':
		return fmt.Sprintf("%02d", week), true
	case 'w':
		return fmt.Sprintf("%d", int(t.Weekday())), true
	case 'n':
		return "\n", true
	case 't':
		return "\t", true
	case '%':
		return "%", true
	}
	return "", false
}

// strftimeLayouts are the conversions Go's time layouts express.
var strftimeLayouts = map[byte]string{
	'a': "Mon", 'A': "Monday", 'b': "Jan", 'h': "Jan", 'B': "January",
	'c': "Mon Jan  2 15:04:05 2006", 'd': "02", 'D': "01/02/06", 'F': "2006-01-02",
	'H': "15", 'I': "03", 'm': "01", 'M': "04", 'p': "PM", 'r': "03:04:05 PM",
	'R': "15:04", 'S': "05", 'T': "15:04:05", 'y': "06", 'Y': "2006",
	'z': "-0700", 'Z': "MST",
}
