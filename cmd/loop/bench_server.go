package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/llama"
)

// serverReport is `loop bench --vs-server`: llama.cpp's llama-server on
// the same model and threads, without speculation and with each of its
// n-gram speculative types, interleaved with loop plain and drafting, on
// the same prompt tokens.
type serverReport struct {
	Path      string      `json:"path"`
	Version   string      `json:"version"`    // what its --version prints
	Args      []string    `json:"args"`       // every start's flags, less --port and --spec-type
	SpecTypes []string    `json:"spec_types"` // the n-gram types its --help lists
	Rows      []serverRow `json:"rows"`
	// progress, where set, gets each row's lines as the row ends: a full
	// run takes minutes.
	progress io.Writer
}

// serverRow is one prompt in every mode.
type serverRow struct {
	Row     string       `json:"row"`
	NPrompt int          `json:"n_prompt"`
	NGen    int          `json:"n_gen"`
	Greedy  bool         `json:"greedy"` // else sampled at temperature 1
	Modes   []serverMode `json:"modes"`
	// LoopBest is loop's faster mode, PeerBest the peer's fastest n-gram
	// mode, and Ratio the first's t/s over the second's.
	LoopBest string  `json:"loop_best"`
	PeerBest string  `json:"peer_best"`
	Ratio    float64 `json:"ratio"`
	// AfreshLoop and AfreshPeer are the fastest modes that carry nothing
	// from one request to the next but the prompt cache (loop's modes
	// without "kept", the peer's "afresh" ones), and AfreshRatio the
	// first's t/s over the second's: what a request never sent before
	// gets on each side.
	AfreshLoop  string  `json:"afresh_loop,omitempty"`
	AfreshPeer  string  `json:"afresh_peer,omitempty"`
	AfreshRatio float64 `json:"afresh_ratio,omitempty"`
	// Diff is where the peer's plain greedy tokens first differ from
	// loop's plain greedy tokens; nil where they are the same or the row
	// is sampled.
	Diff *serverDiff `json:"diff,omitempty"`
}

// serverMode is a row's timings in one mode: "loop", "loop draftK",
// "peer" (no speculation) or "peer T" (--spec-type T).
type serverMode struct {
	Mode     string    `json:"mode"`
	Samples  []float64 `json:"samples_ts"`
	AvgTS    float64   `json:"avg_ts"`
	StdevTS  float64   `json:"stddev_ts"`
	Drafted  int       `json:"draft_n"`
	Accepted int       `json:"draft_n_accepted"`
	// CacheN is the prompt tokens the peer took from its prompt cache over
	// the timed runs.
	CacheN int `json:"cache_n"`
	// SameTokens is, on a greedy row, whether the first timed run's tokens
	// are loop plain's.
	SameTokens *bool `json:"same_tokens_as_loop,omitempty"`
	// DiffersAt is, where SameTokens is false, the first token that is
	// not loop plain's; Margin is by how much loop plain's logits, after
	// the prompt and the tokens both wrote, put loop plain's token there
	// ahead of this mode's. Greedy decodings part at a near tie when the
	// numerics differ by rounding (another llama.cpp, or a batch of draft
	// tokens computed together), so a margin near zero explains a
	// difference that a sampling or drafting bug would not.
	DiffersAt *int          `json:"differs_at,omitempty"`
	Margin    *float64      `json:"logit_margin,omitempty"`
	tokens    []llama.Token // the first timed run's
}

// serverDiff is where two greedy outputs part: the token index and each
// side's text from there.
type serverDiff struct {
	At   int    `json:"token"`
	Peer string `json:"peer"`
	Loop string `json:"loop"`
}

// serverWorkload is a row's prompt; the peer gets its tokens as they are,
// greedy or sampled as the chain is.
type serverWorkload struct {
	draftWorkload
	greedy bool
	// gbnf, when set, constrains both sides: the peer gets it as the
	// request's grammar, loop compiles it for engine.Request.Grammar.
	gbnf string
}

// serverRun is what one run in one mode reports.
type serverRun struct {
	perSecond                 float64
	drafted, accepted, cacheN int
	tokens                    []llama.Token
}

// serverRunner runs a workload once in its mode; rep is the repetition,
// -1 for the warm-up.
type serverRunner struct {
	mode string
	run  func(ctx context.Context, w serverWorkload, rep int) (serverRun, error)
}

// benchServer runs the edit, text and (for a model with a chat template)
// edit-call and edit-call-grammar prompts through loop, plain and drafting, and through the
// llama-server at path, plain and with each n-gram type, f.reps times
// after a warm-up, each mode first in turn. Loop drafts up to --draft-max,
// 16 if it is unset.
func benchServer(ctx context.Context, m *llama.Model, f benchFlags, path string, progress io.Writer) (*serverReport, error) {
	specs, version, err := serverHelp(ctx, path)
	if err != nil {
		return nil, err
	}
	workloads, err := serverWorkloads(ctx, m)
	if err != nil {
		return nil, err
	}
	longest := 0
	for _, w := range workloads {
		longest = max(longest, len(w.prompt))
	}
	draftMax := cmp.Or(f.draftMax, 16)
	slot, _, done, err := f.greedySlot(m, longest+f.nGen+draftMax+1)
	if err != nil {
		return nil, err
	}
	defer done()
	loop := []serverRunner{loopRunner("loop", slot, 0, f.nGen, false), loopRunner(fmt.Sprintf("loop draft%d", draftMax), slot, draftMax, f.nGen, false),
		loopRunner(fmt.Sprintf("loop draft%d kept", draftMax), slot, draftMax, f.nGen, true)}
	rep := &serverReport{Path: path, Version: version, SpecTypes: specs, Args: serverArgs(f, longest+f.nGen+64), progress: progress}
	view := tokenView{
		detok: func(toks []llama.Token) string { s, _ := m.Detokenize(toks, false); return s },
		margin: func(w serverWorkload, prefix []llama.Token, a, b llama.Token) (float64, error) {
			if _, err := slot.Prefill(ctx, append(slices.Clip(w.prompt), prefix...)); err != nil {
				return 0, err
			}
			logits, err := slot.Context().Logits(-1)
			if err != nil {
				return 0, err
			}
			if min(a, b) < 0 || int(max(a, b)) >= len(logits) {
				return 0, fmt.Errorf("token %d or %d is outside the vocabulary of %d", a, b, len(logits))
			}
			return float64(logits[a] - logits[b]), nil
		},
	}
	return rep, runBesidePeers(ctx, rep, loop, workloads, f.reps, f.nGen, view)
}

// tokenView is how a row's comparison reads tokens: their text, and the
// margin between two candidates for the token after a workload's prompt
// and prefix in loop's logits.
type tokenView struct {
	detok  func([]llama.Token) string
	margin func(w serverWorkload, prefix []llama.Token, a, b llama.Token) (float64, error)
}

// serverWorkloads are the rows: editPrompt and the edit-call step greedy, textPrompt
// sampled at temperature 1 (a reply that copies nothing), as benchDraft
// runs them, and the edit-call step again under the agent's call grammar
// demanding edit_file (agentStep.editGrammar), sent to both sides.
func serverWorkloads(ctx context.Context, m *llama.Model) ([]serverWorkload, error) {
	edit, err := m.Tokenize(editPrompt(), true, true)
	if err != nil {
		return nil, err
	}
	text, err := m.Tokenize(textPrompt, true, true)
	if err != nil {
		return nil, err
	}
	call, err := stepAfterRead(ctx, m, callTask)
	if err != nil {
		return nil, fmt.Errorf("the edit-call prompt: %w", err)
	}
	eog := eogBias(m)
	greedy := func(int) (*llama.Sampler, error) { return newChain(m, eog, llama.NewGreedy()) }
	sampled := func(rep int) (*llama.Sampler, error) {
		return newChain(m, eog, llama.NewTemp(1), llama.NewDist(uint32(textSeed+rep+1)))
	}
	ws := []serverWorkload{{draftWorkload{"edit", edit, greedy, nil, nil}, true, ""}, {draftWorkload{"text", text, sampled, nil, nil}, false, ""}}
	if call.prompt != nil {
		ws = append(ws, serverWorkload{draftWorkload{"edit-call", call.prompt, greedy, call.sources, nil}, true, ""})
		if call.editGrammar != "" {
			ws = append(ws, serverWorkload{draftWorkload{"edit-call-grammar", call.prompt, greedy, call.sources, nil}, true, call.editGrammar})
		}
	}
	return ws, nil
}

// loopRunner generates n tokens in slot, drafting up to draftMax. With
// keep, each workload's requests share an engine.Pace, as `loop run`'s
// steps do: what drafting learnt, and the replies it drafted, carry from
// the warm-up to each timed run. The peer's n-gram pools persist from one
// request to the next in the same way; without keep every request starts
// afresh.
func loopRunner(mode string, slot *llama.Slot, draftMax, n int, keep bool) serverRunner {
	paces := map[string]*engine.Pace{}
	return serverRunner{mode, func(ctx context.Context, w serverWorkload, rep int) (serverRun, error) {
		req := engine.Request{Prompt: w.prompt, NPredict: n, DraftMax: draftMax, Sources: w.sources, AnswerSources: w.answer}
		if keep {
			if paces[w.name] == nil {
				paces[w.name] = &engine.Pace{}
			}
			req.Pace = paces[w.name]
		}
		if w.gbnf != "" {
			g, err := engine.CompileGrammar(slot.Context().Model(), w.gbnf)
			if err != nil {
				return serverRun{}, fmt.Errorf("%s: %w", w.name, err)
			}
			defer g.Close()
			req.Grammar = g
		}
		res, err := draftRun(ctx, slot, w.chain, rep, req)
		if err != nil {
			return serverRun{}, err
		}
		return serverRun{perSecond: res.PerSecond(), drafted: res.Drafted, accepted: res.Accepted, tokens: res.Tokens}, nil
	}}
}

// runBesidePeers starts a peer per mode (none and each of rep.SpecTypes),
// paused but for its own runs, adds a mode per n-gram type whose every
// run has a peer of its own (afreshRunner), runs every workload in every
// mode, and stops the peers, on every path.
func runBesidePeers(ctx context.Context, rep *serverReport, loop []serverRunner, workloads []serverWorkload, reps, n int, view tokenView) (err error) {
	var peers []*peerServer
	defer func() {
		for _, p := range peers {
			if serr := p.stop(); err == nil {
				err = serr
			}
		}
	}()
	runners := slices.Clip(loop)
	for _, spec := range append([]string{""}, rep.SpecTypes...) {
		p, err := startServer(ctx, rep.Path, rep.Args, spec)
		if err != nil {
			return err
		}
		peers = append(peers, p)
		if err := p.pause(); err != nil {
			return err
		}
		runners = append(runners, serverRunner{strings.TrimSpace("peer " + spec), p.runner(n)})
	}
	slots, err := os.MkdirTemp("", "loop-bench-slots-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(slots)
	for _, spec := range rep.SpecTypes {
		runners = append(runners, afreshRunner(rep.Path, rep.Args, spec, slots, n))
	}
	for _, w := range workloads {
		row, err := serverRowRun(ctx, w, runners, reps, n)
		if err != nil {
			return err
		}
		if err := row.compare(w, view); err != nil {
			return fmt.Errorf("%s: %w", w.name, err)
		}
		rep.Rows = append(rep.Rows, row)
		if rep.progress != nil {
			if len(rep.Rows) == 1 {
				rep.printHeader(rep.progress)
			}
			printServerModes(rep.progress, row)
			rep.printRow(rep.progress, row)
		}
	}
	return nil
}

// serverRowRun runs w in every mode reps times after a warm-up, each
// mode first in turn, so that every mode sees the same load.
func serverRowRun(ctx context.Context, w serverWorkload, runners []serverRunner, reps, n int) (serverRow, error) {
	row := serverRow{Row: w.name, NPrompt: len(w.prompt), NGen: n, Greedy: w.greedy, Modes: make([]serverMode, len(runners))}
	for i := -1; i < reps; i++ { // i == -1 is the warm-up
		for k := range runners {
			j := (i + 1 + k) % len(runners)
			res, err := runners[j].run(ctx, w, i)
			if err != nil {
				return row, fmt.Errorf("%s, %s: %w", w.name, runners[j].mode, err)
			}
			if i < 0 {
				continue
			}
			m := &row.Modes[j]
			m.Samples = append(m.Samples, res.perSecond)
			m.Drafted, m.Accepted, m.CacheN = m.Drafted+res.drafted, m.Accepted+res.accepted, m.CacheN+res.cacheN
			if i == 0 {
				m.tokens = res.tokens
			}
		}
	}
	for j := range row.Modes {
		m := &row.Modes[j]
		m.Mode = runners[j].mode
		m.AvgTS, m.StdevTS = meanStdev(m.Samples)
	}
	return row, nil
}

// compare sets the best modes and their ratio, and on a greedy row each
// mode's token match with loop plain (the first mode), where a differing
// mode parts from it and by what margin, and where the peer's plain
// output parts from it.
func (r *serverRow) compare(w serverWorkload, view tokenView) error {
	var loopBest, peerBest, loopAfresh, peerAfresh *serverMode
	faster := func(best **serverMode, m *serverMode) {
		if *best == nil || m.AvgTS > (*best).AvgTS {
			*best = m
		}
	}
	for i := range r.Modes {
		m := &r.Modes[i]
		if strings.HasPrefix(m.Mode, "loop") {
			faster(&loopBest, m)
			if !strings.HasSuffix(m.Mode, " kept") {
				faster(&loopAfresh, m)
			}
		}
		if strings.HasPrefix(m.Mode, "peer ") {
			faster(&peerBest, m)
			if strings.HasSuffix(m.Mode, " afresh") {
				faster(&peerAfresh, m)
			}
		}
		if !r.Greedy || i == 0 {
			continue
		}
		ref := r.Modes[0].tokens
		same := slices.Equal(m.tokens, ref)
		m.SameTokens = &same
		if same {
			continue
		}
		at := 0
		for at < min(len(m.tokens), len(ref)) && m.tokens[at] == ref[at] {
			at++
		}
		m.DiffersAt = &at
		if at < min(len(m.tokens), len(ref)) && view.margin != nil {
			g, err := view.margin(w, ref[:at], ref[at], m.tokens[at])
			if err != nil {
				return fmt.Errorf("the logits where %s parts from loop: %w", m.Mode, err)
			}
			m.Margin = &g
		}
		if m.Mode == "peer" {
			r.Diff = &serverDiff{At: at, Peer: view.detok(m.tokens[at:]), Loop: view.detok(ref[at:])}
		}
	}
	if loopBest != nil && peerBest != nil && peerBest.AvgTS > 0 {
		r.LoopBest, r.PeerBest, r.Ratio = loopBest.Mode, peerBest.Mode, loopBest.AvgTS/peerBest.AvgTS
	}
	if loopAfresh != nil && peerAfresh != nil && peerAfresh.AvgTS > 0 {
		r.AfreshLoop, r.AfreshPeer, r.AfreshRatio = loopAfresh.Mode, peerAfresh.Mode, loopAfresh.AvgTS/peerAfresh.AvgTS
	}
	return nil
}

// print writes a table of every row and mode, each row's ratio, and how
// the greedy outputs compare.
func (rep *serverReport) print(w io.Writer) {
	rep.printHeader(w)
	for _, r := range rep.Rows {
		printServerModes(w, r)
	}
	for _, r := range rep.Rows {
		rep.printRow(w, r)
	}
}

// printHeader writes what the peer is and the table's header.
func (rep *serverReport) printHeader(w io.Writer) {
	fmt.Fprintf(w, "\nvs %s (llama.cpp %s), same model, threads and prompt tokens, decoding timed (each side keeps its prompt cache); n-gram types: %s\n",
		rep.Path, rep.Version, strings.Join(rep.SpecTypes, ", "))
	fmt.Fprintf(w, "modes: \"peer T\" is one llama-server per type for the whole bench, which keeps its n-gram pools from request to request, as \"loop draftK kept\" keeps the replies it drafted; \"peer T afresh\" starts a llama-server for each request (its prompt cache restored from a slot file), as \"loop draftK\" keeps no reply\n")
	fmt.Fprintf(w, "tokens \"differ at N, by M\": token N is the first that is not loop plain's, and loop's logits there put loop plain's token M ahead of this mode's\n")
	fmt.Fprintf(w, "| %-9s | %-25s | %16s | %18s | %-24s |\n", "row", "mode", "decode t/s", "drafted / accepted", "tokens")
	fmt.Fprintf(w, "| --------- | ------------------------- | ---------------: | -----------------: | ------------------------ |\n")
}

// printServerModes writes a row's line in every mode.
func printServerModes(w io.Writer, r serverRow) {
	for _, m := range r.Modes {
		drafts := "-"
		if m.Drafted > 0 {
			drafts = fmt.Sprintf("%d / %d (%.0f%%)", m.Drafted, m.Accepted, 100*float64(m.Accepted)/float64(m.Drafted))
		}
		tokens := "sampled"
		switch {
		case r.Greedy && m.SameTokens == nil:
			tokens = "greedy (reference)"
		case m.SameTokens != nil && *m.SameTokens:
			tokens = "same as loop"
		case m.DiffersAt != nil && m.Margin != nil:
			tokens = fmt.Sprintf("differ at %d, by %.4f", *m.DiffersAt, *m.Margin)
		case m.DiffersAt != nil:
			tokens = fmt.Sprintf("differ at %d", *m.DiffersAt)
		}
		fmt.Fprintf(w, "| %-9s | %-25s | %16s | %18s | %-24s |\n", r.Row, m.Mode, fmt.Sprintf("%.2f ± %.2f", m.AvgTS, m.StdevTS), drafts, tokens)
	}
}

// printRow writes a row's ratio and its greedy comparison.
func (rep *serverReport) printRow(w io.Writer, r serverRow) {
	if r.PeerBest != "" {
		fmt.Fprintf(w, "%s: %s / %s = %.3fx\n", r.Row, r.LoopBest, r.PeerBest, r.Ratio)
	}
	if r.AfreshPeer != "" {
		fmt.Fprintf(w, "%s, each request afresh (no reply kept; a new peer each request): %s / %s = %.3fx\n", r.Row, r.AfreshLoop, r.AfreshPeer, r.AfreshRatio)
	}
	switch {
	case r.Diff != nil:
		fmt.Fprintf(w, "%s: the peer's greedy tokens differ from loop's from token %d of %d (the peer is a newer llama.cpp, whose numerics can differ): peer %q, loop %q\n",
			r.Row, r.Diff.At, r.NGen, clip(r.Diff.Peer, outputShown), clip(r.Diff.Loop, outputShown))
	case r.Greedy:
		fmt.Fprintf(w, "%s: the peer's greedy tokens are loop's, all %d\n", r.Row, r.NGen)
	}
}

func clip(s string, n int) string {
	return strings.ToValidUTF8(s[:min(len(s), n)], "")
}

// checkServer fails early on a --vs-server path that is not an executable
// and on no tokens to generate.
func checkServer(path string, f *benchFlags) error {
	if _, err := exec.LookPath(path); err != nil {
		return fmt.Errorf("--vs-server: %w", err)
	}
	if f.nGen == 0 {
		return usagef("--vs-server needs --n-gen above 0")
	}
	return nil
}
