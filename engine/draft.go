package engine

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/loopagent/loop/llama"
)

// Speculative decoding by prompt lookup: a coding agent's replies copy
// much of what it has read (a file it edits, a path, a call it made), so
// the tokens that followed the last few tokens the last time they occurred
// are a good guess at what follows now. The guess is verified in one
// decode of the pending token and the draft, with logits at every
// position; the chain samples each position in order, as plain decoding
// would, and the draft is kept up to the first token the chain does not
// pick. That token, sampled from the right distribution, is the next one.
//
// The output is the one plain decoding gives: the same chain (grammar,
// penalties, random state) sees the same tokens in the same order, and a
// grammar accepts only the tokens kept. What differs is how the logits are
// computed: a batch of positions rather than one, which on some backends
// rounds differently.
//
// A draft costs a decode of more positions, with logits at each, and as
// many samples. Where decoding is bound by reading the weights (a GPU),
// a few positions cost little more than one; on a CPU, bound by its
// arithmetic, each further position adds much of a position's cost again
// (llama's BenchmarkVerify measures it), so only long accepted drafts pay.
// Generation therefore times its steps: a prompt-lookup draft that yields
// tokens slower than plain steps do (one nobody accepts, or a short one)
// is a miss, and after a miss the drafter waits before drafting again,
// twice as long after each further miss (up to maxBackoff tokens). A
// draft starts short (firstDraft tokens), and its length doubles each
// time one is kept whole. A Pace kept from one request to the next
// (Request.Pace) carries all this over, so that an agent's short replies
// do not each pay to learn it again. A Request.Draft is always verified:
// its maker chose when to draft.
//
// Inside a call the grammar knows text the model has no choice about: the
// call format's punctuation and keys, a tool's name once its first letters
// fit only one, the rest of a path only one file starts with. The drafter
// proposes that text first, tokenized alone (drafter.forced). A model that
// writes it in the usual tokens accepts the draft whole; one that splits a
// word otherwise rejects the rest, and the pace backs off as after any
// miss.
//
// Request.DraftInCalls drafts only inside tool calls, whose arguments
// copy most (the lines an edit replaces, a path it read), and outside
// them only from Request.AnswerSources (an answer that quotes the last
// tool result); the agent's binary does so by default.

// lookupN is the longest n-gram prompt lookup matches; it tries the
// longest first, down to one token.
const lookupN = 4

// clock times the steps that pace drafting; a test sets one whose steps
// all take the same time, so that its drafting does not depend on load.
var clock = time.Now

// maxBackoff bounds the tokens the drafter skips after drafts that failed.
const maxBackoff = 128

// lookup drafts by finding the last n tokens earlier in the history. It
// indexes each position by the pair of tokens that ends there, and by its
// token: a step costs two map updates, and a prompt of 16k tokens is
// indexed in about a millisecond (BenchmarkLookupIndex).
type lookup struct {
	history []llama.Token
	// last maps a token to its latest position that has a token after it.
	last map[llama.Token]int32
	// pairs maps a pair of tokens to the latest position p, with a token
	// after it, where history[p-1:p+1] is that pair; earlier[p] is the one
	// before p with the same pair, or -1.
	pairs   map[uint64]int32
	earlier []int32
}

// maxChain bounds the earlier occurrences of the last pair that draft
// compares, latest first: a pair such as a newline and a tab recurs
// hundreds of times in code.
const maxChain = 64

func newLookup(tokens []llama.Token) *lookup {
	l := &lookup{last: make(map[llama.Token]int32, len(tokens)), pairs: make(map[uint64]int32, len(tokens)),
		history: make([]llama.Token, 0, len(tokens)+64), earlier: make([]int32, 0, len(tokens)+64)}
	for _, t := range tokens {
		l.push(t)
	}
	return l
}

func pair(a, b llama.Token) uint64 { return uint64(uint32(a))<<32 | uint64(uint32(b)) }

// push adds a token to the history, and indexes the position before it,
// which now has a token after it.
func (l *lookup) push(t llama.Token) {
	if p := int32(len(l.history) - 1); p >= 0 {
		l.last[l.history[p]] = p
		if p >= 1 {
			k := pair(l.history[p-1], l.history[p])
			if q, ok := l.pairs[k]; ok {
				l.earlier[p] = q
			}
			l.pairs[k] = p
		}
	}
	l.history = append(l.history, t)
	l.earlier = append(l.earlier, -1)
}

// draft returns up to max tokens that followed the latest earlier
// occurrence of the longest n-gram (up to lookupN tokens) the history ends
// with. Where that continuation runs into the end of the history, the
// text repeats with a period, and the draft goes on repeating it. Only
// n-grams of at least minN tokens count.
func (l *lookup) draft(max, minN int) []llama.Token {
	h := l.history
	end := len(h)
	var best int32
	bestN := 0
	if end >= 2 {
		p, ok := l.pairs[pair(h[end-2], h[end-1])]
		for steps := 0; ok && p >= 0 && steps < maxChain; p, steps = l.earlier[p], steps+1 {
			n := 2
			for n < lookupN && int(p)-n >= 0 && h[int(p)-n] == h[end-1-n] {
				n++
			}
			if n > bestN {
				best, bestN = p, n
				if n == lookupN {
					break
				}
			}
		}
	}
	if bestN == 0 && end >= 1 {
		if p, ok := l.last[h[end-1]]; ok {
			best, bestN = p, 1
		}
	}
	if bestN == 0 || bestN < minN {
		return nil
	}
	from := int(best) + 1
	d := make([]llama.Token, 0, max)
	for i := 0; i < max; i++ {
		d = append(d, h[from+i%(end-from)])
	}
	return d
}

// canDraft reports whether the slot's memory can drop a rejected draft: a
// recurrent or hybrid model's state cannot go back a few tokens, so its
// requests decode plainly.
func canDraft(slot *llama.Slot) bool {
	in, err := slot.Context().Model().Info()
	return err == nil && !in.Recurrent
}

// generateDraft is generate with speculative decoding.
func generateDraft(ctx context.Context, slot *llama.Slot, req Request, res *Result, out *textOut) error {
	c := slot.Context()
	m := c.Model()
	d := &drafter{pace: &drafting{}, srcPace: &drafting{}, ansPace: &drafting{}, forcePace: &drafting{}, repPace: &drafting{}}
	if req.Pace != nil {
		d.pace, d.srcPace, d.ansPace, d.forcePace, d.repPace = &req.Pace.d, &req.Pace.src, &req.Pace.ans, &req.Pace.force, &req.Pace.rep
	}
	paces := []*drafting{d.pace, d.srcPace, d.ansPace, d.forcePace, d.repPace}
	for _, p := range paces {
		p.start()
	}
	defer d.useReplies(slot, &req, res)()
	tok, err := sampleAt(c, req, res, -1)
	for err == nil {
		if d.look != nil {
			d.look.push(tok)
		}
		var stop bool
		if stop, err = emit(m, req, res, out, tok); stop || err != nil {
			return err
		}
		if err = ctx.Err(); err != nil {
			return err
		}
		var draft []llama.Token
		used := d.pace
		if inCall := req.Grammar != nil && !req.Grammar.Waiting(); inCall || !req.DraftInCalls || len(req.AnswerSources) > 0 {
			room := min(c.SeqSize()-slot.Len()-1, c.BatchSize()-1)
			draft, used = d.next(slot, req, res.Tokens, room, inCall)
		}
		start := clock()
		if len(draft) == 0 {
			if err := slot.Append(ctx, tok); err != nil {
				if errors.Is(err, llama.ErrContextFull) {
					return nil
				}
				return err
			}
			res.Decodes++
			tok, err = sampleAt(c, req, res, -1)
			t := clock().Sub(start)
			for _, p := range paces {
				p.plain(t)
			}
			continue
		}
		var accepted int
		tok, accepted, stop, err = verify(ctx, slot, req, res, out, d.look, tok, draft)
		if stop || err != nil {
			return err
		}
		used.drafted(clock().Sub(start), accepted+1, len(draft))
	}
	return err
}

// drafter proposes the drafts of one generation: the kept reply the
// reply so far begins as (see Pace); in a call, the text the grammar
// forces (see forced); then from the sources (Request.Sources and the
// kept replies in a call, Request.AnswerSources outside one), where they
// draft longer than the forced text; then by prompt lookup, each with its
// own pace.
type drafter struct {
	look                                       *lookup  // made at the first draft: a long prompt costs a map of its n-grams
	src, ans                                   *sources // made at the first draft from each
	reps                                       *replies // the Pace's kept replies, if any
	pace, srcPace, ansPace, forcePace, repPace *drafting
}

// useReplies drafts from the replies req.Pace kept: aligned (see
// replies) and as Sources. It returns what keeps this reply in the Pace,
// after the last tokens of its prompt, once generation ends.
func (d *drafter) useReplies(slot *llama.Slot, req *Request, res *Result) (keep func()) {
	p := req.Pace
	if p == nil {
		return func() {}
	}
	if len(p.replies) > 0 {
		d.reps = newReplies(p.replies)
		req.Sources = slices.Clip(req.Sources)
		for _, r := range p.replies {
			req.Sources = append(req.Sources, r.toks)
		}
	}
	lead := slot.Tokens()
	lead = slices.Clone(lead[max(len(lead)-replyLead, 0):])
	return func() { p.remember(lead, res.Tokens) }
}

// next returns the draft after gen, the reply so far (its last token,
// tok, not decoded yet), at most room tokens, and the pace that hears how
// it went; none when no source is ready. inCall says whether tok is known
// to be inside a call (a grammar awake); outside one the answer sources
// draft too, and with Request.DraftInCalls only they do.
func (d *drafter) next(slot *llama.Slot, req Request, gen []llama.Token, room int, inCall bool) ([]llama.Token, *drafting) {
	tok := gen[len(gen)-1]
	limit := min(max(req.DraftMax, maxSourceDraft), room)
	var forced []llama.Token
	if req.Draft == nil && inCall {
		forced = d.forced(slot, req.Grammar, tok, limit)
	}
	if req.Draft == nil && (inCall || !req.DraftInCalls) && d.reps != nil && d.repPace.ready() {
		if draft := d.reps.draft(gen, min(limit, d.repPace.size)); len(draft) > len(forced) {
			d.index(slot, tok)
			return draft, d.repPace
		}
	}
	if req.Draft == nil && (inCall || !req.DraftInCalls) {
		if draft := d.fromSources(slot, tok, req.Sources, &d.src, d.srcPace, limit); len(draft) > len(forced) {
			return draft, d.srcPace
		}
	}
	if len(forced) > 0 {
		return forced, d.forcePace
	}
	if req.Draft == nil && !inCall {
		if draft := d.fromSources(slot, tok, req.AnswerSources, &d.ans, d.ansPace, limit); len(draft) > 0 {
			return draft, d.ansPace
		}
	}
	if !inCall && req.DraftInCalls {
		return nil, d.pace
	}
	if req.Draft == nil && !d.pace.ready() {
		return nil, d.pace
	}
	d.index(slot, tok)
	limit = req.DraftMax
	if req.Draft == nil {
		limit = min(limit, d.pace.size)
	}
	return propose(req, d.look, min(limit, room), d.pace.minN), d.pace
}

// forced drafts, when its pace is ready, the tokens of the text that the
// grammar forces after tok (llama.Sampler.Forced): a call format's
// punctuation and keys, a tool's name once it is the only one its first
// letters fit, the rest of a path that only one file of the workspace
// starts with. The text is tokenized alone, and its last token is left
// out: the model may write the last forced characters joined with the
// first ones it chooses, in another token.
func (d *drafter) forced(slot *llama.Slot, g *llama.Sampler, tok llama.Token, limit int) []llama.Token {
	if g == nil || !d.forcePace.ready() {
		return nil
	}
	text, err := g.Forced(maxForcedBytes)
	if err != nil || text == "" {
		return nil
	}
	toks, err := slot.Context().Model().Tokenize(text, false, false)
	if err != nil || len(toks) < 2 {
		return nil
	}
	d.index(slot, tok)
	return toks[:min(len(toks)-1, limit, d.forcePace.size)]
}

// maxForcedBytes bounds the forced text a draft is made from.
const maxForcedBytes = 256

// index makes the prompt lookup's index at the first draft: the slot's
// tokens and tok, which is not decoded yet.
func (d *drafter) index(slot *llama.Slot, tok llama.Token) {
	if d.look == nil {
		d.look = newLookup(slot.Tokens())
		d.look.push(tok)
	}
}

// fromSources drafts from texts, indexed into *src at its first draft,
// when pace is ready: up to limit tokens and pace's draft size.
func (d *drafter) fromSources(slot *llama.Slot, tok llama.Token, texts [][]llama.Token, src **sources, pace *drafting, limit int) []llama.Token {
	if len(texts) == 0 || !pace.ready() {
		return nil
	}
	d.index(slot, tok)
	if *src == nil {
		*src = newSources(texts)
	}
	return (*src).draft(d.look.history, min(limit, pace.size), pace.minN)
}

// Pace is what prompt lookup has learnt about when drafting pays: the
// time of a plain step, and how long to wait after drafts that did not
// pay. A caller that passes the same Pace to each request (Request.Pace)
// learns it once for its model and machine, rather than in every reply: an
// agent's replies are short, and a fresh pace drafts a few times in each
// before it backs off. The zero value is ready; a Pace is not safe for
// concurrent use.
//
// A Pace also keeps the latest replies drafted with it (maxReplyTokens
// in all). A model writes its call headers the same way step after step,
// and sends a refused call again nearly unchanged, in its own tokens,
// which a prompt that renders the earlier call through a chat template
// may spell otherwise. So while a reply begins as a kept one does, the
// draft is the kept one's next tokens (replies.draft); where it parts
// from every kept reply, the kept replies still draft as Sources do,
// each after the last replyLead tokens of its prompt, so that a reply's
// first tokens match after the same turn header.
type Pace struct {
	d, src, ans, force, rep drafting
	replies                 []keptReply
	replyN                  int // tokens in replies
}

// keptReply is a reply a Pace keeps: toks is the last tokens of its
// prompt (lead of them) and the reply.
type keptReply struct {
	toks []llama.Token
	lead int
}

// replyLead is how many tokens of its prompt a kept reply starts with.
const replyLead = 4

// maxReplyTokens bounds the tokens a Pace keeps of earlier replies; the
// oldest go first.
const maxReplyTokens = 8192

// remember keeps a reply of at least two tokens after lead, the prompt's
// last tokens.
func (p *Pace) remember(lead, reply []llama.Token) {
	if len(reply) < 2 {
		return
	}
	lead = lead[max(len(lead)-replyLead, 0):]
	reply = reply[:min(len(reply), maxReplyTokens-len(lead))]
	r := keptReply{append(append(make([]llama.Token, 0, len(lead)+len(reply)), lead...), reply...), len(lead)}
	p.replies = append(p.replies, r)
	p.replyN += len(r.toks)
	for p.replyN > maxReplyTokens {
		p.replyN -= len(p.replies[0].toks)
		p.replies = p.replies[1:]
	}
}

// ForgetReplies drops the replies p keeps, and keeps what it learnt
// about when drafting pays.
func (p *Pace) ForgetReplies() { p.replies, p.replyN = nil, 0 }

// replies drafts from the replies a Pace kept that the reply so far
// begins as.
type replies struct {
	kept    []keptReply
	alive   []int // the kept replies that begin as the reply so far, latest last
	checked int   // the reply's tokens alive was filtered by
}

func newReplies(kept []keptReply) *replies {
	r := &replies{kept: kept}
	for i := range kept {
		r.alive = append(r.alive, i)
	}
	return r
}

// draft returns up to max tokens that follow gen, the reply so far, in
// the latest kept reply that begins with gen.
func (r *replies) draft(gen []llama.Token, max int) []llama.Token {
	for ; r.checked < len(gen); r.checked++ {
		i, t := r.checked, gen[r.checked]
		r.alive = slices.DeleteFunc(r.alive, func(k int) bool {
			rest := r.kept[k].toks[r.kept[k].lead:]
			return len(rest) <= i || rest[i] != t
		})
	}
	for k := len(r.alive) - 1; k >= 0; k-- {
		rest := r.kept[r.alive[k]].toks[r.kept[r.alive[k]].lead:]
		if len(rest) > len(gen) {
			return rest[len(gen):min(len(rest), len(gen)+max)]
		}
	}
	return nil
}

// drafting decides when prompt lookup drafts: after a draft that yielded
// tokens slower than plain steps do, it waits (see the top of the file),
// and it wants a longer n-gram match next time: one token of history
// repeating is weak evidence that more will.
type drafting struct {
	minN          int // the shortest match to draft from; lookupN+1: none
	wait, backoff int
	plainN        int           // plain steps timed
	plainPer      time.Duration // a plain step's time, averaged
	first         bool          // the next plain step follows a prefill
	size          int           // the longest draft now (see firstDraft)
}

// firstDraft is the longest draft at first and after a miss: a draft that
// fails costs its decode, more the longer it is (on the demo model a
// rejected draft of 16 costs about 6 plain steps, one of 4 about 2), so
// the drafter tries a short one, and doubles the length each time a draft
// is kept whole.
const firstDraft = 4

// start begins a request: the first plain step after its prefill runs
// slow, and is not timed.
func (d *drafting) start() {
	if d.minN == 0 {
		d.minN, d.size = 2, firstDraft
	}
	d.first = true
}

// ready reports whether to draft now: once two plain steps have been timed
// (the first after a prefill runs slow), and not while waiting.
func (d *drafting) ready() bool {
	if d.plainN < 2 {
		return false
	}
	if d.wait > 0 {
		d.wait--
		return false
	}
	return true
}

func (d *drafting) plain(t time.Duration) {
	if d.first {
		d.first = false
		if d.plainN > 0 {
			return
		}
	}
	if d.plainN++; d.plainN <= 2 {
		d.plainPer = t // the second replaces the first
		return
	}
	d.plainPer = (3*d.plainPer + t) / 4
}

// drafted hears that a draft of k tokens took t and yielded n tokens (the
// ones accepted and the next).
func (d *drafting) drafted(t time.Duration, n, k int) {
	if n > 1 && t/time.Duration(n) <= d.plainPer {
		d.backoff, d.minN = 0, max(d.minN-1, 1)
		if n > k && k >= d.size {
			d.size *= 2
		}
		return
	}
	d.backoff = min(max(2*d.backoff, 1), maxBackoff)
	d.wait, d.minN, d.size = d.backoff, min(d.minN+1, lookupN), firstDraft
}

// propose returns the draft: Request.Draft's, or prompt lookup's.
func propose(req Request, look *lookup, max, minN int) []llama.Token {
	if max <= 0 {
		return nil
	}
	if req.Draft != nil {
		d := req.Draft(look.history, max)
		return d[:min(len(d), max)]
	}
	return look.draft(max, minN)
}

// verify decodes the pending token tok and the draft in one batch, keeps
// the draft up to the first token the chain does not pick, and returns
// that token, the next pending one. It stops where emit stops, and leaves
// the slot holding what plain decoding would: the tokens up to the last
// one emitted, which is not decoded.
func verify(ctx context.Context, slot *llama.Slot, req Request, res *Result, out *textOut, look *lookup,
	tok llama.Token, draft []llama.Token) (next llama.Token, accepted int, stop bool, err error) {
	c := slot.Context()
	base := slot.Len()
	draft = append([]llama.Token(nil), draft...) // the history grows below
	if err := slot.AppendOutputs(ctx, append([]llama.Token{tok}, draft...)); err != nil {
		return tok, 0, true, errors.Join(err, slot.Truncate(base))
	}
	res.Decodes++
	res.Drafted += len(draft)
	for i := 0; ; i++ {
		if next, err = sampleAt(c, req, res, i); err != nil {
			return next, accepted, true, errors.Join(err, slot.Truncate(base+1+accepted))
		}
		if i == len(draft) || next != draft[i] {
			res.Accepted += accepted
			return next, accepted, false, slot.Truncate(base + 1 + accepted)
		}
		accepted++
		look.push(next)
		if stop, err = emit(c.Model(), req, res, out, next); stop || err != nil {
			res.Accepted += accepted
			return next, accepted, true, errors.Join(err, slot.Truncate(base+accepted))
		}
	}
}
