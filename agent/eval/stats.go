package eval

import (
	"fmt"
	"math"

	"github.com/loopagent/loop/internal/decimal"
)

// Z95 is the normal quantile of a two-sided 95% interval, to seven
// digits.
const Z95 = 1.959964

// Interval is a range of rates, both ends in [0, 1].
type Interval struct {
	Low  float64 `json:"low"`
	High float64 `json:"high"`
}

// Wilson returns the 95% Wilson score interval of k successes in n
// trials, within [0, 1]. Unlike the normal approximation it stays inside
// [0, 1] and is honest near 0% and 100%, where agent pass rates often
// are. With n = 0 nothing is known: [0, 1].
func Wilson(k, n int) Interval {
	if n <= 0 {
		return Interval{0, 1}
	}
	p, z2 := float64(k)/float64(n), Z95*Z95
	nf := float64(n)
	center := (p + z2/(2*nf)) / (1 + z2/nf)
	half := Z95 * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf)) / (1 + z2/nf)
	iv := Interval{center - half, center + half}
	// At k = 0 or n the bound is 0 or 1 exactly; rounding would print -0.0.
	if k <= 0 {
		iv.Low = 0
	}
	if k >= n {
		iv.High = 1
	}
	return iv
}

// Overlaps reports whether two intervals share a point.
func (a Interval) Overlaps(b Interval) bool { return b.High >= a.Low && a.High >= b.Low }

// Rate is K successes out of N trials.
type Rate struct {
	K int `json:"k"`
	N int `json:"n"`
}

// P is the observed rate, 0 when N is 0.
func (r Rate) P() float64 {
	if r.N == 0 {
		return 0
	}
	return float64(r.K) / float64(r.N)
}

// Interval is the rate's 95% Wilson interval.
func (r Rate) Interval() Interval { return Wilson(r.K, r.N) }

// String writes the rate in percent with its interval, in fixed widths
// so that rates line up in a column: " 99.0% [96.4,  99.7]". A rate of
// nothing is "-".
func (r Rate) String() string {
	if r.N == 0 {
		return "-"
	}
	w := r.Interval()
	return fmt.Sprintf("%5s%% [%4s, %5s]", decimal.Fixed(100*r.P(), 1), decimal.Fixed(100*w.Low, 1), decimal.Fixed(100*w.High, 1))
}

// Fraction writes the rate as "5/7".
func (r Rate) Fraction() string { return fmt.Sprintf("%d/%d", r.K, r.N) }

// Pairs counts the outcomes of two configurations on the same (scenario,
// seed) pairs: both passed, only A, only B, neither.
type Pairs struct {
	Both    int `json:"both"`
	OnlyA   int `json:"only_a"`
	OnlyB   int `json:"only_b"`
	Neither int `json:"neither"`
}

// SignTest is the exact two-sided p-value of McNemar's test on the
// discordant pairs: under "no difference", each of the OnlyA+OnlyB pairs
// falls either way with probability 1/2. It is 1 without discordant pairs.
func (p Pairs) SignTest() float64 {
	n := p.OnlyA + p.OnlyB
	if n == 0 {
		return 1
	}
	k := min(p.OnlyA, p.OnlyB)
	// P(X <= k) for X ~ Binomial(n, 1/2), in logs to stay finite.
	tail := 0.0
	for i := 0; i <= k; i++ {
		tail += math.Exp(logChoose(n, i) - float64(n)*math.Ln2)
	}
	return math.Min(1, 2*tail)
}

func logChoose(n, k int) float64 {
	a, _ := math.Lgamma(float64(n + 1))
	b, _ := math.Lgamma(float64(k + 1))
	c, _ := math.Lgamma(float64(n - k + 1))
	return a - b - c
}

// Alpha is the significance level of the paired test.
const Alpha = 0.05

// Comparison is two configurations' pass rates on the same runs.
type Comparison struct {
	A     string `json:"a"`
	B     string `json:"b"`
	RateA Rate   `json:"rate_a"`
	RateB Rate   `json:"rate_b"`
	Pairs Pairs  `json:"pairs"`
	// P is the exact McNemar (sign test) p-value of the discordant pairs.
	P float64 `json:"p"`
	// Overlap: the two Wilson intervals overlap.
	Overlap bool `json:"overlap"`
	// Differ: the difference is beyond sampling noise by both tests: the
	// intervals do not overlap and the paired test has P < Alpha.
	Differ bool `json:"differ"`
}

// Compare compares two configurations' results on the same runs: a[i]
// and b[i] are the pass of one (scenario, seed) under A and under B.
func Compare(nameA, nameB string, a, b []bool) Comparison {
	c := Comparison{A: nameA, B: nameB}
	for i := range min(len(a), len(b)) {
		switch {
		case a[i] && b[i]:
			c.Pairs.Both++
		case a[i]:
			c.Pairs.OnlyA++
		case b[i]:
			c.Pairs.OnlyB++
		default:
			c.Pairs.Neither++
		}
	}
	n := c.Pairs.Both + c.Pairs.OnlyA + c.Pairs.OnlyB + c.Pairs.Neither
	c.RateA = Rate{c.Pairs.Both + c.Pairs.OnlyA, n}
	c.RateB = Rate{c.Pairs.Both + c.Pairs.OnlyB, n}
	c.P = c.Pairs.SignTest()
	c.Overlap = c.RateA.Interval().Overlaps(c.RateB.Interval())
	c.Differ = !c.Overlap && c.P < Alpha
	return c
}

// String is the comparison in one line.
func (c Comparison) String() string {
	verdict := "no difference shown"
	if c.Differ {
		verdict = "differ beyond noise"
	}
	overlap := "intervals overlap"
	if !c.Overlap {
		overlap = "intervals do not overlap"
	}
	pairs := "no discordant pairs"
	if n := c.Pairs.OnlyA + c.Pairs.OnlyB; n > 0 {
		pairs = fmt.Sprintf("%d/%d discordant pairs favour %s", max(c.Pairs.OnlyA, c.Pairs.OnlyB), n, c.favoured())
	}
	return fmt.Sprintf("%s vs %s: %s vs %s, %s, %s, sign test p=%s: %s",
		c.A, c.B, c.RateA.Fraction(), c.RateB.Fraction(), overlap, pairs, decimal.Fixed(c.P, 3), verdict)
}

func (c Comparison) favoured() string {
	if c.Pairs.OnlyB > c.Pairs.OnlyA {
		return c.B
	}
	return c.A
}

// Plan is a sample-size plan: the smallest number of prompts per
// configuration, in steps of Step up to Max, at which the Wilson
// intervals of the rates P1 and P2 no longer overlap, so that a
// difference that large would be told from noise.
type Plan struct {
	// P1 and P2 are the two rates to tell apart, in [0, 1].
	P1, P2 float64
	// Step is the increment of n; 0 means 100.
	Step int
	// Max bounds n; 0 means 2000.
	Max int
}

// N returns the plan's number of prompts, or 0 when none up to Max
// separates the rates.
func (p Plan) N() int {
	step, most := orDefault(p.Step, 100), orDefault(p.Max, 2000)
	hiP, loP := max(p.P1, p.P2), min(p.P1, p.P2)
	for n := step; n <= most; n += step {
		hi := Wilson(int(math.Round(hiP*float64(n))), n)
		lo := Wilson(int(math.Round(loP*float64(n))), n)
		if lo.High < hi.Low {
			return n
		}
	}
	return 0
}

// String is the plan's one-line answer: the rates and the prompts needed.
func (p Plan) String() string {
	n := p.N()
	a, b := decimal.Fixed(100*p.P1, 0)+"%", decimal.Fixed(100*p.P2, 0)+"%"
	if n == 0 {
		return fmt.Sprintf("%s vs %s do not separate at n<=%d prompts per file", a, b, orDefault(p.Max, 2000))
	}
	return fmt.Sprintf("%s vs %s separate at n=%d prompts per file", a, b, n)
}

func orDefault(v, def int) int {
	if v == 0 {
		return def
	}
	return v
}
