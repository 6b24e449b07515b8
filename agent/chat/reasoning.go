package chat

import (
	"encoding/json"
	"regexp"
)

// ReasoningSwitch is how a template turns its model's reasoning on and
// off, found in the template's source. Templates name the switch
// differently: Qwen3 and Nemotron read enable_thinking, DeepSeek V3.1 and
// Granite 3.3 thinking, gpt-oss reasoning_effort and Seed-OSS
// thinking_budget.
type ReasoningSwitch struct {
	// Variable is the template variable; "" when the template has none.
	Variable string
}

// The switches, most specific first.
var reasoningSwitches = []struct {
	variable string
	pattern  *regexp.Regexp
}{
	{"reasoning_effort", regexp.MustCompile(`\breasoning_effort\b`)},
	{"thinking_budget", regexp.MustCompile(`\bthinking_budget\b`)},
	{"enable_thinking", regexp.MustCompile(`\benable_thinking\b`)},
	// thinking as a variable, not the word in a system prompt's prose.
	{"thinking", regexp.MustCompile(`\bthinking\s+is\s+(not\s+)?defined\b|\b(el)?if\s+(not\s+)?thinking\b|\bset\s+thinking\b`)},
}

// ReasoningSwitch returns the template's reasoning switch.
func (t *Template) ReasoningSwitch() ReasoningSwitch {
	for _, s := range reasoningSwitches {
		if s.pattern.MatchString(t.source) {
			return ReasoningSwitch{Variable: s.variable}
		}
	}
	return ReasoningSwitch{}
}

// Vars returns the template variables that turn reasoning on or off, as
// a JSON object, or nil when the template has no switch. budget (tokens,
// 0 for none) is passed to a template that takes one (Seed-OSS), which
// then tells the model its budget; the client enforces it either way.
//
// gpt-oss cannot think less than "low", so off is reasoning_effort low
// and on is the template's default, medium. When nothing is asked, loop
// sets nothing and each template keeps its own default, except DeepSeek
// V3.1's, which DefaultReasoning turns on as llama-server does.
func (s ReasoningSwitch) Vars(on bool, budget int) json.RawMessage {
	var v any
	switch s.Variable {
	case "":
		return nil
	case "reasoning_effort":
		v = "medium"
		if !on {
			v = "low"
		}
	case "thinking_budget":
		switch {
		case !on:
			v = 0
		case budget > 0:
			v = budget
		default:
			v = -1
		}
	default:
		v = on
	}
	b, _ := json.Marshal(map[string]any{s.Variable: v})
	return b
}

// DefaultOn says whether loop turns reasoning on when nothing is asked:
// for the templates whose switch is thinking (DeepSeek V3.1, Granite
// 3.3), which default to off. llama-server turns DeepSeek V3.1's on (its
// --reasoning-budget -1 default); loop does the same for both, so that
// such a model answers as it does behind llama-server. The other
// templates keep their own default.
func (s ReasoningSwitch) DefaultOn() bool {
	return s.Variable == "thinking"
}
