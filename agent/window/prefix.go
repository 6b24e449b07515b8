package window

import (
	"fmt"
	"unicode/utf8"

	"github.com/loopagent/loop/internal/decimal"
)

// Reuse compares two consecutive rendered prompts. The engine reuses its
// KV cache up to the first token that differs, so the shared prefix
// predicts, in characters, how much of the second request is read from
// the cache and how much is computed again.
type Reuse struct {
	// First and Second are the prompts' lengths, Shared their common
	// prefix, in characters.
	First, Second, Shared int
}

// New is the number of characters of the second prompt to compute.
func (r Reuse) New() int { return r.Second - r.Shared }

// String reads "req1 155 chars, req2 331 chars, shared 155 (100% of
// req1), new 176".
func (r Reuse) String() string {
	share := 0.0
	if r.First > 0 {
		share = 100 * float64(r.Shared) / float64(r.First)
	}
	return fmt.Sprintf("req1 %d chars, req2 %d chars, shared %d (%s%% of req1), new %d",
		r.First, r.Second, r.Shared, decimal.Fixed(share, 0), r.New())
}

// CommonPrefix measures two rendered prompts.
func CommonPrefix(a, b string) Reuse {
	i := 0
	for i < len(a) && i < len(b) && a[i] == b[i] {
		i++
	}
	for i > 0 && i < len(a) && !utf8.RuneStart(a[i]) {
		i-- // back to the start of a rune both share
	}
	return Reuse{
		First:  utf8.RuneCountInString(a),
		Second: utf8.RuneCountInString(b),
		Shared: utf8.RuneCountInString(a[:i]),
	}
}
