package callformat

import (
	"math/rand/v2"
	"slices"

	"github.com/loopagent/loop/agent/chat"
)

// idAlphabet is llama-server's: random_string in tools/server/server-common.cpp.
const idAlphabet = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"

// randomID returns n characters of idAlphabet from r (nil: the global
// generator).
func randomID(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		var k int
		if r == nil {
			k = rand.IntN(len(idAlphabet))
		} else {
			k = r.IntN(len(idAlphabet))
		}
		b[i] = idAlphabet[k]
	}
	return string(b)
}

func isAlnum(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}

func (f *format) NewID(r *rand.Rand) string { return randomID(r, f.idLen) }

// ValidID: Mistral's templates raise unless an id is 9 alphanumeric
// characters; the other templates do not render ids, so any non-empty id
// will do.
func (f *format) ValidID(id string) bool {
	if f.idLen == 9 {
		return len(id) == 9 && isAlnum(id)
	}
	return id != ""
}

// freshID returns a new id of f that is not in used, and adds it there.
func freshID(f Format, r *rand.Rand, used map[string]bool) string {
	for {
		if id := f.NewID(r); !used[id] {
			used[id] = true
			return id
		}
	}
}

// RemapIDs returns a copy of history whose call ids fit f's scheme, for a
// conversation that switches to a model of format f. Each assistant
// message's calls get new ids where theirs do not fit, are empty, or repeat
// an id of the same message; the tool messages that answer them get the
// same new ids: the k-th result with an id answers the k-th call with it,
// in the latest assistant message that has it. A tool result whose id no
// call has gets a new id if it does not fit. Ids that fit stay.
func RemapIDs(history []chat.Message, f Format, r *rand.Rand) []chat.Message {
	used := map[string]bool{}
	for _, m := range history {
		used[m.ToolCallID] = true
		for _, c := range m.ToolCalls {
			used[c.ID] = true
		}
	}
	out := slices.Clone(history)
	var turn map[string][]string // old id -> new ids of the current turn, in call order
	orphans := map[string]string{}
	for i := range out {
		m := &out[i]
		if len(m.ToolCalls) > 0 {
			m.ToolCalls = slices.Clone(m.ToolCalls)
			turn = remapCalls(m.ToolCalls, f, r, used)
		}
		if m.Role != "tool" {
			continue
		}
		if ids := turn[m.ToolCallID]; len(ids) > 0 {
			old := m.ToolCallID
			m.ToolCallID = ids[0]
			if len(ids) > 1 {
				turn[old] = ids[1:]
			}
		} else if !f.ValidID(m.ToolCallID) {
			if _, ok := orphans[m.ToolCallID]; !ok {
				orphans[m.ToolCallID] = freshID(f, r, used)
			}
			m.ToolCallID = orphans[m.ToolCallID]
		}
	}
	return out
}

// remapCalls gives calls ids that fit f and are unique among them, and
// returns old id -> new ids in call order.
func remapCalls(calls []chat.ToolCall, f Format, r *rand.Rand, used map[string]bool) map[string][]string {
	turn := map[string][]string{}
	seen := map[string]bool{}
	for j := range calls {
		old := calls[j].ID
		if !f.ValidID(old) || seen[old] {
			calls[j].ID = freshID(f, r, used)
		}
		seen[old] = true
		turn[old] = append(turn[old], calls[j].ID)
	}
	return turn
}

// FitIDs returns history with call ids the template of f renders, and
// how many calls it renamed: history itself when every id of its calls and
// results fits f (ValidID), else RemapIDs of it. A conversation may hold
// ids of another scheme (llama-server's and other formats' 32 characters,
// an API's call_...) and Mistral's templates raise on any id that is not 9
// alphanumeric characters.
//
// The new ids come from a fixed seed: the same history always gets the
// same ids, and a history that grows keeps those of its earlier messages
// (UniqueIDs keeps a reply from taking one), so that the model sees a call
// under one id from step to step and a cached prompt prefix stays valid.
func FitIDs(history []chat.Message, f Format) ([]chat.Message, int) {
	fits := true
	for _, m := range history {
		if m.Role == "tool" && !f.ValidID(m.ToolCallID) {
			fits = false
		}
		for _, c := range m.ToolCalls {
			fits = fits && f.ValidID(c.ID)
		}
	}
	if fits {
		return history, 0
	}
	out := RemapIDs(history, f, rand.New(rand.NewPCG(0, 0)))
	n := 0
	for i, m := range out {
		for j, c := range m.ToolCalls {
			if c.ID != history[i].ToolCalls[j].ID {
				n++
			}
		}
	}
	return out, n
}

// UniqueIDs returns a parser of a reply to history that gives each call an
// id no other call of the conversation has. A call keeps the id the model
// wrote (Mistral's models write their own) or the parser generated, unless
// it is taken: by a call or result of history, as the caller holds it or
// as FitIDs showed it to the model, or by an earlier call of the reply. A
// taken id is replaced by a new one of f, from r.
//
// The renamed ids are never mapped back. A reply names no existing call:
// every call a model writes is a new one, and results come from the
// harness, not the model. A reply's call that reuses a renamed id is the
// model copying an id it saw; giving it the original id would give two
// calls one id. So it gets a new id like any other repeat, and the renamed
// id stays taken, so that the next request renames the history as this
// one did.
func UniqueIDs(p StreamParser, f Format, r *rand.Rand, history []chat.Message) StreamParser {
	u := &uniqueIDs{StreamParser: p, f: f, r: r, taken: map[string]bool{}, given: map[string][]string{}, fed: map[string]int{}}
	fitted, _ := FitIDs(history, f)
	for _, h := range [][]chat.Message{history, fitted} {
		for _, m := range h {
			if m.ToolCallID != "" {
				u.taken[m.ToolCallID] = true
			}
			for _, c := range m.ToolCalls {
				u.taken[c.ID] = true
			}
		}
	}
	return u
}

// uniqueIDs is UniqueIDs' parser. The deltas and Finish name a call by the
// inner parser's id; the n-th call with one id gets the n-th id given for
// it, so that a call's delta and its call in Finish have the same id.
type uniqueIDs struct {
	StreamParser
	f     Format
	r     *rand.Rand
	taken map[string]bool     // the history's ids and those given so far
	given map[string][]string // the inner parser's id -> the ids given, in call order
	fed   map[string]int      // calls announced so far, by the inner parser's id
}

func (u *uniqueIDs) Feed(text string) []Delta {
	ds := u.StreamParser.Feed(text)
	for i, d := range ds {
		if d.Call == nil || d.Call.ID == "" { // not the first delta of a call
			continue
		}
		c := *d.Call
		c.ID = u.give(d.Call.ID, u.fed[d.Call.ID])
		u.fed[d.Call.ID]++
		ds[i].Call = &c
	}
	return ds
}

func (u *uniqueIDs) Finish() Parsed {
	p := u.StreamParser.Finish()
	seen := map[string]int{}
	for i := range p.Calls {
		id := p.Calls[i].ID
		p.Calls[i].ID = u.give(id, seen[id])
		seen[id]++
	}
	return p
}

// give returns the id of the n-th call the inner parser named id.
func (u *uniqueIDs) give(id string, n int) string {
	if g := u.given[id]; n < len(g) {
		return g[n]
	}
	out := id
	if out == "" || u.taken[out] {
		out = freshID(u.f, u.r, u.taken)
	} else {
		u.taken[out] = true
	}
	u.given[id] = append(u.given[id], out)
	return out
}
