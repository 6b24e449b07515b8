package llama_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// loadTrainable opens the training base with its weights in memory (the
// optimizer writes them in place) and closes it when the test ends.
func loadTrainable(t testing.TB, path string) *llama.Model {
	t.Helper()
	m, err := llama.LoadModel(context.Background(), path, llama.ModelParams{NoMmap: true})
	if err != nil {
		t.Fatalf("LoadModel(%s): %v", path, err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

func newTrainer(t testing.TB, m *llama.Model, p llama.TrainParams) *llama.Trainer {
	t.Helper()
	if p.Threads == 0 {
		p.Threads = 2
	}
	tr, err := llama.NewTrainer(m, p)
	if err != nil {
		t.Fatalf("NewTrainer: %v", err)
	}
	t.Cleanup(func() { tr.Close() })
	return tr
}

// trainText is a chat as the Qwen 2.5 template renders it.
const trainText = `<|im_start|>system
You are a coding agent.<|im_end|>
<|im_start|>user
List the Go files.<|im_end|>
<|im_start|>assistant
<tool_call>
{"name": "ls", "arguments": {"path": "."}}
</tool_call><|im_end|>
<|im_start|>user
<tool_response>
main.go
train.go
</tool_response><|im_end|>
<|im_start|>assistant
There are two Go files: main.go and train.go.<|im_end|>
`

// trainWindows tokenizes trainText and packs it into windows of n.
func trainWindows(t testing.TB, m *llama.Model, n int) [][]llama.Token {
	t.Helper()
	toks, err := m.Tokenize(trainText, false, true)
	if err != nil {
		t.Fatal(err)
	}
	ws, err := llama.PackWindows([][]llama.Token{toks}, n, m.BOS())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// TestTrainLowersLoss trains 20 steps on one window of a chat and checks
// that the window's loss falls well below where it started, near ln(n_vocab)
// for the random model.
func TestTrainLowersLoss(t *testing.T) {
	m := loadTrainable(t, testmodels.Path(t, testmodels.TrainQwen25F32))
	tr := newTrainer(t, m, llama.TrainParams{ContextSize: 256, LearningRate: 1e-3})
	ctx := context.Background()
	w := trainWindows(t, m, tr.ContextSize())[0]
	before, err := tr.Eval(ctx, w)
	if err != nil {
		t.Fatalf("Eval: %v", err)
	}
	if want := math.Log(float64(m.VocabSize())); math.Abs(before-want) > 1 {
		t.Errorf("loss of the random model = %.3f, want about ln(%d) = %.3f", before, m.VocabSize(), want)
	}
	for i := range 20 {
		if _, err := tr.Train(ctx, w); err != nil {
			t.Fatalf("Train step %d: %v", i, err)
		}
	}
	after, err := tr.Eval(ctx, w)
	if err != nil {
		t.Fatalf("Eval: %v", err)
	}
	if after > before-1 {
		t.Errorf("loss after 20 steps = %.3f, want at least 1 below %.3f", after, before)
	}
	t.Logf("loss %.3f -> %.3f", before, after)
}

// logits returns the logits after prompt with a fresh inference context.
func promptLogits(t *testing.T, m *llama.Model, prompt []llama.Token) []float32 {
	t.Helper()
	c := newContext(t, m, llama.ContextParams{ContextSize: 256})
	if _, err := c.DecodeTokens(context.Background(), 0, 0, prompt, true); err != nil {
		t.Fatalf("DecodeTokens: %v", err)
	}
	l, err := c.Logits(-1)
	if err != nil {
		t.Fatal(err)
	}
	return l
}

// TestTrainSaveLoad trains a few steps, then checks that the saved file
// loads with the base's metadata and gives the logits of the weights in
// memory, which differ from the base's, and that it generates.
func TestTrainSaveLoad(t *testing.T) {
	base := testmodels.Path(t, testmodels.TrainQwen25F32)
	m := loadTrainable(t, base)
	prompt := trainWindows(t, m, 256)[0][:20]
	before := promptLogits(t, m, prompt)
	tr := newTrainer(t, m, llama.TrainParams{ContextSize: 256, LearningRate: 1e-3})
	ws := trainWindows(t, m, tr.ContextSize())
	if _, err := tr.Epoch(context.Background(), ws, nil, nil); err != nil {
		t.Fatalf("Epoch: %v", err)
	}
	tr.Close()
	trained := promptLogits(t, m, prompt)
	if cmp.Equal(before, trained) {
		t.Fatalf("training did not change the logits")
	}
	out := filepath.Join(t.TempDir(), "out.gguf")
	if err := m.SaveFile(context.Background(), out); err != nil {
		t.Fatalf("SaveFile: %v", err)
	}
	saved, err := llama.LoadModel(context.Background(), out, llama.ModelParams{}) // mapped, as for inference
	if err != nil {
		t.Fatalf("LoadModel(saved): %v", err)
	}
	defer saved.Close()
	if got := promptLogits(t, saved, prompt); !cmp.Equal(got, trained) {
		t.Errorf("logits of the saved model differ from the trained weights': %v... vs %v...", got[:4], trained[:4])
	}
	info, err := saved.Info()
	if err != nil {
		t.Fatal(err)
	}
	if info.TrainContext != 4096 {
		t.Errorf("saved context length = %d, want the base's 4096 (not the training window's 256)", info.TrainContext)
	}
	if tmpl, ok := saved.ChatTemplate(""); !ok || !strings.Contains(tmpl, "<tool_call>") {
		t.Errorf("saved model lost the Qwen 2.5 chat template")
	}
	c := newContext(t, saved, llama.ContextParams{ContextSize: 256})
	if _, err := c.DecodeTokens(context.Background(), 0, 0, prompt, true); err != nil {
		t.Fatalf("DecodeTokens: %v", err)
	}
	for i := range 5 {
		l, err := c.Logits(-1)
		if err != nil {
			t.Fatal(err)
		}
		next := argmax(l)
		if _, err := c.DecodeTokens(context.Background(), 0, len(prompt)+i, []llama.Token{next}, true); err != nil {
			t.Fatalf("generate token %d: %v", i, err)
		}
	}
}

func argmax(l []float32) llama.Token {
	best := 0
	for i, v := range l {
		if v > l[best] {
			best = i
		}
	}
	return llama.Token(best)
}

// TestTrainBadInput checks that what llama.cpp would abort on or read out
// of bounds is refused with a typed error.
func TestTrainBadInput(t *testing.T) {
	ctx := context.Background()
	base := testmodels.Path(t, testmodels.TrainQwen25F32)
	m := loadTrainable(t, base)
	tr := newTrainer(t, m, llama.TrainParams{ContextSize: 256, LearningRate: 1e-3})
	good := trainWindows(t, m, 256)[0]
	with := func(i int, tok llama.Token) []llama.Token {
		w := append([]llama.Token(nil), good...)
		w[i] = tok
		return w
	}
	windows := []struct {
		name   string
		window []llama.Token
	}{
		{"empty window", nil},
		{"short window", good[:256]},
		{"long window", append(good, 1)},
		{"negative label", with(256, -1)},
		{"label beyond the vocabulary", with(256, llama.Token(m.VocabSize()))},
		{"negative token", with(0, -5)},
	}
	for _, tt := range windows {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tr.Train(ctx, tt.window)
			var e *llama.Error
			if !errors.Is(err, llama.ErrInvalidArgument) || !errors.As(err, &e) {
				t.Errorf("Train(%s) = %v, want an *Error wrapping ErrInvalidArgument", tt.name, err)
			}
		})
	}
	params := []struct {
		name string
		p    llama.TrainParams
	}{
		{"negative learning rate", llama.TrainParams{LearningRate: -1}},
		{"NaN learning rate", llama.TrainParams{LearningRate: math.NaN()}},
		{"weight decay above 1", llama.TrainParams{WeightDecay: 2}},
		{"ubatch not dividing the context", llama.TrainParams{ContextSize: 64, UBatchSize: 48}},
		{"context of one token", llama.TrainParams{ContextSize: 1}},
		{"context not a multiple of 256 (llama.cpp would pad it)", llama.TrainParams{ContextSize: 300}},
	}
	for _, tt := range params {
		t.Run(tt.name, func(t *testing.T) {
			if tr, err := llama.NewTrainer(m, tt.p); !errors.Is(err, llama.ErrInvalidArgument) {
				if tr != nil {
					tr.Close()
				}
				t.Errorf("NewTrainer(%+v) = %v, want ErrInvalidArgument", tt.p, err)
			}
		})
	}
	t.Run("mapped weights", func(t *testing.T) {
		mapped := load(t, testmodels.TrainQwen25F32)
		if _, err := llama.NewTrainer(mapped, llama.TrainParams{}); !errors.Is(err, llama.ErrInvalidArgument) {
			t.Errorf("NewTrainer(mmap) = %v, want ErrInvalidArgument", err)
		}
	})
	for _, name := range []string{testmodels.TinyQwen3F16, testmodels.TinyLlama3Q8} {
		t.Run("head of "+name, func(t *testing.T) {
			q := loadTrainable(t, testmodels.Path(t, name))
			_, err := llama.NewTrainer(q, llama.TrainParams{})
			if !errors.Is(err, llama.ErrInvalidArgument) || !strings.Contains(err.Error(), "output.weight") {
				t.Errorf("NewTrainer(%s) = %v, want ErrInvalidArgument naming output.weight", name, err)
			}
		})
	}
	t.Run("save a vocab-only model", func(t *testing.T) {
		v, err := llama.LoadModel(ctx, base, llama.ModelParams{VocabOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		out := filepath.Join(t.TempDir(), "v.gguf")
		if err := v.SaveFile(ctx, out); !errors.Is(err, llama.ErrInvalidArgument) {
			t.Errorf("SaveFile(vocab-only) = %v, want ErrInvalidArgument", err)
		}
		if entries, _ := os.ReadDir(filepath.Dir(out)); len(entries) != 0 {
			t.Errorf("SaveFile(vocab-only) left %d files", len(entries))
		}
	})
	t.Run("closed", func(t *testing.T) {
		tr := newTrainer(t, m, llama.TrainParams{ContextSize: 256})
		tr.Close()
		tr.Close()
		if _, err := tr.Train(ctx, good); !errors.Is(err, llama.ErrClosed) {
			t.Errorf("Train after Close = %v, want ErrClosed", err)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		st, err := tr.Epoch(cctx, [][]llama.Token{good, good}, nil, nil)
		if !errors.Is(err, context.Canceled) || st.TrainWindows != 0 {
			t.Errorf("Epoch(cancelled) = %+v, %v; want no window and context.Canceled", st, err)
		}
	})
}

// TestTrainBeyondTrainedContext trains with windows longer than the base's
// 4096-token context: NewTrainer sets the model's training length to the
// window, which llama_opt_epoch iterates over.
func TestTrainBeyondTrainedContext(t *testing.T) {
	m := loadTrainable(t, testmodels.Path(t, testmodels.TrainQwen25F32))
	tr := newTrainer(t, m, llama.TrainParams{ContextSize: 4608, UBatchSize: 512})
	w := make([]llama.Token, 4609)
	for i := range w {
		w[i] = llama.Token(i % 300)
	}
	if _, err := tr.Train(context.Background(), w); err != nil {
		t.Fatalf("Train(1536-token window) = %v", err)
	}
}

func TestPackWindows(t *testing.T) {
	tok := func(ns ...int) []llama.Token {
		out := make([]llama.Token, len(ns))
		for i, n := range ns {
			out[i] = llama.Token(n)
		}
		return out
	}
	docs := [][]llama.Token{tok(1, 2, 3), tok(4, 5), tok(6, 7, 8, 9)}
	tests := []struct {
		name string
		n    int
		sep  llama.Token
		want [][]llama.Token
	}{
		{"windows start at documents", 4, -1, [][]llama.Token{tok(1, 2, 3, 4, 5), tok(6, 7, 8, 9, 1)}},
		{"separator", 5, 0, [][]llama.Token{tok(1, 2, 3, 0, 4, 5), tok(4, 5, 0, 6, 7, 8), tok(6, 7, 8, 9, 0, 1)}},
		{"wraps around", 9, -1, [][]llama.Token{tok(1, 2, 3, 4, 5, 6, 7, 8, 9, 1)}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := llama.PackWindows(docs, tt.n, tt.sep)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("PackWindows(n=%d, sep=%d) (-want +got):\n%s", tt.n, tt.sep, diff)
			}
		})
	}
	var e *llama.Error
	if _, err := llama.PackWindows(docs, 2, -1); !errors.Is(err, llama.ErrContextFull) || !errors.As(err, &e) || e.Subject != "document 2" {
		t.Errorf("PackWindows(a document longer than the window) = %v, want ErrContextFull for document 2", err)
	}
	if _, err := llama.PackWindows(nil, 8, -1); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("PackWindows(no documents) = %v, want ErrInvalidArgument", err)
	}
	if _, err := llama.PackWindows([][]llama.Token{{}}, 8, -1); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("PackWindows(an empty document) = %v, want ErrInvalidArgument", err)
	}
}

// BenchmarkTrainWindow trains one 1024-token window of the training base
// per iteration with testmodels.BenchThreads threads: a forward and
// backward pass and an AdamW step of the head.
func BenchmarkTrainWindow(b *testing.B) {
	m := loadTrainable(b, testmodels.Path(b, testmodels.TrainQwen25F32))
	tr := newTrainer(b, m, llama.TrainParams{ContextSize: 1024, Threads: testmodels.BenchThreads()})
	w := make([]llama.Token, 1025)
	for i := range w {
		w[i] = llama.Token(i * 7 % m.VocabSize())
	}
	for b.Loop() {
		if _, err := tr.Train(context.Background(), w); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*1024)/b.Elapsed().Seconds(), "tokens/s")
}
