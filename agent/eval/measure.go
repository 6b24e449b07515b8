package eval

import (
	"encoding/json"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/loop"

	"github.com/loopagent/loop/agent/classify"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
)

// Result is one run: its verdict, why it failed, and what its replies
// were like.
type Result struct {
	Scenario string `json:"scenario"`
	Config   string `json:"config"`
	Seed     int    `json:"seed"`
	// Pass is the verdict; Reason says why a run failed: a bad reply's
	// reason (json, args, tool, cut off, format, count, copied), steps,
	// loop, unverified, wrong call, answer, check, script end, error.
	Pass   bool   `json:"pass"`
	Reason string `json:"reason,omitempty"`
	// Outcome is how the loop ended (loop.Kind).
	Outcome string `json:"outcome"`
	// Agent is what loop.New assembled for the run: its window, context
	// management, instruction files, repository map and tools.
	Agent loop.Setup `json:"agent"`
	// Requests, Calls, Repairs and Retries are the loop's counts.
	Requests int `json:"requests"`
	Calls    int `json:"calls"`
	Repairs  int `json:"repairs"`
	Retries  int `json:"retries"`
	// RepairKinds counts the repairs of the calls the loop repaired or
	// recovered, by kind: the JSON repairs (repair.Names) and the
	// recoveries ("fenced", "wrapper", ...).
	RepairKinds map[string]int `json:"repair_kinds,omitempty"`

	// Classes are the failure kinds of the replies, in order
	// (classify.Kind), labelled as the model wrote them.
	Classes []string `json:"classes"`
	// CallReplies counts the replies that tried to call a tool (all but
	// text only); of those, ParsedRaw parsed as written, Parsed after
	// repair and recovery, and SchemaValid also fit their schemas.
	CallReplies int `json:"call_replies"`
	ParsedRaw   int `json:"parsed_raw"`
	Parsed      int `json:"parsed"`
	SchemaValid int `json:"schema_valid"`
	// CutOff counts the call replies the token limit cut off: under a
	// grammar, the only way a call attempt can fail its schema.
	CutOff int `json:"cut_off,omitempty"`
	// RightCall says whether the expected calls ran; nil when the
	// scenario expects none.
	RightCall *bool `json:"right_call,omitempty"`
	// Replies counts every reply; Usable those that are a call that
	// parsed as written or a finished answer (text only, ended by the
	// model, not by the token limit): what a reply that "parses as a call
	// or an answer" means for a model that may write noise.
	Replies int `json:"replies"`
	Usable  int `json:"usable"`
	// Edits counts the edit_file calls that ran; EditsFound those whose
	// old_string occurred in the file.
	Edits      int `json:"edits,omitempty"`
	EditsFound int `json:"edits_found,omitempty"`
	// Grammar: the replies were written under a call grammar, so their
	// parse rate is the grammar's, not the model's: a call the grammar
	// constrained always parses (a call it never woke for may not).
	Grammar bool `json:"grammar,omitempty"`
}

// step is what the events say about one model request.
type step struct {
	class    string
	rejected string
	repaired bool
	finish   string
}

// measure reads a run's events: each reply's kind, whether its call
// parsed, before and after repair, and fit its schema; and the calls that
// ran against the scenario's expected calls.
func measure(evs []transcript.Event, sc *Scenario) Result {
	var res Result
	steps := map[int]*step{}
	var order []int
	var ran []callRun
	at := func(n int) *step {
		if steps[n] == nil {
			steps[n] = &step{}
			order = append(order, n)
		}
		return steps[n]
	}
	for _, e := range evs {
		switch e.Kind {
		case transcript.KindClass:
			at(e.Step).class = e.Class
		case transcript.KindRejected:
			at(e.Step).rejected = e.Reason
		case transcript.KindRepair:
			at(e.Step).repaired = true
			if res.RepairKinds == nil {
				res.RepairKinds = map[string]int{}
			}
			if e.Reason != "json" {
				res.RepairKinds[e.Reason]++
			}
			for _, k := range e.Repairs {
				res.RepairKinds[k]++
			}
		case transcript.KindReply:
			at(e.Step).finish = e.FinishReason
		case transcript.KindCall:
			if e.Call != nil {
				ran = append(ran, callRun{e.Call.Function.Name, e.Call.Function.Arguments})
			}
		case transcript.KindResult:
			if e.Call != nil && e.Call.Function.Name == tools.EditFileName {
				res.Edits++
				if !strings.Contains(e.Result, "old_string was not found") {
					res.EditsFound++
				}
			}
		}
	}
	for _, n := range order {
		s := steps[n]
		res.Classes = append(res.Classes, s.class)
		res.count(s)
	}
	if len(sc.Pass.Calls) > 0 {
		ok := callsRan(sc.Pass.Calls, ran)
		res.RightCall = &ok
	}
	return res
}

// count adds one reply to the parse and schema counts.
func (res *Result) count(s *step) {
	res.Replies++
	if s.class == string(classify.TextOnly) || s.class == "" {
		if s.finish == "stop" {
			res.Usable++
		}
		return
	}
	res.CallReplies++
	if s.class == string(classify.CutOff) {
		res.CutOff++
	}
	raw := !slices.Contains([]string{string(classify.OutsideFormat), string(classify.CutOff), string(classify.InvalidJSON)}, s.class)
	if raw {
		res.ParsedRaw++
		res.Usable++
	}
	if !(raw || s.repaired) || slices.Contains([]string{"json", "format", "cut off"}, s.rejected) {
		return
	}
	res.Parsed++
	if !slices.Contains([]string{"args", "tool", "count"}, s.rejected) {
		res.SchemaValid++
	}
}

// callRun is a call that ran: its name and JSON arguments.
type callRun struct{ name, args string }

// callsRan reports whether the expected calls ran, in order.
func callsRan(want []ExpectedCall, ran []callRun) bool {
	i := 0
	for _, c := range ran {
		if i < len(want) && matches(want[i], c) {
			i++
		}
	}
	return i == len(want)
}

// matches reports whether a call has the expected name and arguments.
func matches(want ExpectedCall, c callRun) bool {
	if want.Name != c.name {
		return false
	}
	var args map[string]any
	if len(want.Arguments) > 0 && json.Unmarshal([]byte(c.args), &args) != nil {
		return false
	}
	for k, v := range want.Arguments {
		if !reflect.DeepEqual(normalize(v), args[k]) {
			return false
		}
	}
	return true
}

// normalize gives a Go value the types encoding/json decodes to, so that
// an expected argument written in Go (an int) equals one read from JSON
// (a float64).
func normalize(v any) any {
	b, err := json.Marshal(v)
	if err != nil {
		return v
	}
	var out any
	json.Unmarshal(b, &out)
	return out
}

func answerMatches(pattern, answer string) bool {
	re, err := regexp.Compile(pattern)
	return err == nil && re.MatchString(answer)
}
