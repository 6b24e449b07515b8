package engine

import "time"

// EvenSteps makes every step that paces drafting take the same time until
// the returned function restores the real clock: a draft that yields two
// tokens or more is then a hit, one that yields one a miss, whatever the
// machine's load. A test that calls it must not run in parallel.
func EvenSteps() (restore func()) {
	var t time.Time
	clock = func() time.Time {
		t = t.Add(time.Millisecond)
		return t
	}
	return func() { clock = time.Now }
}
