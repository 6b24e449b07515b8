package train

import (
	"math"
	"math/rand/v2"
	"slices"

	"github.com/loopagent/loop/llama"
)

// Plan is the chats rendered, split and packed into windows: what Run
// trains and measures on. A Plan is run once (Run shuffles its windows and
// draws from its seed); it is not safe for concurrent use.
type Plan struct {
	// Report holds the counts: chats, tokens, the window and the shared
	// prefix. Run returns it with the losses added.
	Report Report
	// Train and Eval are the training and the held-out windows. Each
	// starts at the start of a chat, so that its first Report.Prefix
	// tokens (llama.Window.Prefix) are the prefix every chat shares.
	Train, Eval []llama.Window

	cfg     Config         // with its defaults
	src     *rand.PCG      // rng's source, whose state a checkpoint records
	rng     *rand.Rand     // the seed's: the split, then each epoch's order
	data    string         // hashChats of the chats
	all     []llama.Window // Train with every token after the shared prefix a target (order)
	done    int            // epochs done: those Resume restored
	resumed string         // the checkpoint Resume restored
	base    File           // the Trainer's base, hashed for checkpoints
}

// Prepare renders each chat whole with m's chat template (its tool_use
// variant for a chat with tools) in the call format detected from it, as
// agent/local renders a prompt, tokenizes it with m, and marks the
// assistant's tokens (mask.go says how they are found); it then shuffles
// the chats by cfg.Seed, holds cfg.HeldOut of them out, and packs each
// part into windows. m needs only its vocabulary
// (llama.ModelParams.VocabOnly). An error names the chat's file and line.
func Prepare(m *llama.Model, chats []Chat, cfg Config) (*Plan, error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg = cfg.withDefaults()
	docs, err := renderChats(m, chats, cfg.Window, cfg.TrainAll)
	if err != nil {
		return nil, err
	}
	src := rand.NewPCG(cfg.Seed, 0x6c6f6f70) // "loop"
	p := &Plan{cfg: cfg, src: src, rng: rand.New(src), data: hashChats(chats)}
	nVal, err := p.split(m, docs)
	if err != nil {
		return nil, err
	}
	p.Report = Report{Chats: len(docs) - nVal, HeldOut: nVal, Window: cfg.Window}
	if !cfg.NoSharedPrefix {
		p.Report.Prefix = sharedPrefix(docs)
		for _, ws := range [][]llama.Window{p.Train, p.Eval} {
			for i := range ws {
				ws[i].Prefix = p.Report.Prefix
			}
		}
		if cfg.PrefixShare > 0 && !cfg.TrainAll { // TrainAll leaves no token untrained
			all := append(slices.Clone(p.Train), p.Eval...)
			p.Report.Forward = widenPrefixes(all, cfg.PrefixShare)
			copy(p.Train, all)
			copy(p.Eval, all[len(p.Train):])
		}
	}
	for _, d := range docs {
		p.Report.Tokens += len(d.tokens)
		if d.targets == nil {
			p.Report.Trained += len(d.tokens)
		} else {
			p.Report.Trained += count(d.targets)
		}
	}
	return p, nil
}

// split shuffles docs, holds HeldOut of them out, and packs each part
// into windows; it returns the number held out.
func (p *Plan) split(m *llama.Model, docs []doc) (nVal int, err error) {
	p.rng.Shuffle(len(docs), func(i, j int) { docs[i], docs[j] = docs[j], docs[i] })
	nVal = int(math.Round(p.cfg.HeldOut * float64(len(docs))))
	if p.cfg.HeldOut > 0 && nVal == 0 && len(docs) > 1 {
		nVal = 1
	}
	nVal = min(nVal, len(docs)-1)
	sep := llama.Token(-1)
	if !m.AddBOS() && m.BOS() >= 0 {
		sep = m.BOS() // Qwen's <|endoftext|>, the document separator it was pretrained with
	}
	if p.Eval, err = packDocs(docs[:nVal], p.cfg.Window, sep, p.cfg.Fill); err != nil {
		return 0, err
	}
	p.Train, err = packDocs(docs[nVal:], p.cfg.Window, sep, p.cfg.Fill)
	return nVal, err
}

// packDocs packs docs into windows of whole docs, or full windows with
// fill; none for no docs.
func packDocs(docs []doc, window int, sep llama.Token, fill bool) ([]llama.Window, error) {
	if len(docs) == 0 {
		return nil, nil
	}
	ds := make([]llama.Doc, len(docs))
	for i, d := range docs {
		ds[i] = llama.Doc{Tokens: d.tokens, Targets: d.targets}
	}
	if fill {
		return llama.PackWindows(ds, window, sep)
	}
	return llama.PackWhole(ds, window, sep)
}

// sharedPrefix returns how many tokens every doc starts with, before any
// target (a chat's system prompt and tool schemas), rounded down to a
// multiple of 16 so that the rest of a window keeps the graph's products
// in tinyBLAS; a window's first tokens are a doc's first (packDocs), so
// each window can run them forward only (llama.Window.Prefix). 0 when a
// doc trains every token.
func sharedPrefix(docs []doc) int {
	if len(docs) == 0 {
		return 0
	}
	p := len(docs[0].tokens)
	for _, d := range docs {
		if d.targets == nil {
			return 0
		}
		n := 0
		for n < min(p, len(d.tokens)) && d.tokens[n] == docs[0].tokens[n] {
			n++
		}
		p = min(n, len(d.tokens)-2) // a window needs a position after its prefix
		if first := slices.Index(d.targets, true); first >= 0 {
			p = min(p, first-1) // position first-1 predicts the first target
		}
	}
	return max(p, 0) / 16 * 16
}

// widenPrefixes sets each window's prefix to the longest start of it,
// before its first target, that at least share of the windows begin with,
// rounded down to a multiple of 16 as sharedPrefix rounds, but never
// shorter than the prefix it has (the one every chat shares). It returns
// the prefixes' sum. The windows that share a start are neighbours once
// sorted, so a window's longest start shared by m windows is the best,
// over the runs of m sorted windows that hold it, of the shortest common
// start of two neighbours in the run.
func widenPrefixes(ws []llama.Window, share float64) int {
	n := len(ws)
	if n == 0 {
		return 0
	}
	m := min(n, max(1, int(math.Ceil(share*float64(n)))))
	idx := make([]int, n)
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return slices.Compare(ws[a].Tokens, ws[b].Tokens) })
	// common[k]: how many tokens sorted windows k and k+1 start with alike.
	common := make([]int, n-1)
	for k := range common {
		a, b := ws[idx[k]].Tokens, ws[idx[k+1]].Tokens
		j := 0
		for j < min(len(a), len(b)) && a[j] == b[j] {
			j++
		}
		common[k] = j
	}
	// run[j]: the start that sorted windows j..j+m-1 all share.
	run := make([]int, n-m+1)
	for j := range run {
		run[j] = math.MaxInt
		for k := j; k < j+m-1; k++ {
			run[j] = min(run[j], common[k])
		}
	}
	sum := 0
	for pos, i := range idx {
		w := &ws[i]
		best := 0
		for j := max(0, pos-m+1); j <= min(pos, n-m); j++ {
			best = max(best, run[j])
		}
		best = min(best, len(w.Tokens)-2) // a window needs a position after its prefix
		if first := slices.Index(w.Targets, true); first >= 0 {
			best = min(best, first-1) // position first-1 predicts the first target
		}
		w.Prefix = max(w.Prefix, best/16*16)
		sum += w.Prefix
	}
	return sum
}

// order shuffles the windows of epoch e (from 1) and returns them: the
// training windows, or in the first PretrainEpochs the same windows with
// every token after the shared prefix a target. Each shuffle starts from
// the order the last one left, so the order of an epoch depends on every
// epoch before it; Resume replays them.
func (p *Plan) order(e int) []llama.Window {
	windows := p.Train
	if e <= p.cfg.PretrainEpochs {
		if p.all == nil {
			p.all = allTargets(p.Train)
		}
		windows = p.all
	}
	p.rng.Shuffle(len(windows), func(i, j int) { windows[i], windows[j] = windows[j], windows[i] })
	return windows
}

// allTargets returns ws with every token after the shared prefix a
// target.
func allTargets(ws []llama.Window) []llama.Window {
	all := make([]llama.Window, len(ws))
	for i, w := range ws {
		all[i] = llama.Window{Tokens: w.Tokens, Prefix: w.Prefix}
		if w.Prefix > 0 {
			all[i].Targets = make([]bool, len(w.Tokens))
			for j := w.Prefix + 1; j < len(w.Tokens); j++ {
				all[i].Targets[j] = true
			}
		}
	}
	return all
}

// count returns how many of bs are set.
func count(bs []bool) int {
	n := 0
	for _, b := range bs {
		if b {
			n++
		}
	}
	return n
}
