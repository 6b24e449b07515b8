package llama_test

import (
	"context"
	"errors"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// TestAppendOutputs decodes a draft in one batch with logits at each
// position: output i holds the logits decoding the tokens one by one gives
// after token i; Truncate then drops the rest, and the slot and its cache
// agree.
func TestAppendOutputs(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 256})
	slot, err := llama.NewSlot(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	prompt := tokenize(t, m, samplePrompt)
	draft := prompt[3:8]
	// One by one: the logits after each draft token.
	if _, err := slot.Prefill(ctx, prompt); err != nil {
		t.Fatal(err)
	}
	var want [][]float32
	for _, tok := range draft {
		if err := slot.Append(ctx, tok); err != nil {
			t.Fatal(err)
		}
		l, err := c.Logits(-1)
		if err != nil {
			t.Fatal(err)
		}
		want = append(want, l)
	}
	// In one batch.
	if err := slot.Truncate(len(prompt)); err != nil {
		t.Fatal(err)
	}
	if err := slot.AppendOutputs(ctx, draft); err != nil {
		t.Fatal(err)
	}
	if slot.Len() != len(prompt)+len(draft) || c.SeqPosMax(0) != slot.Len()-1 {
		t.Fatalf("after AppendOutputs: %d tokens, cache up to %d; want %d", slot.Len(), c.SeqPosMax(0), len(prompt)+len(draft))
	}
	for i := range draft {
		got, err := c.Logits(i)
		if err != nil {
			t.Fatal(err)
		}
		if d := maxDiff(got, want[i]); d > 1e-3 {
			t.Errorf("output %d differs from decoding one by one by up to %g", i, d)
		}
	}
	if err := slot.Truncate(len(prompt) + 2); err != nil {
		t.Fatal(err)
	}
	if slot.Len() != len(prompt)+2 || c.SeqPosMax(0) != slot.Len()-1 {
		t.Errorf("after Truncate: %d tokens, cache up to %d; want %d", slot.Len(), c.SeqPosMax(0), len(prompt)+2)
	}
	if err := slot.AppendOutputs(ctx, make([]llama.Token, c.SeqSize())); !errors.Is(err, llama.ErrContextFull) {
		t.Errorf("AppendOutputs past the context = %v, want ErrContextFull", err)
	}
}
