package llama_test

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// The tests of this file each reproduce one finding of the review of
// llama/ (issue 7): a crash, a race or a wrong result that normal use
// reaches. Crashes run in a child process (inChild).

// wordTokens cycles through ordinary words that never form a trigger.
func wordTokens(t testing.TB, m *llama.Model) []llama.Token {
	return tokenize(t, m, " the quick brown fox jumps over the lazy dog, and then it reads the file again")
}

// TestLazyGrammarLongReply feeds a lazy grammar 20,000 tokens of text
// without its trigger, and 15,000 before a call. llama.cpp's own lazy
// grammar ran a regular expression over all the text on each token and
// overflowed the stack after about 7,000 tokens.
func TestLazyGrammarLongReply(t *testing.T) {
	for _, tt := range []struct {
		name       string
		free, call int
	}{{"never", 20000, 0}, {"call after 15000", 15000, 1}} {
		t.Run(tt.name, func(t *testing.T) {
			inChild(t, func(t *testing.T) {
				m := load(t, testmodels.TinyQwen15F32) // <tool_call> is several tokens here
				g, err := m.NewLazyGrammar(`root ::= "<tool_call>" [0-9]+ "</tool_call>"`, "",
					llama.LazyTriggers{Words: []string{"<tool_call>"}})
				if err != nil {
					t.Fatal(err)
				}
				defer g.Close()
				words := wordTokens(t, m)
				for i := range tt.free {
					if err := g.Accept(words[i%len(words)]); err != nil {
						t.Fatalf("token %d: %v", i, err)
					}
				}
				x := tokenize(t, m, "x")[0]
				if !g.Allows(x) {
					t.Fatalf("before the trigger the grammar refuses %q", "x")
				}
				if tt.call == 0 {
					return
				}
				for _, tok := range tokenize(t, m, "so: <tool_call>42</tool_call>") {
					if err := g.Accept(tok); err != nil {
						t.Fatalf("the call: %v", err)
					}
				}
				if !g.Allows(m.EOS()) || g.Allows(x) {
					t.Errorf("after the call: Allows(EOS) %v, Allows(x) %v; want true, false", g.Allows(m.EOS()), g.Allows(x))
				}
			})
		})
	}
}

// TestLazyGrammarTriggerSplit wakes a word trigger that starts inside a
// token and ends in a later one: the grammar sees the text from the word.
func TestLazyGrammarTriggerSplit(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	g, err := m.NewLazyGrammar(`root ::= "<tool_call>" [0-9]+`, "", llama.LazyTriggers{Words: []string{"<tool_call>"}})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	toks := tokenize(t, m, "ok<tool_call>7")
	if len(toks) < 3 {
		t.Fatalf("want the word split over tokens, got %d tokens", len(toks))
	}
	for _, tok := range toks {
		if err := g.Accept(tok); err != nil {
			t.Fatalf("Accept: %v", err)
		}
	}
	if !g.Allows(tokenize(t, m, "8")[0]) || g.Allows(tokenize(t, m, "x")[0]) {
		t.Errorf("after the trigger only digits may follow")
	}
	g.Reset()
	if !g.Allows(tokenize(t, m, "x")[0]) {
		t.Errorf("after Reset the grammar waits for its trigger again")
	}
}

// TestInt32Arguments passes Go ints that do not fit llama.cpp's int32:
// NewBatch(1<<32+1) then Add was a SIGSEGV, and n_ctx 1<<32 silently
// became 32768.
func TestInt32Arguments(t *testing.T) {
	inChild(t, func(t *testing.T) {
		m := load(t, testmodels.TinyQwen15F32)
		if _, err := llama.NewBatch(1<<32+1, 1); !errors.Is(err, llama.ErrInvalidArgument) {
			t.Errorf("NewBatch(1<<32+1) = %v, want ErrInvalidArgument", err)
		}
		b, err := llama.NewBatch(4, 1)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		for _, add := range []struct {
			name string
			pos  int
			seqs []int
		}{{"position", 1 << 32, []int{0}}, {"sequence", 0, []int{1 << 32}}, {"negative sequence", 0, []int{-1}}} {
			if err := b.Add(1, add.pos, add.seqs, true); !errors.Is(err, llama.ErrInvalidArgument) {
				t.Errorf("Add with a %s outside int32 = %v, want ErrInvalidArgument", add.name, err)
			}
		}
		for _, p := range []llama.ContextParams{{ContextSize: 1 << 32, AllowBeyondTrained: true}, {BatchSize: 1 << 32}, {UBatchSize: -1}} {
			if _, err := llama.NewContext(m, p); !errors.Is(err, llama.ErrInvalidArgument) {
				t.Errorf("NewContext(%+v) = %v, want ErrInvalidArgument", p, err)
			}
		}
		c := newContext(t, m, llama.ContextParams{ContextSize: 256})
		if _, err := c.SeqRemove(0, 1<<32, -1); !errors.Is(err, llama.ErrInvalidArgument) {
			t.Errorf("SeqRemove from 1<<32 = %v, want ErrInvalidArgument", err)
		}
		if _, err := c.DecodeTokens(context.Background(), 0, math.MaxInt32, []llama.Token{1, 2}, true); !errors.Is(err, llama.ErrInvalidArgument) {
			t.Errorf("DecodeTokens past int32 = %v, want ErrInvalidArgument", err)
		}
	})
}

// TestChainInChain adds a chain to a chain, which left the inner one's
// members dangling once the outer closed (outer.Close(); greedy.Reset()
// was a SIGSEGV).
func TestChainInChain(t *testing.T) {
	inChild(t, func(t *testing.T) {
		outer, inner, greedy := llama.NewChain(true), llama.NewChain(true), llama.NewGreedy()
		if err := inner.Add(greedy); err != nil {
			t.Fatal(err)
		}
		if err := outer.Add(inner); !errors.Is(err, llama.ErrInvalidArgument) {
			t.Errorf("adding a chain to a chain = %v, want ErrInvalidArgument", err)
		}
		outer.Close()
		greedy.Reset()
		inner.Close()
		greedy.Reset() // closed with its chain: a no-op, not a crash
	})
}

// TestCraftedGGUF loads metadata that llama.cpp's loader asserts on, which
// aborted the process: each must be a clean error that names the problem.
func TestCraftedGGUF(t *testing.T) {
	with := func(extra ...ggufKV) []byte {
		return ggufFile(append(append(llamaHparams(), tinyVocab()...), extra...)...)
	}
	tests := []struct {
		name string
		file []byte
		want string
	}{
		{"expert used without experts", with(ggufKV{"llama.expert_used_count", u32v(1)}), "expert"},
		{"more experts used than exist", with(ggufKV{"llama.expert_count", u32v(4)}, ggufKV{"llama.expert_used_count", u32v(8)}), "expert"},
		{"expert groups", with(ggufKV{"llama.expert_count", u32v(8)}, ggufKV{"llama.expert_used_count", u32v(2)}, ggufKV{"llama.expert_group_count", u32v(3)}), "expert"},
		{"rope scaling type", with(ggufKV{"llama.rope.scaling.type", strv("bogus")}), "rope.scaling.type"},
		{"head counts as floats", ggufFile(append([]ggufKV{
			{"general.architecture", strv("llama")}, {"llama.context_length", u32v(64)}, {"llama.embedding_length", u32v(8)},
			{"llama.block_count", u32v(1)}, {"llama.attention.head_count", arrv(6, float32(2))},
		}, tinyVocab()...)...), "head_count"},
		{"short scores", with(ggufKV{"tokenizer.ggml.scores", arrv(6, float32(0))}), "scores"},
		{"tokens not an array", ggufFile(append(llamaHparams(), ggufKV{"tokenizer.ggml.model", strv("gpt2")}, ggufKV{"tokenizer.ggml.tokens", strv("a")})...), "tokens"},
		{"token types as strings", with(ggufKV{"tokenizer.ggml.token_type", arrv(8, "1", "1", "1", "1")}), "token_type"},
		{"default EOS outside the vocabulary", ggufFile(append(llamaHparams(), ggufKV{"tokenizer.ggml.model", strv("gpt2")},
			ggufKV{"tokenizer.ggml.tokens", arrv(8, "a", "b", "ab", "c")}, ggufKV{"tokenizer.ggml.merges", arrv(8, "a b")})...), "default special token 11"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			inChild(t, func(t *testing.T) {
				path := writeGGUF(t, tt.file)
				m, err := llama.LoadModel(context.Background(), path, llama.ModelParams{})
				if err == nil {
					m.Close()
					t.Fatalf("LoadModel succeeded")
				}
				if !strings.Contains(err.Error(), tt.want) {
					t.Errorf("LoadModel = %v, want an error about %s", err, tt.want)
				}
			})
		})
	}
}

// TestDeepGrammar nests parentheses 200,000 deep, which overflowed the C
// stack in llama.cpp's parser; and checks that a grammar's parse error
// reaches the error, not stderr (the parser prints it to stderr, which
// used to be redirected for the whole process while it parsed).
func TestDeepGrammar(t *testing.T) {
	res, parent := inChild(t, func(t *testing.T) {
		m := load(t, testmodels.TinyQwen15F32)
		deep := "root ::= " + strings.Repeat("(", 200000) + `"a"` + strings.Repeat(")", 200000)
		if _, err := m.NewGrammar(deep, ""); !errors.Is(err, llama.ErrGrammar) || !strings.Contains(err.Error(), "nest") {
			t.Errorf("NewGrammar(200,000 levels) = %v, want ErrGrammar about the nesting", err)
		}
		if err := llama.CheckGrammar(deep, ""); !errors.Is(err, llama.ErrGrammar) {
			t.Errorf("CheckGrammar(200,000 levels) = %v, want ErrGrammar", err)
		}
		_, err := m.NewGrammar(`root ::= item`, "")
		if err == nil || !strings.Contains(err.Error(), "Undefined rule identifier 'item'") {
			t.Errorf("NewGrammar(undefined rule) = %v, want the parser's reason", err)
		}
		ok := strings.Repeat("(", 100) + `"a"` + strings.Repeat(")", 100)
		if g, err := m.NewGrammar("root ::= "+ok, ""); err != nil {
			t.Errorf("100 levels: %v", err)
		} else {
			g.Close()
		}
	})
	if parent && strings.Contains(res.stderr, "parse") {
		t.Errorf("the grammar errors reached stderr:\n%s", res.stderr)
	}
}

// TestThreadsCapped asks for 5,000 threads, which failed GGML_ASSERT in
// ggml-cpu on the first decode: they are capped at MaxThreads, and the
// context's thread pools (where ggml starts its threads now) come up. It
// does not decode: with 512 threads on a 2-core machine, ggml's spinning
// barrier makes one token take over a minute.
func TestThreadsCapped(t *testing.T) {
	inChild(t, func(t *testing.T) {
		m := load(t, testmodels.TinyQwen15F32)
		c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 256, Threads: 5000})
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		if gen, batch := c.Threads(); gen != llama.MaxThreads || batch != llama.MaxThreads {
			t.Errorf("threads %d/%d, want %d", gen, batch, llama.MaxThreads)
		}
		if _, err := llama.NewContext(m, llama.ContextParams{Threads: -1}); !errors.Is(err, llama.ErrInvalidArgument) {
			t.Errorf("Threads -1 = %v, want ErrInvalidArgument", err)
		}
	})
}

// TestCloseRace closes a context from two goroutines and its model from a
// third while a decode runs: the abort flag was read and written without a
// lock while another close freed it. Run under -race (make race).
func TestCloseRace(t *testing.T) {
	inChild(t, func(t *testing.T) {
		path := testmodels.Path(t, testmodels.TinyQwen15F32)
		prompt := make([]llama.Token, 1500)
		for i := range prompt {
			prompt[i] = llama.Token(100 + i)
		}
		for range 20 {
			m, err := llama.LoadModel(context.Background(), path, llama.ModelParams{})
			if err != nil {
				t.Fatal(err)
			}
			c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 2048, Threads: 1})
			if err != nil {
				t.Fatal(err)
			}
			var wg sync.WaitGroup
			wg.Go(func() { c.DecodeTokens(context.Background(), 0, 0, prompt, true) })
			wg.Go(func() { c.Close() })
			wg.Go(func() { c.Close() })
			wg.Go(func() { m.Close() })
			wg.Wait()
		}
	})
}

// TestAddVsModelClose adds samplers to chains while the model closes:
// Sampler.Add and Model.Close took their locks in opposite orders.
func TestAddVsModelClose(t *testing.T) {
	path := testmodels.Path(t, testmodels.TinyQwen15F32)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 10 {
			m, err := llama.LoadModel(context.Background(), path, llama.ModelParams{VocabOnly: true})
			if err != nil {
				t.Error(err)
				return
			}
			var wg sync.WaitGroup
			wg.Go(func() {
				for range 20 {
					g, err := m.NewGrammar(`root ::= "a"`, "")
					if err != nil {
						return // the model closed
					}
					ch := llama.NewChain(true)
					ch.Add(g)
					ch.Close()
				}
			})
			wg.Go(func() { m.Close() })
			wg.Wait()
		}
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatal("deadlock: Add and Model.Close did not return")
	}
}

// TestProgressPanic panics in the load-progress callback: the panic went
// through llama.cpp's frames and left the load lock held, so the next load
// blocked forever.
func TestProgressPanic(t *testing.T) {
	path := testmodels.Path(t, testmodels.TinyQwen15F32)
	func() {
		defer func() {
			if r := recover(); r != "boom" {
				t.Errorf("recovered %v, want the callback's panic", r)
			}
		}()
		llama.LoadModel(context.Background(), path, llama.ModelParams{Progress: func(float32) { panic("boom") }})
		t.Errorf("LoadModel returned instead of panicking")
	}()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m, err := llama.LoadModel(ctx, path, llama.ModelParams{})
	if err != nil {
		t.Fatalf("the next load: %v", err)
	}
	m.Close()
}

// TestStateCellCount restores a 12-byte state that claims 100,000,000
// cells: llama.cpp reserved 2.2 GB for it before reading them.
func TestStateCellCount(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 256})
	state := []byte{1, 0, 0, 0, 0x00, 0xe1, 0xf5, 0x05, 0, 0, 0, 0}
	if err := c.SetSeqState(0, state); !errors.Is(err, llama.ErrInvalidArgument) || !strings.Contains(err.Error(), "100000000 cells") {
		t.Errorf("SetSeqState(1e8 cells) = %v, want ErrInvalidArgument naming the count", err)
	}
	if err := c.SetSeqState(0, []byte{2, 0, 0, 0, 0, 0, 0, 0}); !errors.Is(err, llama.ErrInvalidArgument) {
		t.Errorf("SetSeqState(2 streams) = %v, want ErrInvalidArgument", err)
	}
}

// TestDecodeTokensReport decodes one token at position 10 of a sequence
// that holds 100: llama.cpp refuses it, and DecodeTokens reported 90
// tokens done.
func TestDecodeTokensReport(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 256})
	ctx := context.Background()
	prompt := make([]llama.Token, 100)
	for i := range prompt {
		prompt[i] = llama.Token(200 + i)
	}
	if _, err := c.DecodeTokens(ctx, 0, 0, prompt, false); err != nil {
		t.Fatal(err)
	}
	done, err := c.DecodeTokens(ctx, 0, 10, []llama.Token{5}, true)
	if err == nil || done != 0 {
		t.Errorf("DecodeTokens(1 token at 10 of 100) = %d, %v; want 0 and an error", done, err)
	}
}

// TestErrorCapture fails loads and state restores from many goroutines at
// once: with one global capture, 1,926 of 3,000 load errors lost their
// cause to each other.
func TestErrorCapture(t *testing.T) {
	bad := writeGGUF(t, ggufFile(append([]ggufKV{{"general.architecture", strv("foo")}}, tinyVocab()...)...))
	m := load(t, testmodels.TinyQwen15F32)
	var wg sync.WaitGroup
	var mu sync.Mutex
	lost := map[string]int{}
	for range 4 {
		wg.Go(func() {
			for range 50 {
				_, err := llama.LoadModel(context.Background(), bad, llama.ModelParams{})
				if err == nil || !strings.Contains(err.Error(), "unknown model architecture: 'foo'") {
					mu.Lock()
					lost["load: "+errString(err)]++
					mu.Unlock()
				}
			}
		})
		wg.Go(func() {
			c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 256, Threads: 1})
			if err != nil {
				t.Error(err)
				return
			}
			defer c.Close()
			garbage := []byte{1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0, 0}
			for range 50 {
				err := c.SetSeqState(0, garbage)
				if err == nil || !strings.Contains(err.Error(), "seq_id-agnostic") || strings.Contains(err.Error(), "architecture") {
					mu.Lock()
					lost["restore: "+errString(err)]++
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	for msg, n := range lost {
		t.Errorf("%d errors without their own cause: %s", n, msg)
	}
}

func errString(err error) string {
	if err == nil {
		return "<nil>"
	}
	return err.Error()
}

// BenchmarkLazyAccept feeds 20,000 tokens of text without the trigger to a
// lazy grammar with a word trigger, the way a long auto reply does, and
// reports the time of the first and the last 1,000 (the grammar's own
// cost, without a model). llama.cpp's lazy grammar matched a regular
// expression against the whole text on each token: its cost grew with the
// text until the stack overflowed near 7,000 tokens.
func BenchmarkLazyAccept(b *testing.B) {
	m := load(b, testmodels.TinyQwen15F32)
	words := wordTokens(b, m)
	n := 20000
	if s := os.Getenv("LOOP_LAZY_TOKENS"); s != "" {
		fmt.Sscan(s, &n)
	}
	for b.Loop() {
		g, err := m.NewLazyGrammar(`root ::= "<tool_call>" [0-9]+`, "", llama.LazyTriggers{Words: []string{"<tool_call>"}})
		if err != nil {
			b.Fatal(err)
		}
		var first, last time.Duration
		start := time.Now()
		for i := range n {
			if err := g.Accept(words[i%len(words)]); err != nil {
				b.Fatal(err)
			}
			if (i+1)%1000 == 0 {
				d := time.Since(start)
				if first == 0 {
					first = d
				}
				last, start = d, time.Now()
			}
		}
		g.Close()
		b.ReportMetric(float64(first.Microseconds())/1000, "ms/first-1k")
		b.ReportMetric(float64(last.Microseconds())/1000, "ms/last-1k")
	}
}

// TestAbortIsQuiet cancels a long prefill: llama.cpp logs three ERROR
// lines for an aborted decode (graph_compute, process_ubatch,
// llama_decode), which `loop complete` printed before "interrupted". A
// deliberate abort logs nothing at error level.
func TestAbortIsQuiet(t *testing.T) {
	var logs strings.Builder
	var mu sync.Mutex
	llama.SetLogger(slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		return logs.Write(p)
	}), &slog.HandlerOptions{Level: slog.LevelError})))
	defer llama.SetLogger(nil)
	m := load(t, testmodels.BenchQwen2Q8)
	c := newContext(t, m, llama.ContextParams{ContextSize: 2048})
	prompt := make([]llama.Token, 2000)
	for i := range prompt {
		prompt[i] = llama.Token(1000 + i)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	if _, err := c.DecodeTokens(ctx, 0, 0, prompt, true); !errors.Is(err, context.Canceled) {
		t.Fatalf("DecodeTokens = %v, want context.Canceled", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if logs.Len() > 0 {
		t.Errorf("a deliberate abort logged errors:\n%s", logs.String())
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestPrefillProgress prefills 3,000 tokens with batches of 1,024: the
// slot reports 1,024, 2,048 and 3,000 of 3,000, and the result is the same
// as without a Progress.
func TestPrefillProgress(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c := newContext(t, m, llama.ContextParams{ContextSize: 4096, BatchSize: 1024})
	slot, _ := llama.NewSlot(c, 0)
	prompt := make([]llama.Token, 3000)
	for i := range prompt {
		prompt[i] = llama.Token(100 + i)
	}
	var seen []int
	progress := func(done, total int) {
		if total != len(prompt) {
			t.Errorf("total %d, want %d", total, len(prompt))
		}
		seen = append(seen, done)
	}
	st, err := slot.PrefillProgress(context.Background(), prompt, progress)
	if err != nil || st.PromptN != 3000 || slot.Len() != 3000 {
		t.Fatalf("Prefill = %+v, %v; slot holds %d", st, err, slot.Len())
	}
	if want := []int{1024, 2048, 3000}; !slices.Equal(seen, want) {
		t.Errorf("progress %v, want %v", seen, want)
	}
}
