package window

import (
	"fmt"
	"io"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/loopagent/loop/internal/decimal"
)

// EstimateSample is one text measured with real tokenizers: its kind
// ("json", "maven log"), its characters, and its token count in each
// vocabulary of the table, in the table's order, without the BOS token.
type EstimateSample struct {
	Kind  string `json:"kind"`
	Chars int    `json:"chars"`
	Real  []int  `json:"real"`
}

// NewEstimateSample measures text: its characters (code points, as
// Estimate counts them) and its tokens in each vocabulary.
func NewEstimateSample(kind, text string, real ...int) EstimateSample {
	return EstimateSample{Kind: kind, Chars: utf8.RuneCountInString(text), Real: real}
}

// EstimateRow is a sample compared with the estimate.
type EstimateRow struct {
	EstimateSample
	// Estimate is ceil(chars / CharsPerToken); Worst is the largest real
	// count, the one a window must hold.
	Estimate int `json:"estimate"`
	Worst    int `json:"worst"`
	// ErrorPct is (Estimate - Worst) / Worst in percent, rounded half up:
	// positive when the estimate is too high, negative when too low.
	ErrorPct int `json:"error_pct"`
	// CharsPerToken is chars / Worst, the ratio the estimate should use.
	CharsPerToken float64 `json:"chars_per_token"`
}

// CompareEstimate compares the estimate e (ceil(chars / 4) for its zero
// value) with each sample's largest real count. The error is judged
// against the worst vocabulary because an agent that must stay inside the
// window cares about the worst case.
func CompareEstimate(e Estimate, samples []EstimateSample) []EstimateRow {
	rows := make([]EstimateRow, len(samples))
	for i, s := range samples {
		r := EstimateRow{EstimateSample: s, Estimate: ceilDiv(s.Chars, orDefault(e.CharsPerToken, 4))}
		for _, n := range s.Real {
			r.Worst = max(r.Worst, n)
		}
		if r.Worst > 0 {
			r.ErrorPct = percent(r.Estimate, r.Worst)
			r.CharsPerToken = float64(s.Chars) / float64(r.Worst)
		}
		rows[i] = r
	}
	return rows
}

// percent is round(100 (got - want) / want), halves rounded up.
func percent(got, want int) int {
	return int(math.Floor(100*float64(got-want)/float64(want) + 0.5))
}

// WriteEstimates prints rows as a table, a column per vocabulary named by
// vocabs, then the totals of the estimate and of the worst real counts:
//
//	kind        chars  est  llama3  qwen2  error  chars/token
//	json           95   24      33     34   -29%         2.79
//	total: estimate 24, real 34 (-29%)
func WriteEstimates(w io.Writer, vocabs []string, rows []EstimateRow) error {
	kindW := len("kind") + 6
	for _, r := range rows {
		kindW = max(kindW, len(r.Kind))
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s  chars  est  %s  error  chars/token\n", kindW, "kind", strings.Join(vocabs, "  "))
	est, real := 0, 0
	for _, r := range rows {
		fmt.Fprintf(&b, "%-*s  %5d  %3d", kindW, r.Kind, r.Chars, r.Estimate)
		for i, name := range vocabs {
			n := "-"
			if i < len(r.Real) {
				n = fmt.Sprint(r.Real[i])
			}
			fmt.Fprintf(&b, "  %*s", len(name), n)
		}
		fmt.Fprintf(&b, "  %+4d%%  %11s\n", r.ErrorPct, decimal.Fixed(r.CharsPerToken, 2))
		est += r.Estimate
		real += r.Worst
	}
	if real > 0 {
		fmt.Fprintf(&b, "total: estimate %d, real %d (%+d%%)\n", est, real, percent(est, real))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
