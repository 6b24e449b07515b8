package repomap

import (
	"math"
	"slices"
	"sort"
	"strings"
	"unicode"
)

// Rank orders files by how much the rest of the repository refers to
// them, as Aider's repomap.py does: a graph with an edge from each file
// that uses an identifier to each file that defines it, weighted by the
// square root of the number of uses, and PageRank over it. Weights
// follow Aider: x10 for an identifier the conversation mentions, x10 for
// a long, specific name (8 characters or more, in camelCase or
// snake_case), x0.1 for a private _name, x0.1 for a name defined in more
// than five files (String, Close, get), and x50 for uses from a file of
// the conversation. The files of the conversation also get the random
// surfer's restarts (PageRank's personalization), so the map ranks what
// they refer to.
func Rank(files []File, mentioned, idents []string) []float64 {
	index := map[string]int{}
	for i, f := range files {
		index[f.Path] = i
	}
	definers := map[string][]int{}
	for i, f := range files {
		for _, d := range f.Decls {
			if d.Name != "" && !slices.Contains(definers[d.Name], i) {
				definers[d.Name] = append(definers[d.Name], i)
			}
		}
	}
	chat := make([]bool, len(files))
	for _, p := range mentioned {
		if i, ok := index[p]; ok {
			chat[i] = true
		}
	}
	edges := make([]map[int]float64, len(files))
	for from, f := range files {
		edges[from] = map[int]float64{}
		for ident, n := range f.Refs {
			defs := definers[ident]
			if len(defs) == 0 {
				continue
			}
			w := identWeight(ident, len(defs), slices.Contains(idents, ident)) * math.Sqrt(float64(n))
			if chat[from] {
				w *= 50
			}
			for _, to := range defs {
				if to != from {
					edges[from][to] += w
				}
			}
		}
	}
	return pageRank(edges, personalization(chat))
}

// identWeight is an identifier's weight in the graph.
func identWeight(ident string, definers int, mentioned bool) float64 {
	w := 1.0
	if mentioned {
		w *= 10
	}
	if len(ident) >= 8 && (strings.Contains(ident, "_") || hasInnerUpper(ident)) {
		w *= 10
	}
	if strings.HasPrefix(ident, "_") {
		w *= 0.1
	}
	if definers > 5 {
		w *= 0.1
	}
	return w
}

func hasInnerUpper(s string) bool {
	for i, r := range s {
		if i > 0 && unicode.IsUpper(r) {
			return true
		}
	}
	return false
}

// personalization spreads the restarts over the conversation's files, or
// over all files when there are none.
func personalization(chat []bool) []float64 {
	p := make([]float64, len(chat))
	n := 0
	for _, c := range chat {
		if c {
			n++
		}
	}
	for i, c := range chat {
		switch {
		case n == 0:
			p[i] = 1 / float64(len(chat))
		case c:
			p[i] = 1 / float64(n)
		}
	}
	return p
}

// pageRank is PageRank with damping 0.85 over weighted edges, networkx's
// algorithm: a dangling file's rank goes to the personalization.
func pageRank(edges []map[int]float64, p []float64) []float64 {
	const damping, iterations, tol = 0.85, 100, 1e-9
	n := len(edges)
	rank := slices.Clone(p)
	out := make([]float64, n)
	for from, e := range edges {
		for _, w := range e {
			out[from] += w
		}
	}
	for range iterations {
		next := make([]float64, n)
		dangling := 0.0
		for from, e := range edges {
			if out[from] == 0 {
				dangling += rank[from]
				continue
			}
			for _, to := range sortedKeys(e) {
				next[to] += damping * rank[from] * e[to] / out[from]
			}
		}
		diff := 0.0
		for i := range next {
			next[i] += (damping*dangling + 1 - damping) * p[i]
			diff += math.Abs(next[i] - rank[i])
		}
		rank = next
		if diff < tol*float64(n) {
			break
		}
	}
	return rank
}

// sortedKeys makes the sums' order, and so the ranks, reproducible.
func sortedKeys(m map[int]float64) []int {
	keys := make([]int, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Ints(keys)
	return keys
}
