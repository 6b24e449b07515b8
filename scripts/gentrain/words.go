package main

import (
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// The pools the generator draws names and values from. Names vary with the
// seed, so a held-out task is new even in a family the model trained on.
var (
	packages  = []string{"stats", "calc", "shop", "ledger", "score", "mathx", "billing", "inventory", "grades", "metrics", "orders", "tally", "budget", "fleet", "cart", "quota"}
	sliceVars = []string{"xs", "nums", "vals", "values", "items", "counts", "scores", "prices"}
	constants = []string{"MaxRetries", "DefaultPort", "BatchSize", "MaxUsers", "TimeoutSeconds", "CacheSize", "PageSize", "MaxDepth", "Workers", "BufferSize", "RetryDelay", "MinLength"}
	services  = []string{"billing", "gateway", "auth", "search", "reports", "mailer", "uploader", "scheduler", "catalog", "payments", "notifier", "indexer"}
	subdirs   = []string{"internal/config", "pkg/settings", "internal/app", "config", "internal/server", "pkg/core"}
	words     = []string{"apple", "river", "stone", "cloud", "tiger", "lemon", "paper", "garden", "rocket", "window", "planet", "silver", "bridge", "candle", "forest", "harbor"}
	funcNames = []string{"Name", "Service", "Label", "Owner", "Region", "Mode", "Version", "Channel"}
)

// nameWords are what wide names (--names wide) are made of: two of them
// make a function's, a parameter's or a constant's name, so that a task
// has one of about 25,000 names for each, which a model can only copy from
// the file it read, never recall from training. None is a word of a
// filler's name (IsEven, CountZeros, IndexOf), so that no name is taken
// twice in one package.
var nameWords = []string{
	"amber", "anchor", "arrow", "atlas", "badge", "basin", "beacon", "berry", "blade", "bloom",
	"bolt", "border", "branch", "brick", "brook", "cabin", "cable", "camel", "canyon", "cargo",
	"castle", "cedar", "chalk", "cherry", "cider", "circle", "clover", "coast", "comet", "copper",
	"coral", "cotton", "crane", "crest", "crown", "crystal", "dawn", "delta", "desert", "dune",
	"eagle", "ember", "falcon", "feather", "fern", "ferry", "field", "flint", "frost", "galaxy",
	"gate", "glacier", "globe", "granite", "grove", "hammer", "hazel", "hollow", "honey", "horizon",
	"island", "ivory", "jade", "jungle", "kettle", "lagoon", "lantern", "laurel", "ledge", "linen",
	"lotus", "lunar", "maple", "marble", "meadow", "mesa", "mint", "mirror", "mist", "moss",
	"nectar", "needle", "nova", "oak", "ocean", "olive", "onyx", "orbit", "orchid", "otter",
	"palm", "pebble", "pepper", "pine", "pixel", "plume", "polar", "pond", "prism", "pulse",
	"quartz", "quill", "radar", "rain", "raven", "reef", "ridge", "ripple", "robin", "saddle",
	"saffron", "sage", "sand", "shadow", "shell", "shore", "signal", "slate", "snow", "solar",
	"spark", "spruce", "storm", "summit", "swift", "thistle", "thunder", "timber", "topaz", "torch",
	"tulip", "tundra", "velvet", "violet", "wave", "willow", "winter", "wren", "yarrow", "zephyr",
	"badger", "bison", "cobalt", "dusk", "fable", "glow", "harvest", "lilac", "meteor", "nimbus",
	"acorn", "basalt", "breeze", "canopy", "cinder", "drift", "echo", "fjord", "garnet", "heron",
}

// upper is s with its first letter in upper case.
func upper(s string) string { return strings.ToUpper(s[:1]) + s[1:] }

// funcName is one of pool, or with wide names two words: "RiverTally".
func (e env) funcName(r *rand.Rand, pool []string) string {
	if !e.wide {
		return pick(r, pool)
	}
	return upper(pick(r, nameWords)) + upper(pick(r, nameWords))
}

// varName is one of pool, or with wide names two words: "riverTally".
func (e env) varName(r *rand.Rand, pool []string) string {
	if !e.wide {
		return pick(r, pool)
	}
	return e.varNames(r, nil, 1)[0]
}

// varNames is n distinct names of pool, or with wide names n distinct
// names of two words: "riverTally".
func (e env) varNames(r *rand.Rand, pool []string, n int) []string {
	if !e.wide {
		return pickN(r, pool, n)
	}
	return e.wideNames(r, n, func(a, b string) string { return a + upper(b) })
}

// constNames is n distinct names of exported constants, as varNames.
func (e env) constNames(r *rand.Rand, pool []string, n int) []string {
	if !e.wide {
		return pickN(r, pool, n)
	}
	return e.wideNames(r, n, func(a, b string) string { return upper(a) + upper(b) })
}

// wideNames is n distinct names that join makes of two words.
func (e env) wideNames(r *rand.Rand, n int, join func(a, b string) string) []string {
	out := make([]string, 0, n)
	for len(out) < n {
		if name := join(pick(r, nameWords), pick(r, nameWords)); !slices.Contains(out, name) {
			out = append(out, name)
		}
	}
	return out
}

// pick returns one element of xs.
func pick[T any](r *rand.Rand, xs []T) T { return xs[r.IntN(len(xs))] }

// pickN returns n distinct elements of xs, in a random order.
func pickN[T any](r *rand.Rand, xs []T, n int) []T {
	idx := r.Perm(len(xs))[:n]
	out := make([]T, n)
	for i, j := range idx {
		out[i] = xs[j]
	}
	return out
}

// between returns an int in [lo, hi].
func between(r *rand.Rand, lo, hi int) int { return lo + r.IntN(hi-lo+1) }

// distinct returns n distinct ints in [lo, hi].
func distinct(r *rand.Rand, n, lo, hi int) []int {
	return pickN(r, intsFrom(lo, hi), n)
}

func intsFrom(lo, hi int) []int {
	out := make([]int, 0, hi-lo+1)
	for i := lo; i <= hi; i++ {
		out = append(out, i)
	}
	return out
}

// goList is a []int literal's elements: "3, 4, 5".
func goList(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = itoa(x)
	}
	return strings.Join(parts, ", ")
}

// fmtList is xs as fmt's %v prints it: "[3 4 5]".
func fmtList(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = itoa(x)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

func itoa(i int) string { return strconv.Itoa(i) }
