package main

import (
	"context"
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
)

// TestRetry runs one task of each kind of broken first call through the
// real loop: the loop sends it back (a note for a call it could not read,
// the call and its error for wrong arguments), the ideal run follows, and
// the written chat marks the kept broken call "weight": 0 and nothing
// else.
func TestRetry(t *testing.T) {
	base := makeTask(families[0], trainSeed(5, 0), trainShapes, 4096, false) // read
	for _, k := range brokenKinds {
		t.Run(k.name, func(t *testing.T) {
			broken := k.break_(base.Replies[0])
			if broken == "" || broken == base.Replies[0] {
				t.Fatalf("%s does not break %q", k.name, base.Replies[0])
			}
			task := base
			task.Replies = append([]string{broken}, base.Replies...)
			task.Retries = 1
			if k.kept {
				task.Unweighted = []int{0}
			} else {
				task.Dropped = 1
			}
			c, err := transcriptOf(context.Background(), task, 4096)
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(c)
			if err != nil {
				t.Fatal(err)
			}
			var raw struct{ Messages []map[string]any }
			if err := json.Unmarshal(b, &raw); err != nil {
				t.Fatal(err)
			}
			var weights []int
			for j, m := range raw.Messages {
				if w, ok := m["weight"]; ok {
					if w != 0.0 || m["role"] != "assistant" {
						t.Errorf("message %d: weight %v on a %v message", j, w, m["role"])
					}
					weights = append(weights, j)
				}
			}
			if k.kept != (len(weights) == 1) || len(weights) > 1 {
				t.Errorf("weight 0 on messages %v; kept in the history: %v", weights, k.kept)
			}
			msgs, err := chat.ParseMessages(mustRaw(t, raw.Messages))
			if err != nil {
				t.Fatal(err)
			}
			note := msgs[2]
			if k.kept {
				note = msgs[3] // the broken call, then its error as its result
			}
			if !strings.Contains(note.Content, "nothing ran") && !strings.Contains(note.Content, "Invalid arguments") {
				t.Errorf("message after the broken call = %+v, want the loop's note", note)
			}
		})
	}
	// The share decides how many chats open with a broken call.
	g := generator{fams: families, seed: 5, window: 4096, retry: 0.5}
	n := 0
	for i := range 200 {
		if g.trainTask(i).Retries > 0 {
			n++
		}
	}
	if n < 60 || n > 110 { // restraint chats (a fifth) never do
		t.Errorf("%d of 200 chats retry at a share of 0.5", n)
	}
	if withRetry(base, rand.New(rand.NewPCG(1, 1)), 0).Retries != 0 {
		t.Error("a share of 0 made a retry")
	}
}

func mustRaw(t *testing.T, v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
