package main

import (
	"math/rand/v2"
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
