package main

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/loopagent/loop/llama"
)

// swapRow is one way a conversation comes back to a slot that another
// conversation took (--swap): recomputed, or restored from the Pool's
// host-RAM cache of sequence states.
type swapRow struct {
	Mode    string  `json:"mode"` // "recompute" or "ram-cache"
	Prompt  int     `json:"prompt_tokens"`
	CacheN  int     `json:"cache_n"`
	PromptN int     `json:"prompt_n"`
	TTFTMs  float64 `json:"ttft_ms"` // Acquire (the restore) + prefill + one sample
	// CachedBytes is the RAM cache's size after the return (B stashed,
	// A taken back out).
	CachedBytes int64 `json:"cached_bytes,omitempty"`
}

// benchSwap measures a conversation of n tokens coming back after another
// one filled the only slot: conversation A is prefilled, B replaces it,
// then A's next turn (n tokens and 32 more) is acquired and prefilled,
// once with the RAM cache off (A is computed again) and once with it on
// (A's state is copied back). Each is the best of f.reps runs.
func benchSwap(ctx context.Context, m *llama.Model, f benchFlags, n int) ([]swapRow, error) {
	a, err := m.Tokenize(newConversation(n).next(1), true, true)
	if err != nil {
		return nil, err
	}
	b, err := m.Tokenize(newConversation(n/2).next(2), true, true)
	if err != nil {
		return nil, err
	}
	a, b = a[:min(len(a), n)], b[:min(len(b), n)]
	more, err := m.Tokenize(" and the next question about the same code", false, true)
	if err != nil {
		return nil, err
	}
	next := append(append([]llama.Token(nil), a...), more...)
	greedy, err := newGreedy()
	if err != nil {
		return nil, err
	}
	defer greedy.Close()
	var rows []swapRow
	for _, mode := range []string{"recompute", "ram-cache"} {
		row := swapRow{Mode: mode, Prompt: len(next)}
		for range max(f.reps, 1) {
			r, err := swapOnce(ctx, m, f, mode == "ram-cache", greedy, a, b, next)
			if err != nil {
				return nil, err
			}
			if row.TTFTMs == 0 || r.TTFTMs < row.TTFTMs {
				r.Mode, r.Prompt = row.Mode, row.Prompt
				row = r
			}
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// swapOnce runs A, B, then A's next turn in a fresh one-slot pool.
func swapOnce(ctx context.Context, m *llama.Model, f benchFlags, ram bool, greedy *llama.Sampler, a, b, next []llama.Token) (swapRow, error) {
	c, err := f.context(m, len(next)+64)
	if err != nil {
		return swapRow{}, err
	}
	defer c.Close()
	var params llama.PoolParams
	if ram {
		params.CacheBytes = 1 << 34
	}
	pool, err := llama.NewPool(c, params)
	if err != nil {
		return swapRow{}, err
	}
	for _, p := range [][]llama.Token{a, b} {
		s, err := pool.Acquire(ctx, p)
		if err != nil {
			return swapRow{}, err
		}
		_, err = s.Prefill(ctx, p)
		pool.Release(s)
		if err != nil {
			return swapRow{}, err
		}
	}
	start := time.Now()
	s, err := pool.Acquire(ctx, next)
	if err != nil {
		return swapRow{}, err
	}
	defer pool.Release(s)
	st, err := s.Prefill(ctx, next)
	if err != nil {
		return swapRow{}, err
	}
	if _, err := greedy.Sample(c, -1); err != nil {
		return swapRow{}, err
	}
	return swapRow{CacheN: st.CacheN, PromptN: st.PromptN, TTFTMs: float64(time.Since(start).Microseconds()) / 1000,
		CachedBytes: pool.CachedBytes()}, nil
}

// printSwap prints the --swap table.
func printSwap(w io.Writer, rows []swapRow) {
	if len(rows) == 0 {
		return
	}
	fmt.Fprintf(w, "\nswap: a %d-token conversation comes back after another took its only slot\n", rows[0].Prompt)
	fmt.Fprintf(w, "| %-9s | %7s | %8s | %8s | %12s |\n", "mode", "cache_n", "prompt_n", "ttft ms", "RAM cache")
	fmt.Fprintf(w, "| --------- | ------: | -------: | -------: | -----------: |\n")
	for _, r := range rows {
		fmt.Fprintf(w, "| %-9s | %7d | %8d | %8.1f | %12s |\n", r.Mode, r.CacheN, r.PromptN, r.TTFTMs, humanBytes(uint64(r.CachedBytes)))
	}
	if len(rows) == 2 && rows[1].TTFTMs > 0 {
		fmt.Fprintf(w, "the RAM cache saves %.1f ms (%.1fx faster)\n", rows[0].TTFTMs-rows[1].TTFTMs, rows[0].TTFTMs/rows[1].TTFTMs)
	}
}
