package sampler

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/loopagent/loop/internal/decimal"
)

// The inputs of WriteExplain's tables: scores for the next token after
// {"name": " in a tool call and inside its JSON, and the settings tried.
var (
	// toolLogits are read_file, read, list_files, then 20 unrelated tokens.
	toolLogits = append([]float32{4.0, 2.5, 1.5}, repeat32(-0.5, 20)...)
	// explainTemps and explainMinPs are the settings of the first table;
	// min_p is not tried at temperature 0, which is greedy anyway.
	explainTemps = []float64{0.0, 0.2, 0.6, 1.0}
	explainMinPs = []float64{0.0, 0.05}
	// jsonLogits are the scores of ", ' and [ inside a JSON call; " is in
	// the last 64 tokens, so the repeat penalty applies to it.
	jsonLogits = []float32{3.0, 1.0, 0.5}
	// explainPenalties are the repeat penalties of the second table.
	explainPenalties = []float64{1.0, 1.1, 1.3, 1.5}
)

func repeat32(v float32, n int) []float32 {
	s := make([]float32, n)
	for i := range s {
		s[i] = v
	}
	return s
}

// WriteExplain prints two tables: how temperature and min_p change the
// chance of picking the right tool name, and how a repeat penalty lowers
// the probability of the " that every JSON call needs. It computes them
// with Distribution over llama.cpp's chain reduced to the repeat penalty,
// min_p and temperature, in llama.cpp's order (min_p before temperature),
// and prints them with Java's rounding and column widths, so that they
// compare digit for digit with the reference tables.
func WriteExplain(w io.Writer) error {
	bw := bufio.NewWriter(w)
	writeToolTable(bw)
	writePenaltyTable(bw)
	return bw.Flush()
}

// explainProbs runs llama.cpp's chain (Distribution) in its default
// order, reduced to the samplers the example uses: the repeat penalty
// (over the last 64 tokens of history), min_p and temperature. It returns
// each token's logit after the chain and its probability, by id
// (probability 0 for removed tokens).
func explainProbs(logits []float32, history []int32, penalty, minP, temp float64) (logit, p []float64) {
	cfg := Defaults()
	cfg.Order = []Kind{KindPenalties, KindMinP, KindTemperature}
	cfg.PenaltyLastN, cfg.RepeatPenalty = 64, float32(penalty)
	cfg.MinP, cfg.Temperature = float32(minP), float32(temp)
	logit, p = make([]float64, len(logits)), make([]float64, len(logits))
	for _, x := range Distribution(cfg, logits, history) {
		logit[x.ID], p[x.ID] = x.Logit, x.P
	}
	return logit, p
}

// ToolRow is a row of the first table: one temperature and min_p setting,
// and the probabilities of the right tool, the two wrong ones, the 20
// unrelated tokens, and of five such decisions all going right.
type ToolRow struct {
	Temp, MinP                    float64
	Right, Wrong, Tail, FiveRight float64
}

// PenaltyRow is a row of the second table: a repeat penalty, the logit of "
// after it, and the probability of ".
type PenaltyRow struct {
	Penalty, Logit, P float64
}

// ExplainTables computes the rows of WriteExplain's two tables.
func ExplainTables() ([]ToolRow, []PenaltyRow) {
	var tool []ToolRow
	for _, temp := range explainTemps {
		for _, minP := range explainMinPs {
			if temp == 0 && minP > 0 {
				continue
			}
			_, p := explainProbs(toolLogits, nil, 1, minP, temp)
			tail := 0.0
			for _, x := range p[3:] {
				tail += x
			}
			tool = append(tool, ToolRow{temp, minP, p[0], p[1] + p[2], tail, math.Pow(p[0], 5)})
		}
	}
	var pen []PenaltyRow
	for _, penalty := range explainPenalties {
		l, p := explainProbs(jsonLogits, []int32{0}, penalty, 0, 1)
		pen = append(pen, PenaltyRow{penalty, l[0], p[0]})
	}
	return tool, pen
}

func writeToolTable(w io.Writer) {
	tool, _ := ExplainTables()
	fmt.Fprintln(w, "temp  min_p  P(read_file)  P(wrong tool)  P(tail)  P(5 such steps all right)")
	for _, r := range tool {
		fmt.Fprintln(w, columns(
			field(r.Temp, 4, 1), field(r.MinP, 5, 2), field(r.Right, 12, 4),
			field(r.Wrong, 13, 4), field(r.Tail, 7, 4), field(r.FiveRight, 25, 4)))
	}
}

func writePenaltyTable(w io.Writer) {
	_, pen := ExplainTables()
	fmt.Fprintln(w, `repeat_penalty  logit(")  P(")`)
	for _, r := range pen {
		fmt.Fprintln(w, columns(field(r.Penalty, 14, 1), field(r.Logit, 9, 3), field(r.P, 0, 4)))
	}
}

// field formats x with prec decimals, rounded as Java's String.format
// rounds, right-aligned in width columns like Java's %width.precf.
func field(x float64, width, prec int) string {
	s := decimal.Fixed(x, prec)
	if n := width - len(s); n > 0 {
		s = strings.Repeat(" ", n) + s
	}
	return s
}

// columns joins fields with two spaces, the reference tables' separator.
func columns(fields ...string) string { return strings.Join(fields, "  ") }
