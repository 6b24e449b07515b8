package llama_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

func TestPoolAcquire(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 2048, Sequences: 3})
	ctx := context.Background()
	pool, err := llama.NewPool(c, llama.PoolParams{CacheBytes: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	conv := func(topic string, turns int) []llama.Token {
		return tokenize(t, m, strings.Repeat("<|im_start|>user\nTell me about "+topic+".<|im_end|>\n", turns))
	}
	a, b, d := conv("Go", 4), conv("Rust", 4), conv("Java", 4)
	prefill := func(p []llama.Token) (*llama.Slot, llama.PrefillStats) {
		t.Helper()
		s, err := pool.Acquire(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		defer pool.Release(s)
		st, err := s.Prefill(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		return s, st
	}
	sa, _ := prefill(a)
	prefix := commonLen(a, b)
	sb, st := prefill(b)
	if sa == sb {
		t.Fatalf("two conversations got the same slot")
	}
	// b shares a's first tokens: they are forked into b's slot, not recomputed.
	if st.CacheN != prefix {
		t.Errorf("b: cache_n %d, want the %d tokens it shares with a", st.CacheN, prefix)
	}
	// An extension of a goes to a's slot and reuses all of a.
	s, st := prefill(conv("Go", 6))
	if s != sa || st.CacheN != len(a) {
		t.Errorf("extending a: slot %d cache_n %d, want slot %d cache_n %d", s.Seq(), st.CacheN, sa.Seq(), len(a))
	}
	sd, _ := prefill(d) // the third, free slot
	if sd == sa || sd == sb {
		t.Errorf("a third conversation took a busy slot")
	}
	// A fourth conversation takes the least recently used slot (b's) and
	// keeps b's state in RAM...
	se, _ := prefill(conv("Zig", 4))
	if se != sb {
		t.Errorf("fourth conversation took slot %d, want the least recently used %d", se.Seq(), sb.Seq())
	}
	if pool.CachedBytes() == 0 {
		t.Fatalf("the evicted slot was not kept in the RAM cache")
	}
	// ...so b comes back from RAM instead of being computed again.
	_, st = prefill(b)
	if st.CacheN != len(b)-1 || st.PromptN != 1 {
		t.Errorf("b after eviction: cache_n %d prompt_n %d, want %d and 1 (restored from RAM)", st.CacheN, st.PromptN, len(b)-1)
	}
}

func commonLen(a, b []llama.Token) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func TestPoolFork(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 1024, Sequences: 2})
	ctx := context.Background()
	pool, _ := llama.NewPool(c, llama.PoolParams{})
	slots := pool.Slots()
	prompt := tokenize(t, m, strings.Repeat(samplePrompt, 2))
	if _, err := slots[0].Prefill(ctx, prompt); err != nil {
		t.Fatal(err)
	}
	half := len(prompt) / 2
	if err := pool.Fork(slots[0], slots[1], half); err != nil {
		t.Fatal(err)
	}
	if slots[1].Len() != half || c.SeqPosMax(1) != half-1 {
		t.Fatalf("forked slot holds %d tokens, cache %d, want %d", slots[1].Len(), c.SeqPosMax(1)+1, half)
	}
	st, err := slots[1].Prefill(ctx, prompt)
	if err != nil || st.CacheN != half {
		t.Errorf("prefill of the forked slot: cache_n %d, %v; want %d", st.CacheN, err, half)
	}
	if err := pool.Fork(slots[0], slots[0], 1); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("Fork onto itself = %v, want ErrInvalidArgument", err)
	}
}

func TestPoolSaveRestore(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 512})
	dir := t.TempDir()
	pool, _ := llama.NewPool(c, llama.PoolParams{SaveDir: dir})
	slot := pool.Slots()[0]
	prompt := tokenize(t, m, samplePrompt)
	if _, err := slot.Prefill(context.Background(), prompt); err != nil {
		t.Fatal(err)
	}
	path, err := pool.Save(slot, "session-1.bin")
	if err != nil || filepath.Dir(path) != dir {
		t.Fatalf("Save = %s, %v", path, err)
	}
	slot.Clear()
	if err := pool.Restore(slot, "session-1.bin"); err != nil {
		t.Fatal(err)
	}
	st, err := slot.Prefill(context.Background(), prompt)
	if err != nil || st.CacheN != len(prompt)-1 {
		t.Errorf("prefill after Restore: cache_n %d, %v; want %d", st.CacheN, err, len(prompt)-1)
	}
	for _, bad := range []string{"", "..", "../x", "a/b", `a\b`, ".hidden", "x\x00y", "name.", strings.Repeat("n", 256)} {
		if _, err := pool.Save(slot, bad); !errors.Is(err, llama.ErrInvalidArgument) {
			t.Errorf("Save(%q) = %v, want ErrInvalidArgument", bad, err)
		}
	}
	if err := pool.Restore(slot, "missing.bin"); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Restore(missing) = %v, want not exist", err)
	}
	os.WriteFile(filepath.Join(dir, "junk.bin"), []byte("not a state"), 0o644)
	if err := pool.Restore(slot, "junk.bin"); err == nil {
		t.Errorf("Restore(junk) succeeded")
	}
}
