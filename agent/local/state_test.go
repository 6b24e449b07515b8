package local_test

import (
	"bytes"
	"compress/flate"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
	"github.com/loopagent/loop/sampler"
)

// TestStateRestore saves a client's KV state and restores it into a new
// client on the same model: the same request then takes its whole
// prompt from the cache and writes the same reply. A state of another
// key, or one the engine refuses, is refused and leaves the cache empty.
func TestStateRestore(t *testing.T) {
	m := loadModel(t, testmodels.TinyQwen15F32)
	req := local.Request{Messages: userMessages(t, `[{"role": "user", "content": "Say something about Go and its tools."}]`),
		MaxTokens: 8, Sampling: model.Sampling{User: sampler.Overrides{Temperature: ptr(float32(0)), Seed: ptr(uint32(1))}}, ToolChoice: grammar.Choice{Mode: grammar.ChoiceNone}}
	a := client(t, m, "")
	first, err := a.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	st, err := a.SaveState()
	if err != nil || len(st.Tokens) <= first.Usage.PromptTokens || len(st.Data) == 0 {
		t.Fatalf("SaveState: %d tokens, %d bytes (%v); want the prompt's %d and the reply's", len(st.Tokens), len(st.Data), err, first.Usage.PromptTokens)
	}

	b := client(t, m, "")
	if err := b.RestoreState(st); err != nil {
		t.Fatal(err)
	}
	again, err := b.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	if again.Usage.CacheN != again.Usage.PromptTokens-1 || again.Text != first.Text {
		t.Errorf("after RestoreState: cache_n %d of %d, reply %q; want all but the last token cached and %q", again.Usage.CacheN, again.Usage.PromptTokens, again.Text, first.Text)
	}

	other := st
	other.Key.Model = "another"
	broken := st
	broken.Data = st.Data[:len(st.Data)/2]
	for _, tt := range []struct {
		name string
		st   model.KVState
		want string
	}{
		{"another model", other, "another model file"},
		{"another template", model.KVState{Key: model.StateKey{Model: st.Key.Model, Template: "x"}, Tokens: st.Tokens, Data: st.Data}, "another chat template"},
		{"a blob cut in half", broken, "could not restore"},
		{"more tokens than positions", model.KVState{Key: st.Key, Tokens: append(st.Tokens, 5), Data: st.Data}, "the state holds positions"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := client(t, m, "")
			if err := c.RestoreState(tt.st); err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("RestoreState = %v, want an error saying %q", err, tt.want)
			}
			resp, err := c.Complete(context.Background(), req)
			if err != nil || resp.Usage.CacheN != 0 {
				t.Errorf("the request after a refused state: cache_n %d (%v), want 0", resp.Usage.CacheN, err)
			}
		})
	}
}

// BenchmarkStateCompress measures what compressing a KV state would
// save on the bench model, after the prompt of a four-step agent session:
// the state's size, and for each way of writing it the bytes written
// (ratio: raw over written) and the time to write it to a file and sync
// it. "split" writes the high and the low bytes of the F16 cache apart
// before flate, which is how F16 data compresses best.
func BenchmarkStateCompress(b *testing.B) {
	m, err := llama.LoadModel(context.Background(), testmodels.Path(b, testmodels.BenchQwen2Q8), llama.ModelParams{})
	if err != nil {
		b.Fatal(err)
	}
	defer m.Close()
	c, err := local.New(m, local.Options{ContextSize: 8192, Threads: testmodels.BenchThreads()})
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	defs, msgs := stepPrompt(b)
	if _, err := c.Complete(context.Background(), local.Request{Messages: msgs, Tools: defs, MaxTokens: -1}); err != nil {
		b.Fatal(err)
	}
	st, err := c.SaveState()
	if err != nil {
		b.Fatal(err)
	}
	b.Logf("state: %d tokens, %d bytes (%d a token)", len(st.Tokens), len(st.Data), len(st.Data)/len(st.Tokens))
	path := filepath.Join(b.TempDir(), "state")
	for _, w := range []struct {
		name   string
		encode func([]byte) []byte
	}{
		{"raw", func(d []byte) []byte { return d }},
		{"flate1", func(d []byte) []byte { return deflate(d, flate.BestSpeed) }},
		{"flate6", func(d []byte) []byte { return deflate(d, flate.DefaultCompression) }},
		{"split+flate1", func(d []byte) []byte { return deflate(splitBytes(d), flate.BestSpeed) }},
	} {
		b.Run(w.name, func(b *testing.B) {
			var out []byte
			for b.Loop() {
				out = w.encode(st.Data)
				if err := writeSynced(path, out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(st.Data))/float64(len(out)), "ratio")
			b.ReportMetric(float64(len(st.Data))/(1<<20), "MiB")
			b.SetBytes(int64(len(st.Data)))
		})
	}
	b.Run("restore", func(b *testing.B) {
		for b.Loop() {
			if err := c.RestoreState(st); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func deflate(d []byte, level int) []byte {
	var buf bytes.Buffer
	w, _ := flate.NewWriter(&buf, level)
	w.Write(d)
	w.Close()
	return buf.Bytes()
}

// splitBytes puts the even bytes before the odd ones.
func splitBytes(d []byte) []byte {
	out := make([]byte, len(d))
	half := (len(d) + 1) / 2
	for i, c := range d {
		if i%2 == 0 {
			out[i/2] = c
		} else {
			out[half+i/2] = c
		}
	}
	return out
}

func writeSynced(path string, b []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}
