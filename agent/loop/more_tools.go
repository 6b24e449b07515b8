package loop

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/validate"
	"github.com/loopagent/loop/grammar"
)

// withMoreTools is set with more after its tools. A tool of more whose
// schema the call grammar or the validator cannot compile is left out,
// and the returned warnings say which and why: the call grammar holds
// every tool at once, so one such schema would break every call.
func withMoreTools(set *tools.Set, more []tools.Tool) (*tools.Set, []string, error) {
	if len(more) == 0 {
		return set, nil, nil
	}
	var all []tools.Tool
	for _, name := range set.Names() {
		t, _ := set.Get(name)
		all = append(all, t)
	}
	var warnings []string
	for _, t := range more {
		if err := compiles(t); err != nil {
			warnings = append(warnings, fmt.Sprintf("tool %s left out: %v", t.Name(), err))
			continue
		}
		all = append(all, t)
	}
	out, err := tools.NewSet(all...)
	return out, warnings, err
}

// compiles checks t's definition as a request uses it: parsed as an
// OpenAI tool, its schema compiled into a call grammar that requires a
// call of it and by the validator.
func compiles(t tools.Tool) error {
	if !json.Valid(t.Schema()) {
		return errors.New("the schema is not JSON")
	}
	one, err := tools.NewSet(t)
	if err != nil {
		return err
	}
	defs, err := chat.ParseTools(one.Definitions())
	if err != nil {
		return err
	}
	_, err = grammar.ToolCalls(grammar.Hermes, chat.GrammarTools(defs), grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}})
	if err != nil {
		return err
	}
	if _, err := validate.New(defs); err != nil {
		return errors.New(strings.Join(strings.Fields(err.Error()), " ")) // the validator's report spans lines
	}
	return nil
}
