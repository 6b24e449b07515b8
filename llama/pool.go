package llama

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"unicode"
)

// PoolParams configures NewPool. The zero value has no host-RAM cache and
// no save directory.
type PoolParams struct {
	// CacheBytes bounds a host-RAM cache of sequence states: when a slot is
	// given a prompt that does not extend what it holds, its old state is
	// kept there, and a later prompt that extends it is restored from there
	// instead of being computed again (llama-server's --cache-ram). 0 turns
	// the cache off.
	CacheBytes int64
	// SaveDir is the directory Save and Restore use. Empty disables them.
	SaveDir string
}

// Pool hands out the slots of a Context, one per sequence, so that every
// prompt lands where most of it is already cached. It is safe for concurrent
// use; each Slot it returns is not. A slot is leased: from Acquire to
// Release only its holder touches it, and the pool neither reads nor moves
// its tokens meanwhile.
type Pool struct {
	mu     sync.Mutex
	ctx    *Context
	slots  []*Slot
	leased map[*Slot]bool
	freed  chan struct{} // closed, and replaced, when a slot is released
	clock  uint64
	params PoolParams
	cache  []cachedState
	cached int64 // bytes held in cache
}

// cachedState is an evicted sequence kept in host RAM.
type cachedState struct {
	tokens []Token
	state  []byte
	used   uint64
}

// NewPool makes one slot per sequence of c.
func NewPool(c *Context, p PoolParams) (*Pool, error) {
	pool := &Pool{ctx: c, params: p, leased: map[*Slot]bool{}, freed: make(chan struct{})}
	for seq := range c.Sequences() {
		s, err := NewSlot(c, seq)
		if err != nil {
			return nil, err
		}
		pool.slots = append(pool.slots, s)
	}
	return pool, nil
}

// Slots returns the pool's slots, indexed by sequence id. Use them directly
// only when nothing leases them through Acquire.
func (p *Pool) Slots() []*Slot { return p.slots }

// CachedBytes returns the bytes held by the host-RAM cache.
func (p *Pool) CachedBytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cached
}

// Acquire leases the slot for prompt, preparing its KV cache so that the
// following Prefill computes as little as possible:
//
//   - A free slot whose content the prompt mostly keeps (at least half of
//     it) and that holds the longest prefix is used as it is.
//   - Otherwise an empty slot, or the least recently used free one, is
//     taken. Its content goes to the host-RAM cache. It then receives the
//     longest prefix available: restored from the RAM cache, or forked with
//     seq_cp from the free slot that shares the most (a system prompt and
//     tools, say) without disturbing that slot's conversation.
//
// When every slot is leased, Acquire waits for a Release or for ctx. The
// caller must Release the slot when it is done with it.
func (p *Pool) Acquire(ctx context.Context, prompt []Token) (*Slot, error) {
	var pl acquirePlan
	for {
		p.mu.Lock()
		var ok bool
		if pl, ok = p.plan(prompt); ok {
			p.mu.Unlock()
			break
		}
		wait := p.freed
		p.mu.Unlock()
		select {
		case <-ctx.Done():
			return nil, newError("acquire slot", "", ctx.Err())
		case <-wait:
		}
	}
	// The KV work runs outside the pool's lock: it waits for any decode in
	// progress on the context.
	err := p.prepare(pl)
	p.mu.Lock()
	if pl.source != nil {
		p.unlease(pl.source)
	}
	if err != nil {
		pl.target.tokens = pl.target.tokens[:0]
		p.ctx.SeqRemove(pl.target.seq, -1, -1)
		p.unlease(pl.target)
	}
	p.mu.Unlock()
	if err != nil {
		return nil, err
	}
	return pl.target, nil
}

// Release ends the lease of a slot from Acquire.
func (p *Pool) Release(s *Slot) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.unlease(s)
}

// unlease frees s and wakes the waiting Acquire calls; p.mu is held.
func (p *Pool) unlease(s *Slot) {
	if !p.leased[s] {
		return
	}
	delete(p.leased, s)
	close(p.freed)
	p.freed = make(chan struct{})
}

// acquirePlan is what Acquire does to a slot once the pool's lock is
// released: keep its state in RAM (stash), then restore a cached state or
// fork n tokens of source into it.
type acquirePlan struct {
	target  *Slot
	stash   bool
	clear   bool // empty the target before a fork, or for a fresh start
	restore *cachedState
	source  *Slot // leased for the fork, then released
	n       int
}

// plan picks the target slot among the free ones and leases it; p.mu is
// held. It reports false when every slot is leased.
func (p *Pool) plan(prompt []Token) (acquirePlan, bool) {
	var pl acquirePlan
	if len(p.leased) == len(p.slots) {
		return pl, false
	}
	p.clock++
	best, bestN := p.longestPrefix(prompt)
	ci, cn := p.bestCached(prompt)
	switch {
	case best != nil && 2*bestN >= best.Len() && bestN >= cn:
		pl.target, pl.stash = best, bestN < best.Len()
	default:
		pl.target = p.freeOrLRU()
		pl.stash, pl.clear = true, true
		switch {
		case cn > bestN:
			c := p.cache[ci]
			p.dropCached(ci)
			pl.restore = &c
		case best != nil && best != pl.target && bestN > 0:
			pl.source, pl.n = best, bestN
			p.leased[best] = true
		}
	}
	p.leased[pl.target] = true
	pl.target.used = p.clock
	return pl, true
}

// prepare carries out a plan, outside the pool's lock.
func (p *Pool) prepare(pl acquirePlan) error {
	s := pl.target
	if pl.stash {
		if err := p.stash(s); err != nil {
			return err
		}
	}
	switch {
	case pl.restore != nil:
		if err := p.ctx.SetSeqState(s.seq, pl.restore.state); err != nil {
			return err
		}
		s.tokens = append(s.tokens[:0], pl.restore.tokens...)
	case pl.source != nil:
		return p.fork(pl.source, s, pl.n)
	case pl.clear:
		return s.Clear()
	}
	return nil
}

// longestPrefix returns the slot sharing the longest prefix with prompt.
func (p *Pool) longestPrefix(prompt []Token) (*Slot, int) {
	var best *Slot
	bestN := 0
	for _, s := range p.slots {
		if p.leased[s] {
			continue
		}
		if n := s.CommonPrefix(prompt); n > bestN {
			best, bestN = s, n
		}
	}
	return best, bestN
}

// freeOrLRU returns an empty free slot, else the least recently used free
// one; p.mu is held and some slot is free.
func (p *Pool) freeOrLRU() *Slot {
	var lru *Slot
	for _, s := range p.slots {
		if p.leased[s] {
			continue
		}
		if s.Len() == 0 {
			return s
		}
		if lru == nil || s.used < lru.used {
			lru = s
		}
	}
	return lru
}

// bestCached returns the cache entry sharing the longest prefix with prompt.
func (p *Pool) bestCached(prompt []Token) (int, int) {
	bi, bn := -1, 0
	for i, c := range p.cache {
		n := commonPrefix(c.tokens, prompt)
		if n > bn {
			bi, bn = i, n
		}
	}
	return bi, bn
}

func commonPrefix(a, b []Token) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// stash copies the slot's state into the host-RAM cache, when the cache is
// on and the state fits, evicting the oldest entries to make room. It reads
// the state without the pool's lock and files it with it.
func (p *Pool) stash(s *Slot) error {
	if p.params.CacheBytes <= 0 || s.Len() == 0 {
		return nil
	}
	state, err := p.ctx.SeqState(s.seq)
	if err != nil {
		return err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if int64(len(state)) > p.params.CacheBytes {
		return nil
	}
	for p.cached+int64(len(state)) > p.params.CacheBytes {
		p.dropCached(p.oldestCached())
	}
	p.cache = append(p.cache, cachedState{tokens: append([]Token(nil), s.tokens...), state: state, used: p.clock})
	p.cached += int64(len(state))
	return nil
}

func (p *Pool) oldestCached() int {
	o := 0
	for i, c := range p.cache {
		if c.used < p.cache[o].used {
			o = i
		}
	}
	return o
}

func (p *Pool) dropCached(i int) {
	p.cached -= int64(len(p.cache[i].state))
	p.cache = append(p.cache[:i], p.cache[i+1:]...)
}

// Fork makes dst hold the first n tokens of src, sharing their KV cells:
// a branch point for two continuations of one prefix. The caller holds
// both slots (leased, or outside any Acquire).
func (p *Pool) Fork(src, dst *Slot, n int) error {
	p.mu.Lock()
	p.clock++
	dst.used = p.clock
	p.mu.Unlock()
	return p.fork(src, dst, n)
}

func (p *Pool) fork(src, dst *Slot, n int) error {
	if src == dst || n < 0 || n > src.Len() {
		return newError("fork", "", detail(ErrInvalidArgument, "fork %d of %d tokens from slot %d to slot %d", n, src.Len(), src.seq, dst.seq))
	}
	if err := dst.Clear(); err != nil {
		return err
	}
	if err := p.ctx.SeqCopy(src.seq, dst.seq, -1, -1); err != nil {
		return err
	}
	ok, err := p.ctx.SeqRemove(dst.seq, n, -1)
	if err != nil {
		return err
	}
	if !ok {
		dst.Clear()
		return newError("fork", "", errors.New("this model's memory cannot keep a partial sequence"))
	}
	dst.tokens = append(dst.tokens[:0], src.tokens[:n]...)
	return nil
}

// Save writes a slot's state and tokens to SaveDir/name. The name must be a
// plain file name, as llama-server's /slots?action=save requires.
func (p *Pool) Save(s *Slot, name string) (string, error) {
	path, err := p.savePath("save slot", name)
	if err != nil {
		return "", err
	}
	return path, p.ctx.SaveSeqState(path, s.seq, s.tokens)
}

// Restore loads SaveDir/name into a slot. When it fails, the slot is left
// empty, its tokens and its sequence in step.
func (p *Pool) Restore(s *Slot, name string) error {
	path, err := p.savePath("restore slot", name)
	if err != nil {
		return err
	}
	toks, err := p.ctx.LoadSeqState(path, s.seq)
	if err != nil {
		s.Clear()
		return err
	}
	s.tokens = append(s.tokens[:0], toks...)
	return nil
}

func (p *Pool) savePath(op, name string) (string, error) {
	if p.params.SaveDir == "" {
		return "", newError(op, name, errors.New("the pool has no save directory"))
	}
	if err := ValidateFileName(name); err != nil {
		return "", newError(op, name, err)
	}
	return filepath.Join(p.params.SaveDir, name), nil
}

// ValidateFileName accepts a plain, portable file name: 1 to 255 bytes of
// valid UTF-8, no path separator, no control or reserved character, not "."
// or "..", and no leading or trailing space or dot.
func ValidateFileName(name string) error {
	bad := func(why string) error { return detail(ErrInvalidArgument, "file name %q %s", name, why) }
	switch {
	case name == "" || len(name) > 255:
		return bad("must have 1 to 255 bytes")
	case name == "." || name == "..":
		return bad("is a directory reference")
	case strings.TrimSpace(name) != name || strings.HasSuffix(name, "."):
		return bad("has a leading or trailing space or a trailing dot")
	case strings.HasPrefix(name, "."):
		return bad("starts with a dot")
	}
	for _, r := range name {
		if r == unicode.ReplacementChar || unicode.IsControl(r) || strings.ContainsRune(`/\:*?"<>|`, r) {
			return bad(fmt.Sprintf("contains %q", r))
		}
	}
	return nil
}
