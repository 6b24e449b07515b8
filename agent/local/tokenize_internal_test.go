package local

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// TestIncrementalTokenize: the incremental tokenizer gives exactly the
// tokens of a whole tokenization, for prompts that grow step by step, a
// prompt whose history was rewritten (a compaction), and a BOS that the
// template writes, on the three vocabularies.
func TestIncrementalTokenize(t *testing.T) {
	for _, name := range []string{testmodels.TinyQwen15F32, testmodels.TinyQwen3F16, testmodels.TinyLlama3Q8} {
		t.Run(name, func(t *testing.T) {
			m, err := llama.LoadModel(context.Background(), testmodels.Path(t, name), llama.ModelParams{VocabOnly: true})
			if err != nil {
				t.Fatal(err)
			}
			defer m.Close()
			src, ok := m.ChatTemplate("")
			if !ok {
				t.Fatal("no template")
			}
			bos, _ := m.TokenPiece(max(m.BOS(), 0), true)
			eos, _ := m.TokenPiece(max(m.EOS(), 0), true)
			tmpl, err := chat.NewTemplate(src, bos, eos)
			if err != nil {
				t.Fatal(err)
			}
			c := &Client{model: m}
			msgs := []chat.Message{{Role: "system", Content: "You are loop."}, {Role: "user", Content: "Fix calc.go, héllo wörld 日本語."}}
			incremental := 0
			for step := range 12 {
				if step == 8 { // a compaction rewrites the history after the system prompt
					msgs = append(msgs[:1], chat.Message{Role: "user", Content: "<summary>\nearlier work\n</summary>"})
				}
				msgs = append(msgs, chat.Message{Role: "assistant", Content: fmt.Sprintf("Step %d: I will look at  the file…  ", step)},
					chat.Message{Role: "user", Content: strings.Repeat(fmt.Sprintf("line %d\tof output 🙂\n", step), step+1)})
				p, err := Prompt(tmpl, "hermes", Request{Messages: msgs})
				if err != nil {
					t.Fatal(err)
				}
				hadLast := c.last.tokens != nil
				got, err := c.tokenize(p.Text)
				if err != nil {
					t.Fatal(err)
				}
				want, err := Tokenize(m, p.Text)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("step %d: incremental tokens differ from a whole tokenization (%d against %d)", step, len(got), len(want))
				}
				if hadLast && c.last.ends != nil {
					incremental++
				}
			}
			if incremental < 10 {
				t.Errorf("only %d of 11 prompts were tokenized incrementally", incremental)
			}
			// A prompt that continues a word: BPE merges across the old
			// end, so the split must come at a special token.
			for _, text := range []string{"<|im_start|>user\nhel", "<|im_start|>user\nhello world"} {
				got, err := c.tokenize(text)
				if err != nil {
					t.Fatal(err)
				}
				if want, _ := Tokenize(m, text); !slices.Equal(got, want) {
					t.Errorf("%q: incremental %v, whole %v", text, got, want)
				}
			}
		})
	}
}
