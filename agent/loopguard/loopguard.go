// Package loopguard notices a model that repeats itself: a small model
// that does not understand a result often makes the same call again, and
// each repeat costs a request and adds the same result to the context. A
// Detector compares the steps of a run by signature: the tool name, the
// arguments as canonical JSON (keys sorted, no white space), and a hash
// of the result. The result is what separates a loop from progress: the
// same test command with 3, then 1, then 0 failures is three different
// steps.
//
// Feed it every executed call with its result, in order:
//
//	var d loopguard.Detector // thresholds: 3 in a row, a-b-a-b, stop on the second
//	switch d.Check(call, result) {
//	case loopguard.Warn:
//		result += "\n\n" + loopguard.Note // the model reads it and can change course
//	case loopguard.Stop:
//		// end the run: "loop stop"
//	}
//
// It detects four patterns: Repeats identical steps in a row, a two-step
// cycle (a, b, a, b) repeated Cycles times, one step that Recurs times
// among the last 2×Recurs steps with other steps between (a listing
// between failed reads, again and again) while nothing was edited, and
// SameResults calls in a row of one tool whose results are the same
// whatever their arguments (a model that reads the same missing file with
// another offset each time, or lists patterns that match nothing). The first Warnings detections
// answer Warn, the next one Stop; Detector.Note is the note for the
// pattern found. A Detector is for one run and is not safe for concurrent
// use.
package loopguard

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strings"

	"github.com/loopagent/loop/agent/chat"
)

// Note is what the agent adds to a result that Check answered Warn for
// repeated or cycling calls: it says what the model did and what to do
// instead.
const Note = "This call repeats earlier calls with the same arguments and results. Change the approach or answer."

// NoteSameResult is the note for calls of one tool that keep getting the
// same result with other arguments.
const NoteSameResult = "This call got the same result as the calls of this tool before it, with other arguments. Change the approach or answer."

// Verdict is what Check decides about a step.
type Verdict int

// The verdicts.
const (
	OK   Verdict = iota // no loop
	Warn                // a loop: add Note to the result
	Stop                // a loop after the warnings: stop the run
)

func (v Verdict) String() string {
	switch v {
	case Warn:
		return "WARN"
	case Stop:
		return "STOP"
	}
	return "OK"
}

// Detector finds loops in the steps of one run. The zero value uses the
// default thresholds given on each field; a negative threshold turns its
// check off.
type Detector struct {
	// Repeats is how many identical steps in a row are a loop; 0 means 3.
	Repeats int
	// Cycles is how many times two alternating steps (a, b, a, b) must
	// occur in a row to be a loop; 0 means 2.
	Cycles int
	// SameResults is how many calls in a row of one tool with the same
	// result, whatever their arguments, are a loop; 0 means 3.
	SameResults int
	// Recurs is how many times one step must occur among the last
	// 2×Recurs steps since the last edit (Changed) to be a loop, with
	// other steps between; 0 means 3.
	Recurs int
	// Warnings is how many detections answer Warn before one answers
	// Stop; 0 means 1.
	Warnings int

	signatures []string
	outcomes   []string // tool name and result hash of each step
	since      int      // the first step after the last edit
	detections int
	note       string
}

// Check records a step, an executed call and its result, and says whether
// the run is looping.
func (d *Detector) Check(call chat.ToolCall, result string) Verdict {
	name, h := call.Function.Name, resultHash(result)
	d.signatures = append(d.signatures, signature(name, call.Function.Arguments, h))
	d.outcomes = append(d.outcomes, name+"#"+h)
	switch {
	case d.repeated() || d.cycled() || d.recurred():
		d.note = Note
	case d.sameResults():
		d.note = NoteSameResult
	default:
		return OK
	}
	d.detections++
	if d.detections > orDefault(d.Warnings, 1) {
		return Stop
	}
	return Warn
}

// Note returns the note for the last step Check did not answer OK: Note
// or NoteSameResult.
func (d *Detector) Note() string {
	if d.note == "" {
		return Note
	}
	return d.note
}

// Changed records that the last step changed the workspace (an edit): a
// step that recurs across it, such as a test run after each attempted
// fix, is not a loop.
func (d *Detector) Changed() { d.since = len(d.signatures) }

// recurred reports whether the last step occurred Recurs times among the
// last 2×Recurs steps since the last edit.
func (d *Detector) recurred() bool {
	k := orDefault(d.Recurs, 3)
	n := len(d.signatures)
	if k < 0 || n == 0 {
		return false
	}
	seen := 0
	for _, s := range d.signatures[max(d.since, n-2*k):] {
		if s == d.signatures[n-1] {
			seen++
		}
	}
	return seen >= k
}

// repeated reports whether the last Repeats steps are identical.
func (d *Detector) repeated() bool {
	return allSame(d.signatures, orDefault(d.Repeats, 3))
}

// sameResults reports whether the last SameResults steps called one tool
// and got one result, with arguments that were not all the same (identical
// steps are Repeats' to judge).
func (d *Detector) sameResults() bool {
	k := orDefault(d.SameResults, 3)
	return allSame(d.outcomes, k) && !allSame(d.signatures, k)
}

// allSame reports whether the last k of ss are equal; never for k < 0.
func allSame(ss []string, k int) bool {
	n := len(ss)
	if k < 0 || n < k {
		return false
	}
	for i := n - k + 1; i < n; i++ {
		if ss[i] != ss[n-k] {
			return false
		}
	}
	return true
}

// cycled reports whether the last 2*Cycles steps alternate between two
// different steps.
func (d *Detector) cycled() bool {
	n, k := len(d.signatures), orDefault(d.Cycles, 2)
	if k < 0 || n < 2*k || d.signatures[n-1] == d.signatures[n-2] {
		return false
	}
	for i := n - 2*k; i < n-2; i++ {
		if d.signatures[i] != d.signatures[i+2] {
			return false
		}
	}
	return true
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}

// signature is a step's signature: name, canonical arguments, "#" and the
// hash of the result (resultHash). Equal steps have equal signatures,
// however the arguments were spaced or ordered.
func signature(name, arguments, hash string) string {
	return name + Canonical(arguments) + "#" + hash
}

// resultHash is the FNV-64a hash of a result, in hex.
func resultHash(result string) string {
	h := fnv.New64a()
	h.Write([]byte(result))
	return fmt.Sprintf("%016x", h.Sum64())
}

// Canonical returns JSON text with object keys sorted and no white space,
// numbers as written; text that is not JSON comes back as it is.
func Canonical(text string) string {
	dec := json.NewDecoder(strings.NewReader(text))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || dec.More() {
		return text
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return text
	}
	return strings.TrimSuffix(b.String(), "\n")
}
