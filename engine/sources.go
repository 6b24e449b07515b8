package engine

import "github.com/loopagent/loop/llama"

// Drafting from sources: an agent knows what a reply is likely to copy
// that is not in the prompt as the reply writes it. The file an edit_file
// call's old_string quotes was shown numbered by read_file ("12| code"),
// so prompt lookup loses the thread at every line; the same file in the
// encoding of the call's arguments (a JSON string's escapes) continues
// line after line. Request.Sources holds such texts, tokenized; inside a
// call, the drafter first matches the end of the history against them,
// over longer n-grams than prompt lookup (a copy is long once it starts),
// and drafts up to maxSourceDraft tokens where matches keep being
// accepted, with the same check that drafting pays.

// maxSourceDraft is the longest draft from a source: a copy of a file's
// lines is accepted whole, far longer than prompt lookup's drafts.
const maxSourceDraft = 64

// sourceN is the longest n-gram a source match compares: code repeats
// short runs ("err != nil {"), and a longer match picks the right one.
const sourceN = 16

// noToken ends each source in the index, so that no match or draft runs
// from one source into the next.
const noToken llama.Token = -1

// sources indexes the texts a reply may copy.
type sources struct {
	toks []llama.Token
	// pairs maps a pair of tokens to the positions p, ascending, where
	// toks[p-1:p+1] is that pair and a token of the same text follows.
	pairs map[uint64][]int32
	// ends[p] is where the text holding position p ends: the position of
	// its noToken.
	ends []int32
}

func newSources(texts [][]llama.Token) *sources {
	s := &sources{pairs: map[uint64][]int32{}}
	for _, t := range texts {
		s.toks = append(s.toks, t...)
		s.toks = append(s.toks, noToken)
		for len(s.ends) < len(s.toks) {
			s.ends = append(s.ends, int32(len(s.toks)-1))
		}
	}
	for p := 1; p+1 < len(s.toks); p++ {
		if s.toks[p-1] == noToken || s.toks[p] == noToken || s.toks[p+1] == noToken {
			continue
		}
		k := pair(s.toks[p-1], s.toks[p])
		s.pairs[k] = append(s.pairs[k], int32(p))
	}
	return s
}

// draft returns up to max tokens that follow the longest match, of at
// least minN tokens and at most sourceN, of the end of history in the
// sources; among equal matches, the one its source lets run longest (up
// to max), then the latest. It stops at the end of that source. A text
// that repeats (a run of the same lines, a reply kept by a Pace that
// repeated itself) matches at many places, and the last ones stop short.
func (s *sources) draft(history []llama.Token, max, minN int) []llama.Token {
	end := len(history)
	if end < 2 || max <= 0 {
		return nil
	}
	cands := s.pairs[pair(history[end-2], history[end-1])]
	best, bestN, bestRun := int32(-1), 0, 0
	for i := len(cands) - 1; i >= 0 && len(cands)-i <= maxChain; i-- {
		p := cands[i]
		n := 2
		for n < sourceN && int(p)-n >= 0 && end-1-n >= 0 && s.toks[int(p)-n] == history[end-1-n] {
			n++
		}
		run := min(int(s.ends[p]-p-1), max)
		if n > bestN || n == bestN && run > bestRun {
			best, bestN, bestRun = p, n, run
			if n == sourceN && run == max {
				break
			}
		}
	}
	if best < 0 || bestN < minN {
		return nil
	}
	var d []llama.Token
	for q := int(best) + 1; q < len(s.toks) && s.toks[q] != noToken && len(d) < max; q++ {
		d = append(d, s.toks[q])
	}
	return d
}
