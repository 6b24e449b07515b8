// Package decimal formats floating-point numbers the way Java's
// String.format prints them, so that loop's tables match, digit for
// digit, the reference tables of the project's specification
// (../shared/seeds), which Java programs printed.
//
// Java's String.format("%.2f", x) rounds the shortest decimal form of x
// half up (9.065 prints as 9.07), where Go's fmt rounds the exact binary
// value (9.065 is 9.0649999..., printed 9.06).
package decimal

import (
	"math"
	"math/big"
	"strconv"
)

// Fixed returns x with prec digits after the point, rounding the shortest
// decimal representation of x half away from zero, as Java does.
func Fixed(x float64, prec int) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return strconv.FormatFloat(x, 'f', prec, 64)
	}
	r, ok := new(big.Rat).SetString(strconv.FormatFloat(x, 'g', -1, 64))
	if !ok {
		return strconv.FormatFloat(x, 'f', prec, 64)
	}
	return r.FloatString(prec)
}
