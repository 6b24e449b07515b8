package train

import (
	"context"
	"encoding/json"
	"errors"
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

// chatsFile is the hand-made chats: five with tools, calls and results,
// one without tools.
const chatsFile = "testdata/chats.jsonl"

// vocab loads the training base's vocabulary and template.
func vocab(t *testing.T) *llama.Model {
	t.Helper()
	m, err := llama.LoadModel(context.Background(), testmodels.Path(t, testmodels.TrainQwen25F32), llama.ModelParams{VocabOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// write writes text to a file in a temporary folder and returns its path.
func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const shortChat = `{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}`

func TestReadChats(t *testing.T) {
	chats, err := ReadChats(chatsFile)
	if err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, c := range chats {
		lines = append(lines, c.Line)
	}
	if diff := cmp.Diff([]int{1, 2, 3, 4, 5, 6}, lines); diff != "" || chats[0].Path != chatsFile {
		t.Errorf("ReadChats(%q): path %q, lines (-want +got):\n%s", chatsFile, chats[0].Path, diff)
	}
	tests := []struct {
		name, text string
		want       string // the message, after the file's path
		is         error
	}{
		{"empty", "\n\n", ": no chats", ErrNoChats},
		{"bad JSON names the line", shortChat + "\n\n{oops\n", ":3: invalid character 'o' looking for beginning of object key string", nil},
		{"no messages", shortChat + "\n" + `{"tools": []}` + "\n", `:2: no "messages"`, ErrNoMessages},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, "chats.jsonl", tt.text)
			_, err := ReadChats(p)
			var e *Error
			if !errors.As(err, &e) || err.Error() != p+tt.want || (tt.is != nil && !errors.Is(err, tt.is)) {
				t.Errorf("ReadChats(%q) = %v, want an *Error %q wrapping %v", tt.text, err, p+tt.want, tt.is)
			}
		})
	}
	if _, err := ReadChats(filepath.Join(t.TempDir(), "missing.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ReadChats(missing) = %v, want os.ErrNotExist", err)
	}
}

// TestTargets renders the first chat of the data with the base's template
// and checks the tokens marked for training: two runs, the tool call and
// the answer, each ending with <|im_end|>, none reaching into a prompt.
func TestTargets(t *testing.T) {
	m := vocab(t)
	chats, err := ReadChats(chatsFile)
	if err != nil {
		t.Fatal(err)
	}
	trained := func(c Chat) []string {
		docs, err := renderChats(m, []Chat{c}, 1024, false)
		if err != nil {
			t.Fatal(err)
		}
		var runs []string
		var cur strings.Builder
		for i, tok := range docs[0].tokens {
			if docs[0].targets[i] {
				p, _ := m.TokenPiece(tok, true)
				cur.WriteString(p)
			} else if cur.Len() > 0 {
				runs = append(runs, cur.String())
				cur.Reset()
			}
		}
		if cur.Len() > 0 {
			runs = append(runs, cur.String())
		}
		return runs
	}
	call := "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"main.go\"}}\n</tool_call><|im_end|>"
	want := []string{call, "It prints hello.<|im_end|>"}
	if diff := cmp.Diff(want, trained(chats[0])); diff != "" {
		t.Errorf("trained text (-want +got):\n%s", diff)
	}
	// "weight": 0 on the call leaves only the answer trained.
	var msgs []map[string]any
	if err := json.Unmarshal(chats[0].Messages, &msgs); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		if m["role"] == "assistant" && m["tool_calls"] != nil {
			m["weight"] = 0
		}
	}
	weighted := chats[0]
	weighted.Messages, _ = json.Marshal(msgs)
	if diff := cmp.Diff(want[1:], trained(weighted)); diff != "" {
		t.Errorf("trained text with the call's weight 0 (-want +got):\n%s", diff)
	}
	msgs[1]["weight"] = 0.5
	weighted.Messages, _ = json.Marshal(msgs)
	if _, err := renderChats(m, []Chat{weighted}, 1024, false); err == nil || err.Error() != chatsFile+":1: message 1: weight 0.5, want 0 or 1" {
		t.Errorf("weight 0.5: %v, want an error naming the line and the weight", err)
	}
}

// TestPrepare checks the counts and windows of a plan, and that a chat
// longer than a window is refused naming its line.
func TestPrepare(t *testing.T) {
	m := vocab(t)
	chats, err := ReadChats(chatsFile)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name                   string
		cfg                    Config
		chats, heldOut, prefix int
		all                    bool // every token trained
	}{
		{"defaults: nothing held out", Config{}, 6, 0, 0, false},
		{"a fifth held out", Config{Window: 512, HeldOut: 0.2}, 5, 1, 0, false},
		{"train all", Config{HeldOut: 0.5, TrainAll: true}, 3, 3, 0, true},
		// The five chats with tools share their system prompt and tools.
		{"shared prefix", Config{}, 5, 0, 240, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cs := chats
			if tt.prefix > 0 {
				cs = chats[:5]
			}
			p, err := Prepare(m, cs, tt.cfg)
			if err != nil {
				t.Fatal(err)
			}
			r := p.Report
			if r.Chats != tt.chats || r.HeldOut != tt.heldOut || r.Prefix != tt.prefix || (r.Trained == r.Tokens) != tt.all {
				t.Errorf("Prepare(%+v).Report = %+v, want %d chats, %d held out, prefix %d, all trained %v", tt.cfg, r, tt.chats, tt.heldOut, tt.prefix, tt.all)
			}
			if r.Window != tt.cfg.withDefaults().Window || len(p.Train) == 0 || (len(p.Eval) > 0) != (tt.heldOut > 0) {
				t.Errorf("Prepare(%+v): window %d, %d training and %d held-out windows", tt.cfg, r.Window, len(p.Train), len(p.Eval))
			}
			for _, w := range append(p.Train, p.Eval...) {
				if w.Prefix != tt.prefix || len(w.Tokens) > r.Window+1 {
					t.Errorf("Prepare(%+v): a window of %d tokens with prefix %d", tt.cfg, len(w.Tokens), w.Prefix)
				}
			}
		})
	}
	// PrefixShare: a fifth of the five chats is one, so each window runs
	// forward only its own chat's start up to its first target, rounded
	// down to 16: beyond the 240 tokens they all share where its first
	// target allows.
	p, err := Prepare(m, chats[:5], Config{HeldOut: 0.2, PrefixShare: 0.2})
	if err != nil {
		t.Fatal(err)
	}
	sum, wider := 0, 0
	for _, w := range append(slices.Clone(p.Train), p.Eval...) {
		first := slices.Index(w.Targets, true)
		if w.Prefix < p.Report.Prefix || w.Prefix >= first || w.Prefix%16 != 0 {
			t.Errorf("PrefixShare 0.2: a window with prefix %d (shared %d, first target %d)", w.Prefix, p.Report.Prefix, first)
		}
		if w.Prefix > p.Report.Prefix {
			wider++
		}
		sum += w.Prefix
	}
	if p.Report.Prefix != 240 || sum != p.Report.Forward || wider == 0 {
		t.Errorf("PrefixShare 0.2: shared %d, forward %d (windows' sum %d), %d of %d windows wider; want 240, the sum, some",
			p.Report.Prefix, p.Report.Forward, sum, wider, len(p.Train)+len(p.Eval))
	}
	long := Chat{Messages: json.RawMessage(`[{"role": "user", "content": "` + strings.Repeat("word ", 700) + `"}]`), Path: "long.jsonl", Line: 3}
	_, err = Prepare(m, append(chats[:1:1], long), Config{Window: 512})
	if !errors.Is(err, ErrChatTooLong) || !strings.HasPrefix(err.Error(), "long.jsonl:3: the chat is ") || !strings.HasSuffix(err.Error(), "more than a window of 512") {
		t.Errorf("Prepare(a chat of 700 words, Window 512) = %v, want ErrChatTooLong naming long.jsonl:3", err)
	}
	// Training renders as loop run does: a history with one call id twice
	// is refused, naming the chat.
	call := `{"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read_file", "arguments": "{\"path\": \"a\"}"}}]}, {"role": "tool", "tool_call_id": "c1", "content": "x"}`
	dup := Chat{Messages: json.RawMessage(`[{"role": "user", "content": "read a"}, ` + call + `, ` + call + `, {"role": "assistant", "content": "done"}]`), Path: "dup.jsonl", Line: 2}
	_, err = Prepare(m, append(chats[:1:1], dup), Config{})
	if err == nil || !strings.HasPrefix(err.Error(), "dup.jsonl:2: ") || !strings.Contains(err.Error(), `duplicate call id "c1"`) {
		t.Errorf("Prepare(a chat with call id c1 twice) = %v, want an error naming dup.jsonl:2 and the id", err)
	}
}

func TestConfigCheck(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string // in the message; "" for no error
	}{
		{"zero", Config{}, ""},
		{"pretrain all epochs", Config{Epochs: 2, PretrainEpochs: 2}, ""},
		{"pretrain the default epoch", Config{PretrainEpochs: 1}, ""},
		{"negative window", Config{Window: -1}, "Window -1"},
		{"pretrain beyond the epochs", Config{Epochs: 2, PretrainEpochs: 3}, "PretrainEpochs 3"},
		{"NaN learning rate", Config{LearningRate: math.NaN()}, "LearningRate NaN"},
		{"unknown schedule", Config{Schedule: "step"}, `Schedule "step"`},
		{"all held out", Config{HeldOut: 1}, "HeldOut 1"},
		{"negative prefix steps", Config{PrefixEvery: -1}, "PrefixEvery -1"},
		{"negative threads", Config{Threads: -1}, "Threads -1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.cfg.check()
			if tt.want == "" && err != nil || tt.want != "" && (!errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tt.want)) {
				t.Errorf("Config(%+v).check() = %v, want %q", tt.cfg, err, tt.want)
			}
		})
	}
}

// TestRate: the cosine schedule warms up from a tenth of the learning rate
// over the first 5% of the steps, peaks at it, and ends at a tenth of it.
func TestRate(t *testing.T) {
	c := Config{LearningRate: 1e-3}.withDefaults()
	const steps = 100
	for _, tc := range []struct {
		step int
		want float64
	}{{0, 1e-4}, {5, 1e-3}, {52, 5.5e-4}, {99, 1e-4}} {
		if got := c.rate(tc.step, steps); math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("rate(%d of %d) = %g, want %g", tc.step, steps, got, tc.want)
		}
	}
	for s := 6; s < steps; s++ {
		if c.rate(s, steps) > c.rate(s-1, steps) {
			t.Errorf("rate rises after the warm-up at step %d", s)
		}
	}
	c.Schedule = ScheduleConstant
	if got := c.rate(50, steps); got != 1e-3 {
		t.Errorf("constant rate(50 of %d) = %g, want 1e-3", steps, got)
	}
}

// seqTokens returns the tokens 1..n, then tail.
func seqTokens(n int, tail ...llama.Token) []llama.Token {
	s := make([]llama.Token, n)
	for i := range s {
		s[i] = llama.Token(i + 1)
	}
	return append(s, tail...)
}

// TestSharedPrefix checks the prefix every window runs forward only: the
// tokens all docs share, before any target, rounded down to 16.
func TestSharedPrefix(t *testing.T) {
	targetsFrom := func(n, from int) []bool {
		b := make([]bool, n)
		for i := from; i < n; i++ {
			b[i] = true
		}
		return b
	}
	tests := []struct {
		name string
		docs []doc
		want int
	}{
		{"shared 40, targets later", []doc{
			{tokens: seqTokens(40, 7, 8, 9, 10), targets: targetsFrom(44, 42)},
			{tokens: seqTokens(40, 9, 9, 9, 9), targets: targetsFrom(44, 43)}}, 32},
		{"a target at 20 stops it at 19", []doc{
			{tokens: seqTokens(40, 7, 8), targets: targetsFrom(42, 20)},
			{tokens: seqTokens(40, 9, 9), targets: targetsFrom(42, 41)}}, 16},
		{"different from the first token", []doc{
			{tokens: seqTokens(40), targets: targetsFrom(40, 39)},
			{tokens: append([]llama.Token{99}, seqTokens(39)...), targets: targetsFrom(40, 39)}}, 0},
		{"a doc trained whole", []doc{
			{tokens: seqTokens(40), targets: targetsFrom(40, 39)},
			{tokens: seqTokens(40)}}, 0},
		{"one doc: up to its first target", []doc{{tokens: seqTokens(100), targets: targetsFrom(100, 50)}}, 48},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := sharedPrefix(tt.docs); got != tt.want {
				t.Errorf("sharedPrefix = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestWidenPrefixes checks each window's prefix under Config.PrefixShare:
// the longest start, before its first target, that the share of the
// windows begin with, rounded down to 16, and never below the prefix
// every window shares.
func TestWidenPrefixes(t *testing.T) {
	with := func(head []llama.Token, n int, first int) llama.Window {
		toks := append(slices.Clone(head), seqTokens(n)...)
		tg := make([]bool, len(toks))
		for i := first; i < len(toks); i++ {
			tg[i] = true
		}
		return llama.Window{Tokens: toks, Targets: tg, Prefix: 16}
	}
	// Two variants after a shared start of 20: six windows of A (a start
	// of 70 in all), three of B (50); one window of A has a target at 40.
	a := append(seqTokens(20), slices.Repeat([]llama.Token{500}, 50)...)
	b := append(seqTokens(20), slices.Repeat([]llama.Token{600}, 30)...)
	var ws []llama.Window
	for i := range 5 {
		ws = append(ws, with(append(slices.Clone(a), llama.Token(1000+i)), 30, 75))
	}
	ws = append(ws, with(append(slices.Clone(a), 2000), 30, 40))
	for i := range 3 {
		ws = append(ws, with(append(slices.Clone(b), llama.Token(3000+i)), 30, 55))
	}
	want := []int{64, 64, 64, 64, 64, 32, 48, 48, 48}
	tests := []struct {
		share float64
		want  []int
	}{
		{0.3, want},
		// 4 of 9: B's three windows are too few, so they keep the 16.
		{0.4, []int{64, 64, 64, 64, 64, 32, 16, 16, 16}},
		// Every window: the start all share, 20, rounded down to 16.
		{1, []int{16, 16, 16, 16, 16, 16, 16, 16, 16}},
	}
	for _, tt := range tests {
		w := slices.Clone(ws)
		sum := widenPrefixes(w, tt.share)
		got, total := make([]int, len(w)), 0
		for i := range w {
			got[i] = w[i].Prefix
			total += w[i].Prefix
		}
		if !slices.Equal(got, tt.want) || sum != total {
			t.Errorf("widenPrefixes(share %v) = %v (sum %d), want %v (sum %d)", tt.share, got, sum, tt.want, total)
		}
	}
}

// TestRun trains two epochs, the first on every token, and checks the
// hooks' order and the report: the training loss falls, and the held-out
// loss is measured before training and after each epoch.
func TestRun(t *testing.T) {
	base := testmodels.Path(t, testmodels.TrainQwen25F32)
	m := vocab(t)
	chats, err := ReadChats(chatsFile)
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Window: 512, Epochs: 2, PretrainEpochs: 1, LearningRate: 1e-3, HeldOut: 0.2, Seed: 1, Threads: 2}
	ctx := context.Background()
	tr, err := llama.NewTrainer(ctx, base, cfg.TrainParams())
	if err != nil {
		t.Fatal(err)
	}
	defer tr.Close()
	p, err := Prepare(m, chats, cfg)
	if err != nil {
		t.Fatal(err)
	}
	var events []string
	h := Hooks{
		BeforeTraining: func(float64) { events = append(events, "before") },
		EpochStart:     func(e int) { events = append(events, "start") },
		Window: func(pr Progress) {
			if pr.Done == pr.Total {
				events = append(events, "last window")
			}
		},
		EpochEnd: func(Epoch) { events = append(events, "end") },
	}
	rep, err := p.Run(ctx, tr, h)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"before", "start", "last window", "end", "start", "last window", "end"}
	if diff := cmp.Diff(want, events); diff != "" {
		t.Errorf("hooks (-want +got):\n%s", diff)
	}
	if len(rep.Epochs) != 2 || rep.Before == 0 {
		t.Fatalf("Run = %+v, want 2 epochs and a loss before", rep)
	}
	e1, e2 := rep.Epochs[0], rep.Epochs[1]
	if !e1.AllTokens || e2.AllTokens || e2.TrainLoss >= e1.TrainLoss || e1.EvalWindows != 1 {
		t.Errorf("epochs = %+v, want the first on every token, a lower training loss in the second, one held-out window", rep.Epochs)
	}

	// A cancelled context stops the run before its first window.
	p, err = Prepare(m, chats, cfg)
	if err != nil {
		t.Fatal(err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if rep, err := p.Run(cctx, tr, Hooks{}); !errors.Is(err, context.Canceled) || len(rep.Epochs) != 0 {
		t.Errorf("Run(cancelled) = %d epochs, %v; want none and context.Canceled", len(rep.Epochs), err)
	}
}
