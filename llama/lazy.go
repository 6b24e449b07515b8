package llama

import (
	"bytes"
	"slices"
	"strings"
)

// lazyWatch wakes a lazy grammar from Go. llama.cpp's lazy grammar keeps
// every piece of output before its trigger and matches its trigger
// patterns against all of it on each token: the cost of a token grows with
// the reply, and std::regex_match overflows the stack after about 7,000
// tokens. The watch keeps only the last len(longest word)-1 bytes (whole
// tokens), which is all a word that completes with the next token can
// start in, and gives llama.cpp's grammar nothing until a trigger appears;
// then it hands over the few tokens from the one where the word starts, and
// llama.cpp's grammar finds the word in them and wakes exactly as it would
// have.
//
// Start words wake the grammar only at the start of the output, after
// white space: the watch keeps the output from its first other byte for as
// long as it may still begin with one of them.
type lazyWatch struct {
	words  [][]byte
	tokens []Token
	keep   int     // bytes of output that a word may start in
	tail   []byte  // the last output, whole tokens
	toks   []Token // the tokens of tail
	ends   []int   // where each of them ends in tail
	awake  bool

	starts [][]byte
	head   []byte  // the output from its first byte that is not white space
	htoks  []Token // the tokens of head, the first one maybe with white space before
	open   bool    // head may still begin with a start word
}

func newLazyWatch(t LazyTriggers) *lazyWatch {
	w := &lazyWatch{tokens: slices.Clone(t.Tokens)}
	for _, word := range t.Words {
		w.words = append(w.words, []byte(word))
		w.keep = max(w.keep, len(word)-1)
	}
	for _, word := range t.Starts {
		w.starts = append(w.starts, []byte(word))
	}
	w.reset()
	return w
}

func (w *lazyWatch) reset() {
	w.tail, w.toks, w.ends, w.awake = w.tail[:0], w.toks[:0], w.ends[:0], false
	w.head, w.htoks, w.open = w.head[:0], w.htoks[:0], len(w.starts) > 0
}

// accept returns the tokens the grammar must accept now that t was chosen:
// none while the trigger has not appeared, the output from the trigger on
// when it just did, and t itself once the grammar is awake.
func (w *lazyWatch) accept(m *Model, t Token) []Token {
	if w.awake {
		return []Token{t}
	}
	if slices.Contains(w.tokens, t) {
		w.wake()
		return []Token{t}
	}
	p := m.piece(t, true)
	if feed := w.acceptStart(t, p); feed != nil {
		w.wake()
		return feed
	}
	w.tail = append(w.tail, p...)
	w.toks = append(w.toks, t)
	w.ends = append(w.ends, len(w.tail))
	if at := w.find(); at >= 0 {
		first := 0
		for w.ends[first] <= at {
			first++
		}
		feed := slices.Clone(w.toks[first:])
		w.wake()
		return feed
	}
	w.trim()
	return nil
}

// acceptStart follows the start of the output with t, whose text is p:
// it returns the tokens from the first one that is not all white space
// when a start word has just completed there, else nil.
func (w *lazyWatch) acceptStart(t Token, piece string) []Token {
	if !w.open {
		return nil
	}
	p := piece
	if len(w.head) == 0 {
		if p = strings.TrimLeft(p, " \t\n\r"); p == "" {
			return nil
		}
	}
	w.head = append(w.head, p...)
	w.htoks = append(w.htoks, t)
	for _, s := range w.starts {
		if bytes.HasPrefix(w.head, s) {
			return slices.Clone(w.htoks)
		}
	}
	for _, s := range w.starts {
		if bytes.HasPrefix(s, w.head) {
			return nil
		}
	}
	w.open = false
	return nil
}

// find returns where the earliest trigger word starts in the tail, or -1.
func (w *lazyWatch) find() int {
	at := -1
	for _, word := range w.words {
		if i := bytes.Index(w.tail, word); i >= 0 && (at < 0 || i < at) {
			at = i
		}
	}
	return at
}

// trim drops the tokens that end before the last keep bytes.
func (w *lazyWatch) trim() {
	cut := len(w.tail) - w.keep
	drop := 0
	for drop < len(w.ends) && w.ends[drop] <= cut {
		drop++
	}
	if drop == 0 {
		return
	}
	start := w.ends[drop-1]
	w.tail = append(w.tail[:0], w.tail[start:]...)
	w.toks = append(w.toks[:0], w.toks[drop:]...)
	w.ends = w.ends[:copy(w.ends, w.ends[drop:])]
	for i := range w.ends {
		w.ends[i] -= start
	}
}

func (w *lazyWatch) wake() {
	w.reset()
	w.awake = true
}
