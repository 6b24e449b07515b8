package window

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/loopagent/loop/internal/golden"
)

func TestTruncate(t *testing.T) {
	tests := []struct {
		name string
		f    func() string
		want string
	}{
		{"head short", func() string { return TruncateHead("abc", 3) }, "abc"},
		{"head", func() string { return TruncateHead("abcdef", 2) }, "ab\n[4 chars cut]"},
		{"tail", func() string { return TruncateTail("abcdef", 2) }, "[4 chars cut]\nef"},
		{"head+tail odd", func() string { return TruncateHeadTail("abcdefg", 3) }, "a\n[5 chars cut]\ng"},
		{"head+tail runes", func() string { return TruncateHeadTail("ééééé", 2) }, "é\n[3 chars cut]\né"},
		{"lines 1+1", func() string { return TruncateLines("a\nb\nc\nd\n", 4) }, "a\n[2 lines cut]\nd\n"},
		{"lines fit", func() string { return TruncateLines("a\nb\n", 4) }, "a\nb\n"},
		{"lines budget", func() string { return TruncateLines("one\ntwo\nthree\nfour\nfive", 10) }, "one\n[3 lines cut]\nfive"},
		{"lines long first", func() string { return TruncateLines("0123456789abcdef\nx", 6) }, "012\n[12 chars cut]\nf\nx"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.f(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestCapsApply(t *testing.T) {
	log := buildLog()
	tests := []struct {
		name    string
		caps    Caps
		tool    string
		failed  bool
		wantLen int    // exact length in characters, or 0
		want    string // substring, or ""
		notWant string // substring, or ""
	}{
		{name: "no cap", caps: Caps{}, tool: "shell", wantLen: len(log)},
		{name: "under cap", caps: Caps{Chars: 5000}, tool: "shell", wantLen: len(log)},
		{name: "command keeps both ends by lines", caps: Caps{Chars: 160}, tool: "shell", want: "BUILD FAILURE", notWant: "Source20"},
		{name: "read keeps the head", caps: Caps{Chars: 160}, tool: "read_file", want: "Building app", notWant: "BUILD FAILURE"},
		{name: "policy by tool", caps: Caps{Chars: 160, Policies: map[string]Policy{"read_file": Tail}}, tool: "read_file", want: "BUILD FAILURE", notWant: "Building app"},
		{name: "within head", caps: Caps{Chars: 160, Within: true, Policies: map[string]Policy{"x": Head}}, tool: "x", wantLen: 160},
		{name: "within tail", caps: Caps{Chars: 160, Within: true, Policies: map[string]Policy{"x": Tail}}, tool: "x", wantLen: 160},
		{name: "within head+tail", caps: Caps{Chars: 161, Within: true, Policies: map[string]Policy{"x": HeadTail}}, tool: "x", wantLen: 161},
		{name: "failed keeps the error", caps: Caps{Chars: 200}, tool: "shell", failed: true, want: "cannot find symbol"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := tt.caps.Apply(tt.tool, log, tt.failed)
			if n := utf8.RuneCountInString(got); tt.wantLen > 0 && n != tt.wantLen {
				t.Errorf("Apply = %d chars, want %d:\n%s", n, tt.wantLen, got)
			}
			if tt.want != "" && !strings.Contains(got, tt.want) {
				t.Errorf("Apply lost %q:\n%s", tt.want, got)
			}
			if tt.notWant != "" && strings.Contains(got, tt.notWant) {
				t.Errorf("Apply kept %q:\n%s", tt.notWant, got)
			}
		})
	}
}

// goTestFailure is the output of a failing `go test` with 60 passing
// tests around one failure, and a compile error's output.
func goTestFailure() string {
	var sb strings.Builder
	sb.WriteString("=== RUN   TestA0\n")
	for i := range 30 {
		fmt.Fprintf(&sb, "--- PASS: TestA%d (0.00s)\n", i)
	}
	sb.WriteString("=== RUN   TestTotal\n    order_test.go:42: Total() = 1999, want 2000\n--- FAIL: TestTotal (0.00s)\n")
	for i := range 30 {
		fmt.Fprintf(&sb, "--- PASS: TestB%d (0.00s)\n", i)
	}
	sb.WriteString("FAIL\nexit status 1\nFAIL\texample.com/shop/order\t0.012s\n")
	return sb.String()
}

func TestErrorFilter(t *testing.T) {
	tests := []struct {
		name string
		in   string
		f    ErrorFilter
	}{
		{"go test", goTestFailure(), ErrorFilter{}},
		{"maven", buildLog(), ErrorFilter{}},
		{"no context", goTestFailure(), ErrorFilter{Context: -1, Tail: 1}},
	}
	var sb strings.Builder
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, found := tt.f.Apply(tt.in)
			if !found {
				t.Fatalf("Apply found no error line in:\n%s", tt.in)
			}
			fmt.Fprintf(&sb, "== %s: %d -> %d chars\n%s\n", tt.name, len(tt.in), len(got), got)
		})
	}
	golden.Check(t, "cut.txt", sb.String())
	if got, found := (ErrorFilter{}).Apply("ok\nall good\n"); found || got != "ok\nall good\n" {
		t.Errorf("Apply(clean output) = %q, %t; want it whole, false", got, found)
	}
}

func FuzzTruncate(f *testing.F) {
	f.Add(buildLog(), 160, uint8(0), false)
	f.Add(goTestFailure(), 300, uint8(1), true)
	f.Add("ééé\nx", 2, uint8(2), false)
	f.Add("a\n\n\nb\n", 1, uint8(3), true)
	f.Fuzz(func(t *testing.T, s string, max int, policy uint8, within bool) {
		if !utf8.ValidString(s) || max <= 0 || max > 1<<16 {
			return
		}
		p := Policy(policy % 4)
		caps := Caps{Chars: max, Policies: map[string]Policy{"x": p}, Within: within}
		got := caps.Apply("x", s, policy&4 != 0)
		n := utf8.RuneCountInString(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Apply(%q, %d) = %q: invalid UTF-8", s, max, got)
		}
		if n <= max && got != s {
			t.Fatalf("Apply(%q, %d) = %q: changed a text within the cap", s, max, got)
		}
		if n > max && within && utf8.RuneCountInString(got) > max {
			t.Fatalf("Apply(%q, %d, within) = %q: over the cap", s, max, got)
		}
		if n > max && !within && utf8.RuneCountInString(got) > max+40 {
			t.Fatalf("Apply(%q, %d) = %q: more than the cap and a marker", s, max, got)
		}
	})
}
