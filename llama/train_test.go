package llama_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

func newTrainer(t testing.TB, path string, p llama.TrainParams) *llama.Trainer {
	t.Helper()
	if p.Threads == 0 {
		p.Threads = 2
	}
	tr, err := llama.NewTrainer(context.Background(), path, p)
	if err != nil {
		t.Fatalf("NewTrainer(%s): %v", path, err)
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

// tokenizeWith loads path's vocabulary and tokenizes text.
func tokenizeWith(t testing.TB, path, text string) []llama.Token {
	t.Helper()
	m, err := llama.LoadModel(context.Background(), path, llama.ModelParams{VocabOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	toks, err := m.Tokenize(text, false, true)
	if err != nil {
		t.Fatal(err)
	}
	return toks
}

// llamaLogits decodes tokens from position 0 with llama.cpp (F32 KV
// cache, no flash attention) and returns the logits of every position.
func llamaLogits(t testing.TB, path string, tokens []llama.Token) [][]float32 {
	t.Helper()
	ctx := context.Background()
	m, err := llama.LoadModel(ctx, path, llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	n := len(tokens)
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: max(n, 256), BatchSize: n, UBatchSize: n,
		Threads: 2, FlashAttention: "off", CacheTypeK: "f32", CacheTypeV: "f32"})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	b, err := llama.NewBatch(n, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	for i, tok := range tokens {
		if err := b.Add(tok, i, []int{0}, true); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Decode(ctx, b); err != nil {
		t.Fatal(err)
	}
	out := make([][]float32, n)
	for i := range out {
		if out[i], err = c.Logits(i); err != nil {
			t.Fatal(err)
		}
	}
	return out
}

// maxRelDiff is the largest difference between a and the rows of b,
// relative to the largest magnitude in b.
func maxRelDiff(a []float32, b [][]float32) float64 {
	var diff, scale float64
	nv := len(b[0])
	for i, row := range b {
		for j, v := range row {
			diff = max(diff, math.Abs(float64(a[i*nv+j]-v)))
			scale = max(scale, math.Abs(float64(v)))
		}
	}
	return diff / scale
}

// TestTrainerLogits runs the training graph's forward pass on a chat and
// compares the logits of every position with llama.cpp's own for the same
// file and tokens.
func TestTrainerLogits(t *testing.T) {
	for _, name := range []string{testmodels.TrainQwen25F32, testmodels.TinyQwen15F32} {
		t.Run(name, func(t *testing.T) {
			path := testmodels.Path(t, name)
			toks := tokenizeWith(t, path, trainText)
			want := llamaLogits(t, path, toks)
			tr := newTrainer(t, path, llama.TrainParams{})
			got, err := tr.Logits(context.Background(), toks)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(toks)*len(want[0]) {
				t.Fatalf("Logits gave %d values, want %d rows of %d", len(got), len(toks), len(want[0]))
			}
			d := maxRelDiff(got, want)
			t.Logf("%d positions, shape %+v: max difference %.3g of the largest logit", len(toks), tr.Shape(), d)
			if d > 1e-3 {
				t.Errorf("the graph's logits differ from llama.cpp's by %.3g of the largest logit, want <= 1e-3", d)
			}
		})
	}
}

// lastReply returns trainText as one document whose targets are the
// tokens of its last assistant reply, and the window size that holds it.
func lastReply(t testing.TB, path string) (llama.Doc, int) {
	t.Helper()
	toks := tokenizeWith(t, path, trainText)
	cut := strings.LastIndex(trainText, "There are")
	k := len(tokenizeWith(t, path, trainText[:cut]))
	targets := make([]bool, len(toks))
	for i := k; i < len(toks)-1; i++ { // the reply and its <|im_end|>, not the final newline
		targets[i] = true
	}
	return llama.Doc{Tokens: toks, Targets: targets}, len(toks) - 1
}

// crossEntropy is the mean cross-entropy of w's targets computed from the
// graph's logits, the reference for the loss ggml-opt reports.
func crossEntropy(t testing.TB, tr *llama.Trainer, w llama.Window) float64 {
	t.Helper()
	n := len(w.Tokens) - 1
	logits, err := tr.Logits(context.Background(), w.Tokens[:n])
	if err != nil {
		t.Fatal(err)
	}
	nv := tr.Shape().Vocab
	sum, k := 0.0, 0
	for i := range n {
		if w.Targets != nil && !w.Targets[i+1] {
			continue
		}
		row := logits[i*nv : (i+1)*nv]
		m := float64(row[0])
		for _, v := range row {
			m = max(m, float64(v))
		}
		z := 0.0
		for _, v := range row {
			z += math.Exp(float64(v) - m)
		}
		sum += m + math.Log(z) - float64(row[w.Tokens[i+1]])
		k++
	}
	return sum / float64(k)
}

// TestTrainerMaskedLoss checks the loss of a window against the
// cross-entropy of its targets computed from the logits, and that the
// tokens after the last target (inputs and labels outside the mask) do not
// change it.
func TestTrainerMaskedLoss(t *testing.T) {
	path := testmodels.Path(t, testmodels.TrainQwen25F32)
	doc, n := lastReply(t, path)
	tr := newTrainer(t, path, llama.TrainParams{ContextSize: n})
	w := llama.Window{Tokens: doc.Tokens, Targets: doc.Targets}
	ctx := context.Background()
	got, err := tr.Eval(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	if want := crossEntropy(t, tr, w); math.Abs(got-want) > 1e-4*want {
		t.Errorf("Eval = %.6f, want the targets' cross-entropy %.6f", got, want)
	}
	all, err := tr.Eval(ctx, llama.Window{Tokens: doc.Tokens})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(all-got) < 1e-3 {
		t.Errorf("Eval(every position) = Eval(the last reply) = %.6f: the mask did nothing", got)
	}
	// Change every token after the last target, and the final label.
	last := 0
	for i, b := range w.Targets {
		if b {
			last = i
		}
	}
	changed := llama.Window{Tokens: append([]llama.Token(nil), w.Tokens...), Targets: w.Targets}
	for i := last + 1; i < len(changed.Tokens); i++ {
		changed.Tokens[i] = llama.Token(int(changed.Tokens[i])*7%100 + 1)
	}
	if got2, err := tr.Eval(ctx, changed); err != nil || got2 != got {
		t.Errorf("Eval(untrained positions changed) = %v, %v; want %v", got2, err, got)
	}
}

// TestTrainerLowersLoss trains every weight 20 steps on one window, its
// loss masked to the last assistant reply, and checks that the loss falls
// well below where it started, near ln(n_vocab) for the random model.
func TestTrainerLowersLoss(t *testing.T) {
	path := testmodels.Path(t, testmodels.TrainQwen25F32)
	doc, n := lastReply(t, path)
	tr := newTrainer(t, path, llama.TrainParams{ContextSize: n, LearningRate: 1e-3})
	w := llama.Window{Tokens: doc.Tokens, Targets: doc.Targets}
	ctx := context.Background()
	first, err := tr.Train(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	var last float64
	for range 19 {
		if last, err = tr.Train(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	after, err := tr.Eval(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("loss %.4f -> %.4f (last step %.4f)", first, after, last)
	if !(after < first/2) {
		t.Errorf("after 20 steps the loss is %.4f, want below half of %.4f", after, first)
	}
}

// TestTrainerNoTargets checks that a window without targets has no loss
// and changes no weight.
func TestTrainerNoTargets(t *testing.T) {
	path := testmodels.Path(t, testmodels.TrainQwen25F32)
	doc, n := lastReply(t, path)
	tr := newTrainer(t, path, llama.TrainParams{ContextSize: n, LearningRate: 1e-2})
	ctx := context.Background()
	before, err := tr.Logits(ctx, doc.Tokens[:n])
	if err != nil {
		t.Fatal(err)
	}
	w := llama.Window{Tokens: doc.Tokens, Targets: make([]bool, len(doc.Tokens))}
	for range 3 {
		if loss, err := tr.Train(ctx, w); err != nil || loss != 0 {
			t.Fatalf("Train(no targets) = %v, %v; want 0, nil", loss, err)
		}
	}
	after, err := tr.Logits(ctx, doc.Tokens[:n])
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(before, after); diff != "" {
		t.Errorf("a window without targets changed the logits (-before +after):\n%.300s", diff)
	}
}

// TestTrainerGradients checks the backward pass of the training graph: for
// weights of every kind, the gradient's norm must equal the loss's slope
// along the gradient measured by finite differences, with the loss over
// every position and over the last reply's tokens only. It failed for
// every weight below the output norm while ggml-alloc computed
// RMS_NORM_BACK in place, and, masked, for every weight while the mask was
// zero label rows, whose gradient ggml_cross_entropy_loss_back makes
// softmax(logits) instead of 0 (graph.cpp).
func TestTrainerGradients(t *testing.T) {
	path := testmodels.Path(t, testmodels.TrainQwen25F32)
	doc, _ := lastReply(t, path)
	tr := newTrainer(t, path, llama.TrainParams{})
	// The graph pads a window to a multiple of 16 positions; the third
	// window needs 15 positions of padding.
	cut := doc.Tokens[:(len(doc.Tokens)-2)/16*16+2]
	for _, w := range []llama.Window{{Tokens: doc.Tokens}, {Tokens: doc.Tokens, Targets: doc.Targets}, {Tokens: cut}} {
		for _, name := range []string{"output.weight", "output_norm.weight", "blk.1.ffn_down.weight", "blk.1.ffn_gate.weight",
			"blk.1.attn_output.weight", "blk.1.attn_v.weight", "blk.1.attn_k.weight", "blk.1.attn_q.bias",
			"blk.0.attn_q.weight", "blk.0.attn_norm.weight", "token_embd.weight"} {
			norm, slope, err := tr.GradCheck(w, name, 1e-3)
			if err != nil {
				t.Fatalf("GradCheck(%s, masked %v): %v", name, w.Targets != nil, err)
			}
			if math.Abs(slope-norm) > 0.05*norm+2e-3 {
				t.Errorf("%s, masked %v: gradient norm %.5g, but the loss's slope along it is %.5g", name, w.Targets != nil, norm, slope)
			}
		}
	}
}

// TestTrainerSaveFile trains a few steps, saves, and loads the file with
// llama.cpp: its logits are the graph's with the trained weights, and not
// the base's; the metadata is the base's.
func TestTrainerSaveFile(t *testing.T) {
	path := testmodels.Path(t, testmodels.TrainQwen25F32)
	doc, n := lastReply(t, path)
	tr := newTrainer(t, path, llama.TrainParams{ContextSize: n, LearningRate: 1e-3})
	ctx := context.Background()
	w := llama.Window{Tokens: doc.Tokens, Targets: doc.Targets}
	for range 3 {
		if _, err := tr.Train(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	out := filepath.Join(t.TempDir(), "out.gguf")
	if err := tr.SaveFile(ctx, out); err != nil {
		t.Fatalf("SaveFile: %v", err)
	}
	toks := doc.Tokens[:n]
	graph, err := tr.Logits(ctx, toks)
	if err != nil {
		t.Fatal(err)
	}
	saved := llamaLogits(t, out, toks)
	if d := maxRelDiff(graph, saved); d > 1e-3 {
		t.Errorf("the saved model's logits differ from the trained graph's by %.3g of the largest logit", d)
	}
	if d := maxRelDiff(graph, llamaLogits(t, path, toks)); d < 1e-2 {
		t.Errorf("the trained logits differ from the base's by only %.3g: nothing was trained or saved", d)
	}
	a, err1 := os.Stat(path)
	b, err2 := os.Stat(out)
	if err1 != nil || err2 != nil || a.Size() != b.Size() {
		t.Errorf("saved %v bytes (%v), base %v (%v): want the base's layout", b, err2, a, err1)
	}
	m, err := llama.LoadModel(ctx, out, llama.ModelParams{VocabOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	if tmpl, ok := m.ChatTemplate(""); !ok || !strings.Contains(tmpl, "im_start") {
		t.Errorf("the saved model lost its chat template")
	}
}

// TestTrainerBadInput checks that what ggml would abort on is refused with
// a typed error.
func TestTrainerBadInput(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.gguf")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	base := testmodels.Path(t, testmodels.TrainQwen25F32)
	opens := []struct {
		name, path string
		p          llama.TrainParams
		want       error
		text       string
	}{
		{"not qwen2", testmodels.Path(t, testmodels.TinyLlama3Q8), llama.TrainParams{}, llama.ErrInvalidArgument, "qwen2"},
		{"not F32", testmodels.Path(t, testmodels.TinyQwen3F16), llama.TrainParams{}, llama.ErrInvalidArgument, "F32"},
		{"empty file", empty, llama.TrainParams{}, llama.ErrNotGGUF, ""},
		{"window longer than the context", base, llama.TrainParams{ContextSize: 8192}, llama.ErrContextFull, "4096"},
		{"negative learning rate", base, llama.TrainParams{LearningRate: -1}, llama.ErrInvalidArgument, ""},
		{"weight decay above 1", base, llama.TrainParams{WeightDecay: 2}, llama.ErrInvalidArgument, ""},
	}
	for _, tt := range opens {
		t.Run(tt.name, func(t *testing.T) {
			tr, err := llama.NewTrainer(ctx, tt.path, tt.p)
			if !errors.Is(err, tt.want) || !strings.Contains(fmt.Sprint(err), tt.text) {
				t.Errorf("NewTrainer(%s) = %v, want %v mentioning %q", tt.name, err, tt.want, tt.text)
			}
			if tr != nil {
				tr.Close()
			}
		})
	}
	tr := newTrainer(t, base, llama.TrainParams{ContextSize: 16})
	good := llama.Window{Tokens: make([]llama.Token, 17)}
	bad := llama.Window{Tokens: make([]llama.Token, 17)}
	bad.Tokens[9] = llama.Token(tr.Shape().Vocab)
	if _, err := tr.Train(ctx, bad); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("Train(token out of the vocabulary) = %v, want ErrInvalidArgument", err)
	}
	if _, err := tr.Logits(ctx, []llama.Token{-1}); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("Logits(token -1) = %v, want ErrInvalidArgument", err)
	}
	if _, err := tr.Logits(ctx, make([]llama.Token, 4097)); !errors.Is(err, llama.ErrContextFull) {
		t.Errorf("Logits(4097 tokens) = %v, want ErrContextFull", err)
	}
	if _, err := tr.Eval(ctx, llama.Window{Tokens: make([]llama.Token, 18)}); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("Eval(a window one token too long) = %v, want ErrInvalidArgument", err)
	}
	if _, err := tr.Eval(ctx, llama.Window{Tokens: make([]llama.Token, 1)}); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("Eval(a window of one token) = %v, want ErrInvalidArgument", err)
	}
	if loss, err := tr.Eval(ctx, llama.Window{Tokens: good.Tokens[:9]}); err != nil || !(loss > 0) {
		t.Errorf("Eval(a shorter window) = %v, %v; want a loss", loss, err)
	}
	if _, err := tr.Eval(ctx, llama.Window{Tokens: good.Tokens, Targets: make([]bool, 3)}); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("Eval(3 targets for 17 tokens) = %v, want ErrInvalidArgument", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if st, err := tr.Epoch(cctx, []llama.Window{good, good}, nil, nil); !errors.Is(err, context.Canceled) || st.TrainWindows != 0 {
		t.Errorf("Epoch(cancelled) = %+v, %v; want no window and context.Canceled", st, err)
	}
	tr.Close()
	if err := tr.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := tr.Train(ctx, good); !errors.Is(err, llama.ErrClosed) {
		t.Errorf("Train after Close = %v, want ErrClosed", err)
	}
	if err := tr.SaveFile(ctx, filepath.Join(dir, "x.gguf")); !errors.Is(err, llama.ErrClosed) {
		t.Errorf("SaveFile after Close = %v, want ErrClosed", err)
	}
}

// tok makes tokens of ints.
func tok(ns ...int) []llama.Token {
	out := make([]llama.Token, len(ns))
	for i, n := range ns {
		out[i] = llama.Token(n)
	}
	return out
}

func TestPackWindows(t *testing.T) {
	all := func(n int) []bool {
		b := make([]bool, n)
		for i := range b {
			b[i] = true
		}
		return b
	}
	docs := []llama.Doc{{Tokens: tok(1, 2, 3)}, {Tokens: tok(4, 5), Targets: []bool{false, true}}, {Tokens: tok(6, 7, 8, 9)}}
	tests := []struct {
		name string
		n    int
		sep  llama.Token
		want []llama.Window
	}{
		{"windows start at documents", 4, -1, []llama.Window{
			{Tokens: tok(1, 2, 3, 4, 5), Targets: []bool{true, true, true, false, true}},
			{Tokens: tok(6, 7, 8, 9, 1), Targets: all(5)}}},
		{"separator, a target only after a document trained whole", 5, 0, []llama.Window{
			{Tokens: tok(1, 2, 3, 0, 4, 5), Targets: []bool{true, true, true, true, false, true}},
			{Tokens: tok(4, 5, 0, 6, 7, 8), Targets: []bool{false, true, false, true, true, true}},
			{Tokens: tok(6, 7, 8, 9, 0, 1), Targets: all(6)}}},
		{"wraps around", 9, -1, []llama.Window{{Tokens: tok(1, 2, 3, 4, 5, 6, 7, 8, 9, 1), Targets: []bool{true, true, true, false, true, true, true, true, true, true}}}},
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
	if _, err := llama.PackWindows([]llama.Doc{{}}, 8, -1); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("PackWindows(an empty document) = %v, want ErrInvalidArgument", err)
	}
	if _, err := llama.PackWindows([]llama.Doc{{Tokens: tok(1, 2), Targets: []bool{true}}}, 8, -1); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("PackWindows(fewer targets than tokens) = %v, want ErrInvalidArgument", err)
	}
}

// TestPackWhole: windows of whole documents only, each in exactly one
// window, shorter windows where the next document does not fit.
func TestPackWhole(t *testing.T) {
	docs := []llama.Doc{{Tokens: tok(1, 2, 3)}, {Tokens: tok(4, 5), Targets: []bool{false, true}}, {Tokens: tok(6, 7, 8, 9)}}
	tests := []struct {
		n    int
		want []llama.Window
	}{
		{6, []llama.Window{
			{Tokens: tok(1, 2, 3, 0, 4, 5, 0), Targets: []bool{true, true, true, true, false, true, false}},
			{Tokens: tok(6, 7, 8, 9, 0), Targets: []bool{true, true, true, true, true}}}},
		{5, []llama.Window{
			{Tokens: tok(1, 2, 3, 0), Targets: []bool{true, true, true, true}},
			{Tokens: tok(4, 5, 0), Targets: []bool{false, true, false}},
			{Tokens: tok(6, 7, 8, 9, 0), Targets: []bool{true, true, true, true, true}}}},
	}
	for _, tt := range tests {
		got, err := llama.PackWhole(docs, tt.n, 0)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("PackWhole(n=%d, sep=0) (-want +got):\n%s", tt.n, diff)
		}
	}
	if _, err := llama.PackWhole(docs, 3, 0); !errors.Is(err, llama.ErrContextFull) {
		t.Errorf("PackWhole(a document longer than the window) = %v, want ErrContextFull", err)
	}
	if _, err := llama.PackWhole([]llama.Doc{{Tokens: tok(7)}}, 4, -1); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("PackWhole(one token alone) = %v, want ErrInvalidArgument", err)
	}
}

// BenchmarkTrainWindow trains one 1024-token window of the training base
// per iteration with testmodels.BenchThreads threads: a forward and
// backward pass and an AdamW step of every weight.
func BenchmarkTrainWindow(b *testing.B) {
	path := testmodels.Path(b, testmodels.TrainQwen25F32)
	tr := newTrainer(b, path, llama.TrainParams{ContextSize: 1024, Threads: testmodels.BenchThreads()})
	w := llama.Window{Tokens: make([]llama.Token, 1025)}
	for i := range w.Tokens {
		w.Tokens[i] = llama.Token(i * 7 % tr.Shape().Vocab)
	}
	for b.Loop() {
		if _, err := tr.Train(context.Background(), w); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N*1024)/b.Elapsed().Seconds(), "tokens/s")
}

// TestTrainerPrefix checks a window whose prefix runs forward only:
// training with it lowers the loss; then (on weights that depend on the
// context, not the base's near-uniform ones) its loss is the one without
// the prefix, with and without padding; a prefix out of range or holding a
// target is refused.
func TestTrainerPrefix(t *testing.T) {
	path := testmodels.Path(t, testmodels.TrainQwen25F32)
	doc, n := lastReply(t, path)
	first := slices.Index(doc.Targets, true) // position first-1 predicts it
	tr := newTrainer(t, path, llama.TrainParams{ContextSize: n, LearningRate: 1e-3})
	ctx := context.Background()
	w := llama.Window{Tokens: doc.Tokens, Targets: doc.Targets, Prefix: (first - 1) / 16 * 16}
	before, err := tr.Eval(ctx, w)
	if err != nil {
		t.Fatal(err)
	}
	var last float64
	for range 5 {
		if last, err = tr.Train(ctx, w); err != nil {
			t.Fatal(err)
		}
	}
	after, err := tr.Eval(ctx, llama.Window{Tokens: doc.Tokens, Targets: doc.Targets})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("prefix %d of %d positions: loss %.4f -> %.4f (last step %.4f)", w.Prefix, n, before, after, last)
	if after > before-0.5 {
		t.Errorf("5 steps with a prefix: loss %.4f -> %.4f, want a drop of 0.5 or more", before, after)
	}
	// 16 positions, the most allowed, and one that leaves the rest a length
	// that is not a multiple of 16.
	for _, p := range []int{16, first - 1, (first-1)/16*16 - 5} {
		w.Prefix = p
		got, err := tr.Eval(ctx, w)
		if err != nil {
			t.Fatalf("Eval with a prefix of %d: %v", p, err)
		}
		if math.Abs(got-after) > 1e-4*after {
			t.Errorf("Eval with a prefix of %d = %.6f, want %.6f as without", p, got, after)
		}
	}
	for _, bad := range []llama.Window{
		{Tokens: doc.Tokens, Targets: doc.Targets, Prefix: first},
		{Tokens: doc.Tokens, Targets: doc.Targets, Prefix: n},
		{Tokens: doc.Tokens, Targets: doc.Targets, Prefix: -1},
		{Tokens: doc.Tokens, Prefix: 16},
	} {
		if _, err := tr.Train(ctx, bad); !errors.Is(err, llama.ErrInvalidArgument) {
			t.Errorf("Train with a prefix of %d (targets %v): %v, want ErrInvalidArgument", bad.Prefix, bad.Targets != nil, err)
		}
	}
}

// TestTrainerPrefixEvery checks the reuse of a prefix's keys and values:
// exact while no step has changed the weights (an evaluation pass after a
// window with the same prefix gives a fresh trainer's loss), and with
// PrefixEvery 2 a second training step attends to the first step's
// prefix, so its loss differs from the exact one, a little.
func TestTrainerPrefixEvery(t *testing.T) {
	path := testmodels.Path(t, testmodels.TrainQwen25F32)
	doc, n := lastReply(t, path)
	first := slices.Index(doc.Targets, true)
	p := (first - 1) / 16 * 16
	ctx := context.Background()
	w1 := llama.Window{Tokens: doc.Tokens, Targets: doc.Targets, Prefix: p}
	k := len(doc.Tokens) - 4 // the same prefix, a shorter rest
	w2 := llama.Window{Tokens: doc.Tokens[:k], Targets: doc.Targets[:k], Prefix: p}

	fresh, err := newTrainer(t, path, llama.TrainParams{ContextSize: n}).Eval(ctx, w2)
	if err != nil {
		t.Fatal(err)
	}
	ev := newTrainer(t, path, llama.TrainParams{ContextSize: n})
	if _, err := ev.Eval(ctx, w1); err != nil {
		t.Fatal(err)
	}
	if got, err := ev.Eval(ctx, w2); err != nil || got != fresh {
		t.Errorf("Eval of the second window after the first = %v, %v; want %v, a fresh trainer's", got, err, fresh)
	}

	train := func(every int) (l1, l2 float64) {
		tr := newTrainer(t, path, llama.TrainParams{ContextSize: n, LearningRate: 1e-2, PrefixEvery: every})
		var err error
		if l1, err = tr.Train(ctx, w1); err != nil {
			t.Fatal(err)
		}
		if l2, err = tr.Train(ctx, w2); err != nil {
			t.Fatal(err)
		}
		return l1, l2
	}
	a1, a2 := train(1)
	b1, b2 := train(2)
	t.Logf("losses: every step %.6f, %.6f; every 2 steps %.6f, %.6f", a1, a2, b1, b2)
	if a1 != b1 {
		t.Errorf("first step: loss %v with PrefixEvery 2, want %v as with 1", b1, a1)
	}
	if a2 == b2 || math.Abs(a2-b2) > 0.05*a2 {
		t.Errorf("second step: loss %v with PrefixEvery 2 against %v; want it different (one step old) and within 5%%", b2, a2)
	}
	if _, err := llama.NewTrainer(ctx, path, llama.TrainParams{PrefixEvery: -1}); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("PrefixEvery -1: %v, want ErrInvalidArgument", err)
	}
}
