package llama

import (
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
// use; each Slot it returns is not.
type Pool struct {
	mu     sync.Mutex
	ctx    *Context
	slots  []*Slot
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
	pool := &Pool{ctx: c, params: p}
	for seq := range c.Sequences() {
		s, err := NewSlot(c, seq)
		if err != nil {
			return nil, err
		}
		pool.slots = append(pool.slots, s)
	}
	return pool, nil
}

// Slots returns the pool's slots, indexed by sequence id.
func (p *Pool) Slots() []*Slot { return p.slots }

// CachedBytes returns the bytes held by the host-RAM cache.
func (p *Pool) CachedBytes() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cached
}

// Acquire returns the slot for prompt, preparing its KV cache so that the
// following Prefill computes as little as possible:
//
//   - A slot whose content the prompt mostly keeps (at least half of it)
//     and that holds the longest prefix is used as it is.
//   - Otherwise a free slot, or the least recently used one, is taken. Its
//     content goes to the host-RAM cache. It then receives the longest prefix
//     available: restored from the RAM cache, or forked with seq_cp from the
//     slot that shares the most (a system prompt and tools, say) without
//     disturbing that slot's conversation.
func (p *Pool) Acquire(prompt []Token) (*Slot, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clock++
	best, bestN := p.longestPrefix(prompt)
	ci, cn := p.bestCached(prompt)
	var target *Slot
	switch {
	case best != nil && 2*bestN >= best.Len() && bestN >= cn:
		target = best
		if bestN < best.Len() {
			if err := p.stash(target); err != nil {
				return nil, err
			}
		}
	default:
		target = p.freeOrLRU()
		if err := p.stash(target); err != nil {
			return nil, err
		}
		switch {
		case cn > bestN:
			c := p.cache[ci]
			p.dropCached(ci)
			if err := p.ctx.SetSeqState(target.seq, c.state); err != nil {
				return nil, err
			}
			target.tokens = append(target.tokens[:0], c.tokens...)
		case target != best:
			if err := target.Clear(); err != nil {
				return nil, err
			}
			if best != nil && bestN > 0 {
				if err := p.fork(best, target, bestN); err != nil {
					return nil, err
				}
			}
		}
	}
	target.used = p.clock
	return target, nil
}

// longestPrefix returns the slot sharing the longest prefix with prompt.
func (p *Pool) longestPrefix(prompt []Token) (*Slot, int) {
	var best *Slot
	bestN := 0
	for _, s := range p.slots {
		if n := s.CommonPrefix(prompt); n > bestN {
			best, bestN = s, n
		}
	}
	return best, bestN
}

// freeOrLRU returns an empty slot, else the least recently used one.
func (p *Pool) freeOrLRU() *Slot {
	lru := p.slots[0]
	for _, s := range p.slots {
		if s.Len() == 0 {
			return s
		}
		if s.used < lru.used {
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
// on and the state fits, evicting the oldest entries to make room.
func (p *Pool) stash(s *Slot) error {
	if p.params.CacheBytes <= 0 || s.Len() == 0 {
		return nil
	}
	state, err := p.ctx.SeqState(s.seq)
	if err != nil {
		return err
	}
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
// a branch point for two continuations of one prefix.
func (p *Pool) Fork(src, dst *Slot, n int) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clock++
	dst.used = p.clock
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

// Restore loads SaveDir/name into a slot.
func (p *Pool) Restore(s *Slot, name string) error {
	path, err := p.savePath("restore slot", name)
	if err != nil {
		return err
	}
	toks, err := p.ctx.LoadSeqState(path, s.seq)
	if err != nil {
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
