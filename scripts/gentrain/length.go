package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/loopagent/loop/agent/chat"
)

// charsPerToken is the size of a Qwen token in these chats: the 200 chats
// of --seed 1, rendered with the Qwen 2.5 template, are 3.95 characters a
// token with the Qwen vocabulary (`loop tokenize` on the Qwen3-vocabulary
// test model). The length report counts tokens as characters / 4.
const charsPerToken = 4

// renderer measures a chat: the length of its prompt as a chat template
// renders it, or, without a template, of its JSON line.
type renderer struct {
	tmpl *chat.Template
	path string
}

// newRenderer compiles the template at path ("" for none).
func newRenderer(path string) (*renderer, error) {
	if path == "" {
		return &renderer{}, nil
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	t, err := chat.NewTemplate(string(src), "", "<|im_end|>")
	if err != nil {
		return nil, err
	}
	return &renderer{tmpl: t, path: path}, nil
}

// render is the chat's text as the template renders it for training: the
// whole conversation, no generation prompt.
func (r *renderer) render(c Chat) (string, error) {
	tools, err := chat.ParseTools(c.Tools)
	if err != nil {
		return "", err
	}
	return r.tmpl.Render(chat.RenderInput{Messages: c.Messages, Tools: tools})
}

// length is the chat's length in characters.
func (r *renderer) length(c Chat) (int, error) {
	if r.tmpl == nil {
		b, err := json.Marshal(c)
		return len(b), err
	}
	s, err := r.render(c)
	return len(s), err
}

func (r *renderer) what() string {
	if r.tmpl == nil {
		return "characters of the JSON line"
	}
	return "characters as " + r.path + " renders them"
}

// chatLength is one chat's family and length.
type chatLength struct {
	family string
	chars  int
}

// report prints the length distribution, overall and per family, with
// tokens estimated as characters / 3.
func report(w io.Writer, lengths []chatLength, what string) {
	fmt.Fprintf(w, "length in %s (tokens ~ chars/%d):\n", what, charsPerToken)
	byFamily := map[string][]int{}
	var all []int
	for _, l := range lengths {
		byFamily[l.family] = append(byFamily[l.family], l.chars)
		all = append(all, l.chars)
	}
	names := []string{"all"}
	for _, f := range familyNames(append(families[:len(families):len(families)], drills...)) {
		if len(byFamily[f]) > 0 {
			names = append(names, f)
		}
	}
	byFamily["all"] = all
	fmt.Fprintf(w, "%-10s %5s %6s %6s %6s %6s %8s\n", "family", "n", "min", "p50", "p90", "max", "<=1024t")
	for _, name := range names {
		xs := slices.Sorted(slices.Values(byFamily[name]))
		if len(xs) == 0 {
			continue
		}
		under := 0
		for _, x := range xs {
			if x <= 1024*charsPerToken {
				under++
			}
		}
		q := func(p float64) int { return xs[int(p*float64(len(xs)-1))] }
		fmt.Fprintf(w, "%-10s %5d %6d %6d %6d %6d %7.0f%%\n", name, len(xs), xs[0], q(0.5), q(0.9), xs[len(xs)-1], 100*float64(under)/float64(len(xs)))
	}
}
