package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/llama"
)

func TestSourcesDraft(t *testing.T) {
	file := []llama.Token{10, 11, 12, 13, 14, 15, 16, 17}
	other := []llama.Token{12, 13, 90, 91}
	s := newSources([][]llama.Token{file, other})
	tests := []struct {
		name      string
		history   []llama.Token
		max, minN int
		want      []llama.Token
	}{
		{"continues the file", []llama.Token{1, 2, 11, 12, 13}, 8, 2, []llama.Token{14, 15, 16, 17}},
		{"stops at the source's end", []llama.Token{15, 16}, 8, 2, []llama.Token{17}},
		{"the longer match wins", []llama.Token{11, 12, 13}, 3, 2, []llama.Token{14, 15, 16}},
		{"latest among equals", []llama.Token{5, 12, 13}, 2, 2, []llama.Token{90, 91}},
		{"the longer run among equals", []llama.Token{5, 12, 13}, 4, 2, []llama.Token{14, 15, 16, 17}},
		{"too short a match", []llama.Token{5, 12, 13}, 2, 3, nil},
		{"no match", []llama.Token{1, 2, 3}, 4, 2, nil},
		{"never across sources", []llama.Token{16, 17}, 4, 2, nil},
		{"max bounds it", []llama.Token{10, 11}, 2, 2, []llama.Token{12, 13}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, s.draft(tt.history, tt.max, tt.minN)); diff != "" {
				t.Errorf("draft(%v, %d, %d) (-want +got):\n%s", tt.history, tt.max, tt.minN, diff)
			}
		})
	}
}

// TestSourcesDraftRepeats checks a source that repeats itself: every
// place matches the history equally, and the draft comes from one that
// runs as far as max allows, not from the last, which runs into the
// source's end.
func TestSourcesDraftRepeats(t *testing.T) {
	var rep []llama.Token
	for range 20 {
		rep = append(rep, 7, 8)
	}
	s := newSources([][]llama.Token{append(rep, 9)})
	got := s.draft([]llama.Token{7, 8, 7, 8}, 6, 2)
	if diff := cmp.Diff([]llama.Token{7, 8, 7, 8, 7, 8}, got); diff != "" {
		t.Errorf("draft (-want +got):\n%s", diff)
	}
}
