package grammar

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// minMaxInt writes a GBNF expression matching the decimal integers in
// [lo, hi]; math.MinInt64 and math.MaxInt64 mean unbounded. It follows
// llama.cpp's _build_min_max_int: digit ranges per length, so that only
// integers in range can be written, without leading zeros.
func minMaxInt(b *strings.Builder, lo, hi int64, decimalsLeft int, topLevel bool) {
	hasMin, hasMax := lo != math.MinInt64, hi != math.MaxInt64
	switch {
	case hasMin && hasMax:
		boundedInt(b, lo, hi, decimalsLeft)
	case hasMin:
		minInt(b, lo, decimalsLeft, topLevel)
	case hasMax:
		lessDecimals := max(decimalsLeft-1, 1)
		if hi >= 0 {
			if topLevel {
				b.WriteString(`"-" [1-9] `)
				moreDigits(b, 0, lessDecimals)
				b.WriteString(" | ")
			}
			minMaxInt(b, 0, hi, decimalsLeft, true)
		} else {
			b.WriteString(`"-" (`)
			minMaxInt(b, -hi, math.MaxInt64, decimalsLeft, false)
			b.WriteString(")")
		}
	}
}

func boundedInt(b *strings.Builder, lo, hi int64, decimalsLeft int) {
	if lo < 0 && hi < 0 {
		b.WriteString(`"-" (`)
		minMaxInt(b, -hi, -lo, decimalsLeft, true)
		b.WriteString(")")
		return
	}
	if lo < 0 {
		b.WriteString(`"-" (`)
		minMaxInt(b, 0, -lo, decimalsLeft, true)
		b.WriteString(") | ")
		lo = 0
	}
	minS, maxS := strconv.FormatInt(lo, 10), strconv.FormatInt(hi, 10)
	for digits := len(minS); digits < len(maxS); digits++ {
		uniformRange(b, minS, strings.Repeat("9", digits))
		minS = "1" + strings.Repeat("0", digits)
		b.WriteString(" | ")
	}
	uniformRange(b, minS, maxS)
}

func minInt(b *strings.Builder, lo int64, decimalsLeft int, topLevel bool) {
	lessDecimals := max(decimalsLeft-1, 1)
	switch {
	case lo < 0:
		b.WriteString(`"-" (`)
		minMaxInt(b, math.MinInt64, -lo, decimalsLeft, false)
		b.WriteString(") | [0] | [1-9] ")
		moreDigits(b, 0, decimalsLeft-1)
	case lo == 0:
		if topLevel {
			b.WriteString("[0] | [1-9] ")
			moreDigits(b, 0, lessDecimals)
		} else {
			moreDigits(b, 1, decimalsLeft)
		}
	case lo <= 9:
		c := byte('0' + lo)
		start := byte('0')
		if topLevel {
			start = '1'
		}
		if c > start {
			digitRange(b, start, c-1)
			b.WriteString(" ")
			moreDigits(b, 1, lessDecimals)
			b.WriteString(" | ")
		}
		digitRange(b, c, '9')
		b.WriteString(" ")
		moreDigits(b, 0, lessDecimals)
	default:
		minS := strconv.FormatInt(lo, 10)
		n, c := len(minS), minS[0]
		if c > '1' {
			start := byte('0')
			if topLevel {
				start = '1'
			}
			digitRange(b, start, c-1)
			b.WriteString(" ")
			moreDigits(b, n, lessDecimals)
			b.WriteString(" | ")
		}
		digitRange(b, c, c)
		b.WriteString(" (")
		rest, _ := strconv.ParseInt(minS[1:], 10, 64)
		minMaxInt(b, rest, math.MaxInt64, lessDecimals, false)
		b.WriteString(")")
		if c < '9' {
			b.WriteString(" | ")
			digitRange(b, c+1, '9')
			b.WriteString(" ")
			moreDigits(b, n-1, lessDecimals)
		}
	}
}

func digitRange(b *strings.Builder, from, to byte) {
	if from == to {
		fmt.Fprintf(b, "[%c]", from)
	} else {
		fmt.Fprintf(b, "[%c-%c]", from, to)
	}
}

func moreDigits(b *strings.Builder, minDigits, maxDigits int) {
	b.WriteString("[0-9]")
	if minDigits == maxDigits && minDigits == 1 {
		return
	}
	fmt.Fprintf(b, "{%d", minDigits)
	if maxDigits != minDigits {
		b.WriteString(",")
		if maxDigits != math.MaxInt {
			fmt.Fprintf(b, "%d", maxDigits)
		}
	}
	b.WriteString("}")
}

// uniformRange matches the numbers from..to of equal length.
func uniformRange(b *strings.Builder, from, to string) {
	i := 0
	for i < len(from) && i < len(to) && from[i] == to[i] {
		i++
	}
	if i > 0 {
		b.WriteString(`"` + from[:i] + `"`)
	}
	if i >= len(from) || i >= len(to) {
		return
	}
	if i > 0 {
		b.WriteString(" ")
	}
	subLen := len(from) - i - 1
	if subLen == 0 {
		fmt.Fprintf(b, "[%c-%c]", from[i], to[i])
		return
	}
	fromSub, toSub := from[i+1:], to[i+1:]
	zeros, nines := strings.Repeat("0", subLen), strings.Repeat("9", subLen)
	toReached := false
	b.WriteString("(")
	if fromSub == zeros {
		digitRange(b, from[i], to[i]-1)
		b.WriteString(" ")
		moreDigits(b, subLen, subLen)
	} else {
		fmt.Fprintf(b, "[%c] (", from[i])
		uniformRange(b, fromSub, nines)
		b.WriteString(")")
		if from[i] < to[i]-1 {
			b.WriteString(" | ")
			if toSub == nines {
				digitRange(b, from[i]+1, to[i])
				toReached = true
			} else {
				digitRange(b, from[i]+1, to[i]-1)
			}
			b.WriteString(" ")
			moreDigits(b, subLen, subLen)
		}
	}
	if !toReached {
		b.WriteString(" | ")
		digitRange(b, to[i], to[i])
		b.WriteString(" ")
		uniformRange(b, zeros, toSub)
	}
	b.WriteString(")")
}
