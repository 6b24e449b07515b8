package engine

import (
	"strings"
	"testing"
)

// feed streams pieces through a textOut and returns what it emitted, the
// stop string found and the final text.
func feed(stops []string, pieces ...string) (emitted []string, stop, text string) {
	o := newTextOut(stops, func(s string) { emitted = append(emitted, s) })
	for _, p := range pieces {
		if stop = o.add(p); stop != "" {
			break
		}
	}
	return emitted, stop, o.finish()
}

func TestTextOut(t *testing.T) {
	tests := []struct {
		name      string
		stops     []string
		pieces    []string
		firstEmit string // what the stream must show after the first pieces
		stop      string
		text      string
	}{
		// A lone invalid byte used to hold back everything after it (about
		// 900 tokens in the review); it streams as it is.
		{"invalid byte", nil, []string{"a\xffb", "cde"}, "a\xffb", "", "a\xffbcde"},
		// A character split over two tokens waits for its second byte.
		{"split character", nil, []string{"caf\xc3", "\xa9!"}, "caf", "", "café!"},
		// The stop string that starts first wins, whichever is listed first.
		{"earliest stop", []string{"END", "x"}, []string{"ab", "xyEND"}, "ab", "x", "ab"},
		{"stop over pieces", []string{"</s>"}, []string{"hi <", "/", "s> more"}, "hi ", "</s>", "hi "},
		{"empty stop ignored", []string{""}, []string{"abc"}, "abc", "", "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			emitted, stop, text := feed(tt.stops, tt.pieces...)
			if len(emitted) == 0 || emitted[0] != tt.firstEmit {
				t.Errorf("first emitted = %q, want %q", emitted, tt.firstEmit)
			}
			if stop != tt.stop || text != tt.text || strings.Join(emitted, "") != text {
				t.Errorf("stop %q, text %q, emitted %q; want %q, %q", stop, text, emitted, tt.stop, tt.text)
			}
		})
	}
}

// BenchmarkTextOutLong streams a long reply with stop strings: the search
// covers only the text a new stop could span, so the cost per piece stays
// flat.
func BenchmarkTextOutLong(b *testing.B) {
	for b.Loop() {
		o := newTextOut([]string{"<|im_end|>", "</tool_call>"}, func(string) {})
		for range 20000 {
			o.add(" word")
		}
	}
}
