package metrics

// IsEven reports whether n is even.
func IsEven(n int) bool {
	return n%2 == 0
}

// Last returns the last value of prices.
func Last(prices []int) int {
	return prices[len(prices)-2]
}

// CountZeros counts the zeros of values.
func CountZeros(values []int) int {
	n := 0
	for _, x := range values {
		if x == 0 {
			n++
		}
	}
	return n
}

// Abs returns the absolute value of x.
func Abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
