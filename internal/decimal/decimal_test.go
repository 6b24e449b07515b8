package decimal

import "testing"

func TestFixed(t *testing.T) {
	tests := []struct {
		x    float64
		prec int
		want string
	}{
		{14.8 * 4.9 / 8, 2, "9.07"}, // 9.065: Go's %.2f prints 9.06
		{9.0649, 2, "9.06"},
		{0.125, 2, "0.13"},
		{2.5, 0, "3"},
		{-1.005, 2, "-1.01"},
		{0.82142, 4, "0.8214"},
		{1, 3, "1.000"},
		{123456.789, 1, "123456.8"},
	}
	for _, tt := range tests {
		if got := Fixed(tt.x, tt.prec); got != tt.want {
			t.Errorf("Fixed(%v, %d) = %q, want %q", tt.x, tt.prec, got, tt.want)
		}
	}
}

func FuzzFixed(f *testing.F) {
	f.Add(1.5, 2)
	f.Fuzz(func(t *testing.T, x float64, prec int) {
		if prec < 0 || prec > 20 {
			return
		}
		_ = Fixed(x, prec)
	})
}
