package termtext

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestStrip(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"plain text", "hello, world", "hello, world"},
		{"newline and tab kept", "a\tb\nc\n", "a\tb\nc\n"},
		{"unicode kept", "→ ✓ é 日本 \u200d", "→ ✓ é 日本 \u200d"},
		{"window title by OSC and BEL", "\x1b]0;pwned\x07README", "README"},
		{"window title by OSC and ST", "\x1b]2;pwned\x1b\\README", "README"},
		{"hyperlink", "\x1b]8;;http://evil\x1b\\click\x1b]8;;\x1b\\", "click"},
		{"clear screen", "\x1b[2J\x1b[H# Title", "# Title"},
		{"fake red verdict", "\x1b[1;31mall tests passed\x1b[0m", "all tests passed"},
		{"private CSI", "\x1b[?1049hx\x1b[?25l", "x"},
		{"CSI with intermediate", "a\x1b[1 qb", "ab"},
		{"two-character escapes", "\x1bcreset\x1b7saved\x1b8", "resetsaved"},
		{"charset designation", "\x1b(Bascii\x1b)0", "ascii"},
		{"DCS", "\x1bPq#0;2;0;0;0\x1b\\after", "after"},
		{"APC PM SOS", "\x1b_apc\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\ok", "ok"},
		{"8-bit CSI", "\u009b31mred", "red"},
		{"8-bit OSC ended by 8-bit ST", "\u009d0;title\u009cafter", "after"},
		{"8-bit DCS", "\u0090data\u009cafter", "after"},
		{"other C1 dropped", "a\u0085b\u008ec", "abc"},
		{"carriage return and backspace", "real\rfake\b\bok", "realfakeok"},
		{"bell, NUL, DEL", "a\x07b\x00c\x7fd", "abcd"},
		{"bidi overrides", "access\u202e\u2066level\u2069\u202c", "accesslevel"},
		{"invalid UTF-8", "a\xffb\xc2", "a\ufffdb\ufffd"},
		{"raw C1 byte is invalid UTF-8", "a\x9b31mb", "a\ufffd31mb"},
		{"unterminated OSC ends at a newline", "\x1b]0;title\nnext line", "\nnext line"},
		{"CSI cut by a newline", "\x1b[31\nnext", "\nnext"},
		{"CSI ended by a character that cannot continue it", "\x1b[3é", "é"},
		{"ESC before a letter is one sequence", "\x1bAB", "B"},
		{"ESC at the end", "text\x1b", "text"},
		{"ESC ESC", "\x1b\x1b[31mx", "x"},
		{"ESC inside a control string starts a new sequence", "\x1b]0;t\x1b[31mx", "x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Strip(tt.in); got != tt.want {
				t.Errorf("Strip(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

// TestStripperCutAnywhere checks that a sequence or a character cut
// between pieces is stripped as if it came whole.
func TestStripperCutAnywhere(t *testing.T) {
	tests := []struct {
		name   string
		pieces []string
		want   string
	}{
		{"ESC alone in a piece", []string{"a", "\x1b", "[31mred"}, "ared"},
		{"CSI cut in its parameters", []string{"a\x1b[3", "1", "mred"}, "ared"},
		{"OSC cut in its text", []string{"\x1b]0;ti", "tle\x07", "after"}, "after"},
		{"ST cut between ESC and backslash", []string{"\x1b]0;t\x1b", "\\after"}, "after"},
		{"8-bit CSI cut between its bytes", []string{"a\xc2", "\x9b31mb"}, "ab"},
		{"arrow cut in three", []string{"\xe2", "\x86", "\x92 x"}, "→ x"},
		{"cut character never completed", []string{"a\xe2\x86"}, "a\ufffd\ufffd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s Stripper
			var got strings.Builder
			for _, p := range tt.pieces {
				got.WriteString(s.Next(p))
			}
			got.WriteString(s.Flush())
			if got.String() != tt.want {
				t.Errorf("Next(%q...)+Flush() = %q, want %q", tt.pieces, got.String(), tt.want)
			}
			if whole := Strip(strings.Join(tt.pieces, "")); whole != tt.want {
				t.Errorf("Strip(%q) = %q, want %q", strings.Join(tt.pieces, ""), whole, tt.want)
			}
		})
	}
}

// FuzzStrip checks that nothing a terminal obeys comes out, whatever the
// input and wherever it is cut, and that cutting changes nothing.
func FuzzStrip(f *testing.F) {
	for _, seed := range []string{
		"", "plain", "\x1b]0;pwned\x07\x1b[2J\x1b[31mall tests passed\x1b[0m",
		"\u009b31m\u009d0;t\u009c", "\xc2\x9b", "\x1bP\x1b\\", "a\u202eb", "\xe2\x86\x92", "\r\n\t\x00\x7f",
	} {
		f.Add(seed, []byte{1, 3, 2})
	}
	f.Fuzz(func(t *testing.T, in string, cuts []byte) {
		whole := Strip(in)
		if bad := unsafeRune(whole); bad >= 0 {
			t.Fatalf("Strip(%q) = %q, holds %U", in, whole, bad)
		}
		if Strip(whole) != whole {
			t.Fatalf("Strip(Strip(%q)) = %q, want %q", in, Strip(whole), whole)
		}
		var s Stripper
		var got strings.Builder
		rest := in
		for _, c := range cuts {
			n := min(int(c)%8, len(rest))
			out := s.Next(rest[:n])
			if bad := unsafeRune(out); bad >= 0 {
				t.Fatalf("Next(%q) = %q, holds %U", rest[:n], out, bad)
			}
			got.WriteString(out)
			rest = rest[n:]
		}
		got.WriteString(s.Next(rest) + s.Flush())
		if got.String() != whole {
			t.Fatalf("%q cut by %v = %q, whole %q", in, cuts, got.String(), whole)
		}
	})
}

// unsafeRune returns the first character of s a terminal may obey, or
// utf8.RuneError for invalid UTF-8, or -1.
func unsafeRune(s string) rune {
	if !utf8.ValidString(s) {
		return utf8.RuneError
	}
	for _, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r >= 0x7F && r <= 0x9F || bidi(r) {
			return r
		}
	}
	return -1
}
