package tools

import (
	"fmt"
	"strings"
	"testing"
)

// seedLog is the 43-line build log of seed 002 Example 3.
func seedLog() string {
	var b strings.Builder
	b.WriteString("[INFO] Building app 1.0\n")
	for i := 1; i <= 40; i++ {
		fmt.Fprintf(&b, "[INFO] Compiling Source%d.java\n", i)
	}
	b.WriteString("[ERROR] OrderServiceTest.java:[31,9] cannot find symbol\n")
	b.WriteString("[INFO] BUILD FAILURE")
	return b.String()
}

// TestTruncateHeadTailSeed reproduces the "lines 2+2" policy of seed 002
// Example 3 as the seed prints it.
func TestTruncateHeadTailSeed(t *testing.T) {
	log := seedLog()
	if len(log) != 1331 {
		t.Fatalf("the seed's log has 1331 chars, this one %d", len(log))
	}
	got := TruncateHeadTail(log, 2, 2, 0)
	want := "[INFO] Building app 1.0\n" +
		"[INFO] Compiling Source1.java\n" +
		"[39 lines cut]\n" +
		"[ERROR] OrderServiceTest.java:[31,9] cannot find symbol\n" +
		"[INFO] BUILD FAILURE"
	if got != want {
		t.Errorf("TruncateHeadTail(log, 2, 2, 0) =\n%s\nwant\n%s", got, want)
	}
	if len(got) != 145 {
		t.Errorf("len = %d, the seed prints 145", len(got))
	}
}

func TestTruncateHeadTail(t *testing.T) {
	lines := func(n int) string {
		var l []string
		for i := 1; i <= n; i++ {
			l = append(l, fmt.Sprintf("line %d", i))
		}
		return strings.Join(l, "\n")
	}
	tests := []struct {
		name            string
		text            string
		head, tail, max int
		want            string
	}{
		{name: "empty", text: "", head: 1, tail: 1, want: ""},
		{name: "fits", text: lines(4), head: 2, tail: 2, want: lines(4)},
		{name: "fits with final newline", text: lines(4) + "\n", head: 2, tail: 2, want: lines(4) + "\n"},
		{name: "one line cut", text: lines(5), head: 2, tail: 2, want: "line 1\nline 2\n[1 line cut]\nline 4\nline 5"},
		{name: "tail only", text: lines(5), head: 0, tail: 2, want: "[3 lines cut]\nline 4\nline 5"},
		{name: "head only", text: lines(5), head: 1, tail: 0, want: "line 1\n[4 lines cut]"},
		// 10 lines of 6 or 7 bytes: a budget of 30 gives the head 10 bytes
		// (one line) and the tail the other 23 (three lines).
		{name: "char budget", text: lines(10), head: 5, tail: 5, max: 30, want: "line 1\n[6 lines cut]\nline 8\nline 9\nline 10"},
		{name: "long single line", text: strings.Repeat("x", 50), head: 5, tail: 5, max: 20, want: strings.Repeat("x", 19) + " [31 chars cut]"},
		{name: "long last line", text: "ok\n" + strings.Repeat("é", 20), head: 1, tail: 1, max: 12,
			want: "ok\n" + strings.Repeat("é", 4) + " [16 chars cut]"},
		{name: "fits the budget", text: lines(3), head: 5, tail: 5, max: 100, want: lines(3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := TruncateHeadTail(tt.text, tt.head, tt.tail, tt.max); got != tt.want {
				t.Errorf("TruncateHeadTail(%q, %d, %d, %d) = %q, want %q", tt.text, tt.head, tt.tail, tt.max, got, tt.want)
			}
		})
	}
}

func TestCaptureKeepsEndsAndCountsLines(t *testing.T) {
	c := newCapture(100)
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(c, "line %d\n", i)
	}
	if c.lines() != 1000 {
		t.Fatalf("lines() = %d, want 1000", c.lines())
	}
	if len(c.head)+len(c.tail) > 300 {
		t.Errorf("kept %d bytes, want at most 3*limit", len(c.head)+len(c.tail))
	}
	got := c.Text(2, 2, 0)
	want := "line 1\nline 2\n[996 lines cut]\nline 999\nline 1000"
	if got != want {
		t.Errorf("Text(2, 2, 0) = %q, want %q", got, want)
	}
}

func TestCaptureSmallIsExact(t *testing.T) {
	c := newCapture(100)
	c.Write([]byte("a\nb\nc"))
	if got := c.Text(5, 5, 0); got != "a\nb\nc" {
		t.Errorf("Text = %q, want %q", got, "a\nb\nc")
	}
	if c.lines() != 3 {
		t.Errorf("lines() = %d, want 3", c.lines())
	}
}
