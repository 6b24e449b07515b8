package eval

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/decimal"
	"github.com/loopagent/loop/internal/golden"
)

// TestSeedExample9 prints seed 000 Example 9's table, comparisons and
// sample-size plan from its example counts with Rate, Wilson and Plan,
// the code `loop eval` reports with, and compares them with the seed's
// printed output, copied verbatim.
func TestSeedExample9(t *testing.T) {
	runs := []struct {
		file                              string
		kld                               float64
		n, parsed, schemaValid, rightCall int
	}{
		{"quant-A (8.5 bpw)", 0.0021, 200, 198, 196, 181},
		{"quant-B (4.9 bpw)", 0.0190, 200, 197, 193, 176},
		{"quant-C (3.5 bpw)", 0.0870, 200, 189, 178, 152},
	}
	var b strings.Builder
	b.WriteString("file                mean KLD   parsed                 schema-valid           right call\n")
	for _, r := range runs {
		fmt.Fprintf(&b, "%-18s  %8s  %s  %s  %s\n", r.file, decimal.Fixed(r.kld, 4),
			Rate{r.parsed, r.n}, Rate{r.schemaValid, r.n}, Rate{r.rightCall, r.n})
	}
	base := runs[0]
	for _, r := range runs[1:] {
		a, c := Wilson(base.rightCall, base.n), Wilson(r.rightCall, r.n)
		verdict := "do not overlap, the drop is larger than sampling noise"
		if a.Overlaps(c) {
			verdict = fmt.Sprintf("overlap, no difference shown at n=%d", r.n)
		}
		fmt.Fprintf(&b, "%s vs %s: right-call intervals %s\n", r.file, base.file, verdict)
	}
	b.WriteString(Plan{P1: 0.90, P2: 0.85}.String() + "\n")
	golden.Seed(t, "example9.txt", b.String())
}

func TestWilson(t *testing.T) {
	tests := []struct {
		name      string
		k, n      int
		low, high float64
	}{
		{"none", 0, 0, 0, 1},
		{"all of one", 1, 1, 0.2065, 1},
		{"none of ten", 0, 10, 0, 0.2775},
		{"31 of 50", 31, 50, 0.4815, 0.7414},
		{"half of 100", 50, 100, 0.4038, 0.5962},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Wilson(tt.k, tt.n)
			if math.Abs(got.Low-tt.low) > 5e-5 || math.Abs(got.High-tt.high) > 5e-5 {
				t.Errorf("Wilson(%d, %d) = %+v, want [%.4f, %.4f]", tt.k, tt.n, got, tt.low, tt.high)
			}
		})
	}
}

// TestSignTest checks the exact McNemar p-values against the binomial
// distribution computed by hand: 2 * P(X <= k), X ~ B(n, 1/2).
func TestSignTest(t *testing.T) {
	tests := []struct {
		name         string
		onlyA, onlyB int
		want         float64
	}{
		{"no discordant pair", 0, 0, 1},
		{"one each way", 1, 1, 1},
		{"five to none", 5, 0, 2.0 / 32},
		{"six to none", 0, 6, 2.0 / 64},
		{"eight to one", 8, 1, 2 * 10.0 / 512},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Pairs{OnlyA: tt.onlyA, OnlyB: tt.onlyB}.SignTest()
			if math.Abs(got-tt.want) > 1e-12 {
				t.Errorf("SignTest(%d, %d) = %v, want %v", tt.onlyA, tt.onlyB, got, tt.want)
			}
		})
	}
}

// TestCompare: a difference shown by both tests differs beyond noise;
// the same counts on too few runs do not.
func TestCompare(t *testing.T) {
	rep := func(pattern []bool, times int) []bool {
		var out []bool
		for range times {
			out = append(out, pattern...)
		}
		return out
	}
	a := rep([]bool{true, true, true, true, true, true, true, true, true, false}, 10)     // 90/100
	b := rep([]bool{true, true, true, true, true, false, false, false, false, false}, 10) // 50/100, nested in a
	c := Compare("a", "b", a, b)
	if !c.Differ || c.Overlap || c.Pairs.OnlyA != 40 || c.Pairs.OnlyB != 0 {
		t.Errorf("Compare(90/100, 50/100) = %+v, want differ beyond noise with 40 discordant pairs for a", c)
	}
	c = Compare("a", "b", a[:5], b[:5])
	if c.Differ {
		t.Errorf("Compare on 5 runs = %+v, want no difference shown", c)
	}
	if want := "a vs b: 5/5 vs 5/5, intervals overlap, no discordant pairs, sign test p=1.000: no difference shown"; c.String() != want {
		t.Errorf("Comparison.String() = %q, want %q", c.String(), want)
	}
}

// TestWilsonBounds: at 0 and at n successes the interval ends at 0 and 1
// exactly (rounding printed 0/72 as [-0.0, 5.1]).
func TestWilsonBounds(t *testing.T) {
	for _, n := range []int{1, 7, 72, 1000} {
		if lo := Wilson(0, n).Low; lo != 0 || math.Signbit(lo) {
			t.Errorf("Wilson(0, %d).Low = %v, want 0", n, lo)
		}
		if hi := Wilson(n, n).High; hi != 1 {
			t.Errorf("Wilson(%d, %d).High = %v, want 1", n, n, hi)
		}
		if s := (Rate{0, n}).String(); strings.Contains(s, "-0.0") {
			t.Errorf("Rate{0, %d} = %q", n, s)
		}
	}
}
