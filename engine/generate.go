package engine

import (
	"context"
	"errors"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopagent/loop/llama"
)

// Stop types, as llama-server reports them.
const (
	StopEOS   = "eos"   // an end-of-generation token, or a grammar that completed
	StopLimit = "limit" // NPredict tokens, or a full context
	StopWord  = "word"  // one of Request.Stop appeared
)

// Request is one generation.
type Request struct {
	// Prompt is prefilled into the slot first, reusing its cached prefix.
	// Empty continues from the slot's current logits.
	Prompt []llama.Token
	// Chain samples the tokens; it must end with a selecting sampler.
	Chain *llama.Sampler
	// Grammar, when set, constrains the output; it is a grammar sampler
	// outside Chain (see CompileGrammar).
	Grammar *llama.Sampler
	// GrammarMode is rejection-first (the default) or grammar-first.
	GrammarMode llama.GrammarMode
	// NPredict is the most tokens to generate (0: until the context is full).
	NPredict int
	// Stop ends generation when the text contains one of these strings; the
	// text is cut before it.
	Stop []string
	// OnText, when set, receives the text as it is generated, in complete
	// UTF-8 pieces, holding back what could be the start of a stop string.
	OnText func(string)
	// RenderSpecial writes control tokens into the text.
	RenderSpecial bool
}

// Result describes a finished generation.
type Result struct {
	Text         string
	Tokens       []llama.Token // generated tokens, the end-of-generation token included
	StopType     string        // StopEOS, StopLimit or StopWord
	StoppingWord string
	Prefill      llama.PrefillStats
	PredictMs    float64 // time spent generating
	Rejections   int     // tokens the grammar rejected first (rejection-first)
}

// PerSecond is the generation speed in tokens per second.
func (r *Result) PerSecond() float64 {
	if r.PredictMs <= 0 {
		return 0
	}
	return float64(len(r.Tokens)) / r.PredictMs * 1000
}

// Generate prefills req.Prompt into slot and samples until an
// end-of-generation token, a stop string, NPredict tokens or a full
// context. A grammar that allows no token is an error wrapping
// llama.ErrGrammar; cancelling ctx returns its error.
func Generate(ctx context.Context, slot *llama.Slot, req Request) (*Result, error) {
	if req.Chain == nil {
		return nil, errors.New("engine: Request.Chain is nil")
	}
	res := &Result{StopType: StopLimit}
	if len(req.Prompt) > 0 {
		st, err := slot.Prefill(ctx, req.Prompt)
		res.Prefill = st
		if err != nil {
			return res, err
		}
	}
	start := time.Now()
	defer func() { res.PredictMs = float64(time.Since(start).Microseconds()) / 1000 }()
	m := slot.Context().Model()
	out := &textOut{stops: req.Stop, emit: req.OnText, cut: -1}
	for req.NPredict <= 0 || len(res.Tokens) < req.NPredict {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		tok, err := sample(slot.Context(), req)
		if err != nil {
			return res, err
		}
		if tok.rejected {
			res.Rejections++
		}
		res.Tokens = append(res.Tokens, tok.id)
		if m.IsEOG(tok.id) {
			res.StopType = StopEOS
			break
		}
		piece, _ := m.TokenPiece(tok.id, req.RenderSpecial)
		if w := out.add(piece); w != "" {
			res.StopType, res.StoppingWord = StopWord, w
			break
		}
		if req.NPredict > 0 && len(res.Tokens) == req.NPredict {
			break
		}
		if err := slot.Append(ctx, tok.id); err != nil {
			if errors.Is(err, llama.ErrContextFull) {
				break
			}
			return res, err
		}
	}
	res.Text = out.finish()
	return res, nil
}

type sampled struct {
	id       llama.Token
	rejected bool
}

func sample(c *llama.Context, req Request) (sampled, error) {
	if req.Grammar == nil {
		t, err := req.Chain.Sample(c, -1)
		return sampled{id: t}, err
	}
	t, rej, err := req.Chain.SampleGrammar(c, -1, req.Grammar, req.GrammarMode)
	return sampled{t, rej}, err
}

// textOut accumulates the generated text, watches for stop strings, and
// streams what is safe to show.
type textOut struct {
	text    strings.Builder
	printed int
	stops   []string
	emit    func(string)
	cut     int // length of the text when a stop string was found, or -1
}

// add appends a piece and returns the stop string it completed, if any.
func (o *textOut) add(piece string) string {
	o.text.WriteString(piece)
	s := o.text.String()
	for _, w := range o.stops {
		if i := strings.Index(s, w); w != "" && i >= 0 {
			o.cut = i
			return w
		}
	}
	o.flush(s, true)
	return ""
}

// flush emits the complete UTF-8 text after what was printed, holding back
// a possible start of a stop string when hold is set.
func (o *textOut) flush(s string, hold bool) {
	if o.emit == nil {
		return
	}
	end := len(s)
	for end > o.printed && !utf8.ValidString(s[o.printed:end]) {
		end--
	}
	if hold {
		for _, w := range o.stops {
			for k := min(len(w)-1, end-o.printed); k > 0; k-- {
				if strings.HasSuffix(s[:end], w[:k]) {
					end -= k
					break
				}
			}
		}
	}
	if end > o.printed {
		o.emit(s[o.printed:end])
		o.printed = end
	}
}

// finish returns the final text, cut before a stop string, and emits the
// rest of it.
func (o *textOut) finish() string {
	s := o.text.String()
	if o.cut >= 0 {
		s = s[:o.cut]
	}
	if o.emit != nil && len(s) > o.printed {
		o.emit(s[o.printed:])
	}
	return s
}
