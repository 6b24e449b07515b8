package engine

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/llama"
)

func TestLookupDraft(t *testing.T) {
	tests := []struct {
		name      string
		history   []llama.Token
		max, minN int
		want      []llama.Token
	}{
		{"longest match first", []llama.Token{1, 2, 3, 9, 2, 3, 4, 5, 1, 2, 3}, 3, 1, []llama.Token{9, 2, 3}},
		{"latest occurrence", []llama.Token{7, 1, 8, 7, 1, 9, 6, 7, 1}, 2, 1, []llama.Token{9, 6}},
		{"shorter match", []llama.Token{5, 6, 1, 2, 8}, 2, 1, nil},
		{"one token", []llama.Token{5, 6, 1, 2, 6}, 2, 1, []llama.Token{1, 2}},
		{"one token not enough", []llama.Token{5, 6, 1, 2, 6}, 2, 2, nil},
		{"a period repeats", []llama.Token{4, 1, 2, 1, 2}, 5, 1, []llama.Token{1, 2, 1, 2, 1}},
		{"a token repeats", []llama.Token{3, 3}, 4, 1, []llama.Token{3, 3, 3, 3}},
		{"nothing before", []llama.Token{3}, 4, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := newLookup(tt.history).draft(tt.max, tt.minN)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("draft(%v, %d, %d) (-want +got):\n%s", tt.history, tt.max, tt.minN, diff)
			}
		})
	}
}

// TestLookupMatchesScan checks the index against a scan of the history:
// for the longest n from lookupN down to minN, the tokens after the latest
// earlier occurrence of the last n, on random histories over few tokens,
// where matches of every length abound.
func TestLookupMatchesScan(t *testing.T) {
	scan := func(h []llama.Token, max, minN int) []llama.Token {
		end := len(h)
		for n := min(lookupN, end); n >= minN && n >= 1; n-- {
			for s := end - n - 1; s >= 0; s-- {
				if slices.Equal(h[s:s+n], h[end-n:]) {
					from := s + n
					var d []llama.Token
					for i := range max {
						d = append(d, h[from+i%(end-from)])
					}
					return d
				}
			}
		}
		return nil
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for i := range 2000 {
		h := make([]llama.Token, rng.IntN(80))
		alphabet := 2 + rng.IntN(6)
		for j := range h {
			h[j] = llama.Token(rng.IntN(alphabet))
		}
		max, minN := 1+rng.IntN(8), 1+rng.IntN(lookupN+1)
		l := newLookup(h[:len(h)/2])
		for _, tok := range h[len(h)/2:] {
			l.push(tok)
		}
		if diff := cmp.Diff(scan(h, max, minN), l.draft(max, minN)); diff != "" {
			t.Fatalf("case %d: draft(%v, %d, %d) (-scan +lookup):\n%s", i, h, max, minN, diff)
		}
	}
}

func TestDraftingPace(t *testing.T) {
	var d drafting
	d.start()
	if d.ready() {
		t.Fatal("ready before any plain step was timed")
	}
	d.plain(50)
	d.plain(10)
	if !d.ready() || d.plainPer != 10 || d.minN != 2 {
		t.Fatalf("after two plain steps: ready %v, plainPer %v, minN %d; want true, 10, 2", d.ready(), d.plainPer, d.minN)
	}
	d.drafted(40, 1, 4) // a miss: one token
	if d.wait != 1 || d.minN != 3 {
		t.Errorf("after a miss: wait %d, minN %d; want 1, 3", d.wait, d.minN)
	}
	d.drafted(40, 2, 4) // slower than plain per token: a miss
	if d.wait != 2 || d.minN != 4 {
		t.Errorf("after two misses: wait %d, minN %d; want 2, 4", d.wait, d.minN)
	}
	if d.ready() || d.ready() || !d.ready() {
		t.Errorf("ready does not wait out 2 steps")
	}
	d.drafted(40, 5, 4) // 8 per token: a hit
	if d.wait != 0 || d.backoff != 0 || d.minN != 3 || d.size != 2*firstDraft {
		t.Errorf("after a hit: wait %d, backoff %d, minN %d, size %d; want 0, 0, 3, %d", d.wait, d.backoff, d.minN, d.size, 2*firstDraft)
	}
	d.drafted(40, 6, 8) // a hit, not kept whole: the size stays
	if d.size != 2*firstDraft {
		t.Errorf("after a draft kept in part: size %d, want %d", d.size, 2*firstDraft)
	}
	// A later request (a kept Pace): its first plain step, after the
	// prefill, is not timed; the next ones are.
	d.start()
	d.plain(1000)
	if d.plainPer != 10 || d.minN != 2 || !d.ready() {
		t.Errorf("after a new request's first step: plainPer %v, minN %d; want 10 (untimed), 2 (kept), ready", d.plainPer, d.minN)
	}
	d.plain(50)
	if d.plainPer != 20 {
		t.Errorf("after a timed step of 50: plainPer %v, want 20", d.plainPer)
	}
	for range 10 {
		d.drafted(40, 1, 4)
	}
	if d.size != firstDraft {
		t.Errorf("after misses: size %d, want %d", d.size, firstDraft)
	}
	if d.backoff != maxBackoff {
		t.Errorf("after ten more misses: backoff %d, want %d", d.backoff, maxBackoff)
	}
}

// BenchmarkLookup measures what prompt lookup adds to a generation step
// that does not draft: indexing the new token and looking for a match of
// the last tokens (a 4,096-token history of random text).
func BenchmarkLookup(b *testing.B) {
	toks := lcgTokens(4096)
	l := newLookup(toks[:2048])
	k := 2048
	for b.Loop() {
		l.push(toks[k%len(toks)])
		l.draft(8, 2)
		k++
	}
}

// BenchmarkLookupIndex measures indexing a 16k-token prompt, which a
// request does at its first draft.
func BenchmarkLookupIndex(b *testing.B) {
	toks := lcgTokens(16384)
	for b.Loop() {
		newLookup(toks)
	}
}

// lcgTokens is n tokens of random text over a 32,000-token vocabulary,
// the same each time.
func lcgTokens(n int) []llama.Token {
	toks := make([]llama.Token, n)
	x := uint32(1)
	for i := range toks {
		x = x*1664525 + 1013904223
		toks[i] = llama.Token(x >> 16 % 32000)
	}
	return toks
}

// TestRepliesDraft checks drafting from kept replies: the latest kept
// reply that begins as the reply so far gives the tokens after it; one
// that parted from the reply never drafts again in that request.
func TestRepliesDraft(t *testing.T) {
	kept := []keptReply{
		{[]llama.Token{100, 1, 2, 3, 4, 5}, 1},
		{[]llama.Token{100, 101, 1, 2, 9, 9}, 2},
		{[]llama.Token{1, 2}, 0},
	}
	r := newReplies(kept)
	steps := []struct {
		gen  []llama.Token
		max  int
		want []llama.Token
	}{
		{[]llama.Token{1}, 8, []llama.Token{2}},          // the latest
		{[]llama.Token{1, 2}, 2, []llama.Token{9, 9}},    // which ends here
		{[]llama.Token{1, 2, 3}, 8, []llama.Token{4, 5}}, // the second parted
		{[]llama.Token{1, 2, 3, 4, 5}, 8, nil},           // every kept reply ends
	}
	for _, st := range steps {
		if diff := cmp.Diff(st.want, r.draft(st.gen, st.max)); diff != "" {
			t.Errorf("draft(%v, %d) (-want +got):\n%s", st.gen, st.max, diff)
		}
	}
	r = newReplies(kept)
	if got := r.draft([]llama.Token{1, 2, 7}, 8); got != nil {
		t.Errorf("a reply no kept one begins as drafted %v", got)
	}
	if got := r.draft([]llama.Token{1, 2, 7, 4}, 8); got != nil {
		t.Errorf("a reply that parted from the kept ones drafted %v after", got)
	}
}

// TestPaceRemember checks what a Pace keeps: a reply after its prompt's
// last replyLead tokens, none shorter than two tokens, and at most
// maxReplyTokens in all, the oldest dropped first.
func TestPaceRemember(t *testing.T) {
	var p Pace
	p.remember([]llama.Token{1, 2, 3, 4, 5, 6}, []llama.Token{7, 8})
	p.remember([]llama.Token{1}, []llama.Token{9})
	want := []keptReply{{[]llama.Token{3, 4, 5, 6, 7, 8}, 4}}
	if diff := cmp.Diff(want, p.replies, cmp.AllowUnexported(keptReply{})); diff != "" {
		t.Fatalf("replies (-want +got):\n%s", diff)
	}
	long := make([]llama.Token, maxReplyTokens/2)
	for range 3 {
		p.remember(nil, long)
	}
	if len(p.replies) != 2 || p.replyN != maxReplyTokens {
		t.Errorf("after three replies of half the bound: %d kept, %d tokens; want 2, %d", len(p.replies), p.replyN, maxReplyTokens)
	}
	p.remember([]llama.Token{1}, make([]llama.Token, 2*maxReplyTokens))
	if len(p.replies) != 1 || len(p.replies[0].toks) != maxReplyTokens || p.replyN != maxReplyTokens {
		t.Errorf("after a reply longer than the bound: %d kept, %d tokens", len(p.replies), p.replyN)
	}
	p.d.plainN = 3
	p.ForgetReplies()
	if len(p.replies) != 0 || p.replyN != 0 || p.d.plainN != 3 {
		t.Errorf("after ForgetReplies: %d kept, %d tokens, %d plain steps timed; want 0, 0, 3", len(p.replies), p.replyN, p.d.plainN)
	}
}
