package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// envFakeServer makes this test binary a fake llama-server in a mode:
// "serve" answers /health and /completion, "exit" fails at once,
// "unready" answers /health with 503, "stubborn" serves but ignores
// SIGTERM. Under envFakeServerDir each start writes its arguments to a
// file named by its pid.
const (
	envFakeServer    = "LOOP_TEST_FAKE_LLAMA_SERVER"
	envFakeServerDir = "LOOP_TEST_FAKE_LLAMA_SERVER_DIR"
)

// fakeHelp is the part of llama-server's --help that the bench reads.
const fakeHelp = `----- speculative params -----
--spec-type none,draft-simple,ngram-simple,ngram-mod
                                        comma-separated list of types of speculative decoding to use
`

// fakeIdle is how long the fake keeps an idle connection open.
const fakeIdle = 50 * time.Millisecond

// fakeDiverge is a first prompt token on which the fake's greedy output
// parts from fakeTokens at index 2.
const fakeDiverge = 99

// fakeGrammar is a first prompt token for a row constrained by fakeGBNF:
// the fake refuses a request whose grammar is not fakeGBNF there, or is
// set elsewhere.
const (
	fakeGrammar = 98
	fakeGBNF    = `root ::= "x"+`
)

// init runs before TestMain, so the fake needs nothing of it.
func init() {
	if mode := os.Getenv(envFakeServer); mode != "" {
		os.Exit(fakeLlamaServer(mode, os.Args[1:]))
	}
}

func fakeLlamaServer(mode string, args []string) int {
	switch {
	case slices.Contains(args, "--help"):
		fmt.Print(fakeHelp)
		return 0
	case slices.Contains(args, "--version"):
		fmt.Fprintln(os.Stderr, "version: 9.9.9 (build 1, commit fake)")
		return 0
	}
	if dir := os.Getenv(envFakeServerDir); dir != "" {
		os.WriteFile(filepath.Join(dir, strconv.Itoa(os.Getpid())), []byte(strings.Join(args, " ")), 0o644)
	}
	if mode == "exit" {
		fmt.Fprintln(os.Stderr, "fake: loading model\nfake: failed to load model")
		return 1
	}
	if mode == "stubborn" {
		signal.Ignore(syscall.SIGTERM)
	}
	spec := fakeFlag(args, "--spec-type")
	slots := fakeFlag(args, "--slot-save-path")
	// cached is the prompt in the slot's cache; served counts the
	// completions, which warm the fake's n-gram pool: a drafting fake
	// decodes faster after its first request, as a peer whose pool holds
	// the same reply does.
	var (
		mu     sync.Mutex
		cached []llama.Token
		served int
	)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /slots/0", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Filename string `json:"filename"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || slots == "" || req.Filename == "" || strings.ContainsRune(req.Filename, '/') {
			http.Error(w, fmt.Sprintf("fake: a slot request the bench should not send: %+v (%v), --slot-save-path %q", req, err, slots), http.StatusBadRequest)
			return
		}
		file := filepath.Join(slots, req.Filename)
		mu.Lock()
		defer mu.Unlock()
		switch r.URL.Query().Get("action") {
		case "save":
			data, _ := json.Marshal(cached)
			if err := os.WriteFile(file, data, 0o644); err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
			}
		case "restore":
			data, err := os.ReadFile(file)
			if err == nil {
				err = json.Unmarshal(data, &cached)
			}
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
			}
		default:
			http.Error(w, "fake: no such action", http.StatusBadRequest)
		}
	})
	mux.HandleFunc("GET /health", func(w http.ResponseWriter, r *http.Request) {
		if mode == "unready" {
			http.Error(w, `{"error":"loading model"}`, http.StatusServiceUnavailable)
		}
	})
	mux.HandleFunc("POST /completion", func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Prompt      []llama.Token `json:"prompt"`
			NPredict    int           `json:"n_predict"`
			CachePrompt *bool         `json:"cache_prompt"`
			IgnoreEOS   bool          `json:"ignore_eos"`
			Return      bool          `json:"return_tokens"`
			Temperature float64       `json:"temperature"`
			Samplers    []string      `json:"samplers"`
			Seed        *int          `json:"seed"`
			Grammar     string        `json:"grammar"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Prompt) == 0 || req.CachePrompt == nil || !*req.CachePrompt ||
			!req.IgnoreEOS || !req.Return || (req.Temperature != 0 && (req.Temperature != 1 || !slices.Equal(req.Samplers, []string{"temperature"}) || req.Seed == nil)) {
			http.Error(w, fmt.Sprintf("fake: a request the bench should not send: %+v (%v)", req, err), http.StatusBadRequest)
			return
		}
		if (req.Prompt[0] == fakeGrammar) != (req.Grammar == fakeGBNF) || (req.Prompt[0] != fakeGrammar && req.Grammar != "") {
			http.Error(w, fmt.Sprintf("fake: prompt %v with grammar %q", req.Prompt, req.Grammar), http.StatusBadRequest)
			return
		}
		toks := fakeTokens(req.NPredict)
		if req.Prompt[0] == fakeDiverge && spec == "" {
			toks[2] = 1000
		}
		mu.Lock()
		defer mu.Unlock()
		cacheN := 0
		if slices.Equal(cached, req.Prompt) {
			cacheN = len(req.Prompt)
		}
		timings := map[string]any{"cache_n": cacheN, "predicted_n": req.NPredict, "predicted_per_second": 20.0}
		if spec != "" {
			timings["predicted_per_second"], timings["draft_n"], timings["draft_n_accepted"] = float64(20+len(spec)+10*min(served, 1)), 10, 5
		}
		cached = req.Prompt
		served++
		json.NewEncoder(w).Encode(map[string]any{"content": "fake text", "tokens": toks, "timings": timings})
	})
	// A request on a connection idle for longer than fakeIdle finds it
	// closed, as one that reaches llama-server just as its keep-alive
	// timeout (5 s) closes the connection does.
	type connKey struct{}
	srv := &http.Server{Addr: fakeFlag(args, "--host") + ":" + fakeFlag(args, "--port"),
		ConnContext: func(ctx context.Context, c net.Conn) context.Context {
			return context.WithValue(ctx, connKey{}, new(time.Time))
		},
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			last := r.Context().Value(connKey{}).(*time.Time)
			if !last.IsZero() && time.Since(*last) > fakeIdle {
				if c, _, err := http.NewResponseController(w).Hijack(); err == nil {
					c.Close()
				}
				return
			}
			mux.ServeHTTP(w, r)
			*last = time.Now()
		})}
	if err := srv.ListenAndServe(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func fakeFlag(args []string, name string) string {
	if i := slices.Index(args, name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// fakeTokens are 1, 2, ... n: what the fake and the fake loop generate.
func fakeTokens(n int) []llama.Token {
	toks := make([]llama.Token, n)
	for i := range toks {
		toks[i] = llama.Token(i + 1)
	}
	return toks
}

// fakeServer sets up this test binary as a fake llama-server in mode and
// returns its path and the folder where each start leaves its arguments.
func fakeServer(t *testing.T, mode string) (path, dir string) {
	t.Helper()
	dir = t.TempDir()
	t.Setenv(envFakeServer, mode)
	t.Setenv(envFakeServerDir, dir)
	return os.Args[0], dir
}

// serversStarted returns the arguments of each start of the fake, after
// checking that none of its processes is left.
func serversStarted(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var args []string
	for _, e := range entries {
		pid, _ := strconv.Atoi(e.Name())
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("fake server %d is still there after the bench (kill 0: %v)", pid, err)
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		args = append(args, string(b))
	}
	return args
}

// fakeLoop is a loop mode that generates fakeTokens at a fixed speed.
func fakeLoop(mode string, ts float64, drafted, accepted int) serverRunner {
	return serverRunner{mode, func(ctx context.Context, w serverWorkload, rep int) (serverRun, error) {
		return serverRun{perSecond: ts, drafted: drafted, accepted: accepted, tokens: fakeTokens(8)}, nil
	}}
}

func testWorkloads() []serverWorkload {
	return []serverWorkload{
		{draftWorkload{name: "edit", prompt: []llama.Token{5, 6, 7}}, true, ""},
		{draftWorkload{name: "text", prompt: []llama.Token{8, 9}}, false, ""},
		{draftWorkload{name: "edit-call", prompt: []llama.Token{fakeDiverge, 6}}, true, ""},
		{draftWorkload{name: "edit-call-grammar", prompt: []llama.Token{fakeGrammar, 6}}, true, fakeGBNF},
	}
}

func TestBenchServerHelp(t *testing.T) {
	path, _ := fakeServer(t, "serve")
	specs, version, err := serverHelp(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"ngram-simple", "ngram-mod"}, specs); diff != "" {
		t.Errorf("serverHelp spec types: (-want +got)\n%s", diff)
	}
	if want := "9.9.9 (build 1, commit fake)"; version != want {
		t.Errorf("serverHelp version = %q, want %q", version, want)
	}
}

func TestBenchServerTable(t *testing.T) {
	path, dir := fakeServer(t, "serve")
	f := benchFlags{nGen: 8, reps: 2, threads: 2, batch: 2048, ubatch: 512, flashAttn: "off", cacheK: "f16", cacheV: "f16"}
	f.model = "model.gguf"
	var progress bytes.Buffer
	rep := &serverReport{Path: path, SpecTypes: []string{"ngram-simple", "ngram-mod"}, Args: serverArgs(f, 512), progress: &progress}
	loop := []serverRunner{fakeLoop("loop", 30, 0, 0), fakeLoop("loop draft16", 64, 40, 30)}
	view := tokenView{
		detok: func(toks []llama.Token) string { return fmt.Sprint(toks) },
		margin: func(w serverWorkload, prefix []llama.Token, a, b llama.Token) (float64, error) {
			return float64(len(w.prompt)+len(prefix)) + float64(a-b)/1000, nil
		},
	}
	if err := runBesidePeers(context.Background(), rep, loop, testWorkloads(), f.reps, f.nGen, view); err != nil {
		t.Fatal(err)
	}
	// One peer per mode for the whole bench, and one per afresh run: the
	// warm-up and the two repetitions of each workload, with each n-gram
	// type.
	var specs []string
	for _, a := range serversStarted(t, dir) {
		if !strings.HasPrefix(a, "-m model.gguf -t 2 -tb 2 --host 127.0.0.1 -np 1 -c 512 ") {
			t.Errorf("a peer started with %q, want the model, threads and one slot", a)
		}
		spec := fakeFlag(strings.Fields(a), "--spec-type")
		if fakeFlag(strings.Fields(a), "--slot-save-path") != "" {
			spec += " afresh"
		}
		specs = append(specs, spec)
	}
	slices.Sort(specs)
	wantSpecs := []string{"", "ngram-mod"}
	for range 4 * 3 {
		wantSpecs = append(wantSpecs, "ngram-mod afresh")
	}
	wantSpecs = append(wantSpecs, "ngram-simple")
	for range 4 * 3 {
		wantSpecs = append(wantSpecs, "ngram-simple afresh")
	}
	if diff := cmp.Diff(wantSpecs, specs); diff != "" {
		t.Errorf("the peers' --spec-type: (-want +got)\n%s", diff)
	}
	// A peer kept for the bench drafts faster after its warm-up (the fake's
	// pool); one started afresh does not, and takes the prompt from the
	// slot its first run saved.
	yes, no := true, false
	var want []serverRow
	for _, w := range testWorkloads() {
		n := 2 * len(w.prompt)
		row := serverRow{Row: w.name, NPrompt: len(w.prompt), NGen: 8, Greedy: w.greedy, LoopBest: "loop draft16", PeerBest: "peer ngram-simple", Ratio: 64.0 / 42,
			AfreshLoop: "loop draft16", AfreshPeer: "peer ngram-simple afresh", AfreshRatio: 2, Modes: []serverMode{
				{Mode: "loop", Samples: []float64{30, 30}, AvgTS: 30},
				{Mode: "loop draft16", Samples: []float64{64, 64}, AvgTS: 64, Drafted: 80, Accepted: 60},
				{Mode: "peer", Samples: []float64{20, 20}, AvgTS: 20, CacheN: n},
				{Mode: "peer ngram-simple", Samples: []float64{42, 42}, AvgTS: 42, Drafted: 20, Accepted: 10, CacheN: n},
				{Mode: "peer ngram-mod", Samples: []float64{39, 39}, AvgTS: 39, Drafted: 20, Accepted: 10, CacheN: n},
				{Mode: "peer ngram-simple afresh", Samples: []float64{32, 32}, AvgTS: 32, Drafted: 20, Accepted: 10, CacheN: n},
				{Mode: "peer ngram-mod afresh", Samples: []float64{29, 29}, AvgTS: 29, Drafted: 20, Accepted: 10, CacheN: n},
			}}
		if w.greedy {
			for i := 1; i < len(row.Modes); i++ {
				row.Modes[i].SameTokens = &yes
			}
		}
		want = append(want, row)
	}
	at, margin := 2, float64(2+2)+float64(3-1000)/1000
	want[2].Modes[2].SameTokens, want[2].Modes[2].DiffersAt, want[2].Modes[2].Margin = &no, &at, &margin
	want[2].Diff = &serverDiff{At: 2, Peer: "[1000 4 5 6 7 8]", Loop: "[3 4 5 6 7 8]"}
	if diff := cmp.Diff(want, rep.Rows, cmpopts.IgnoreUnexported(serverMode{})); diff != "" {
		t.Errorf("runBesidePeers rows: (-want +got)\n%s", diff)
	}
	var out bytes.Buffer
	rep.print(&out)
	for _, line := range []string{
		"| edit      | peer ngram-simple         |     42.00 ± 0.00 |      20 / 10 (50%) | same as loop             |",
		"| edit      | peer ngram-simple afresh  |     32.00 ± 0.00 |      20 / 10 (50%) | same as loop             |",
		"| edit      | loop draft16              |     64.00 ± 0.00 |      80 / 60 (75%) | same as loop             |",
		"| edit      | loop                      |     30.00 ± 0.00 |                  - | greedy (reference)       |",
		"| text      | peer                      |     20.00 ± 0.00 |                  - | sampled                  |",
		"| edit-call | peer                      |     20.00 ± 0.00 |                  - | differ at 2, by 3.0030   |",
		"edit: loop draft16 / peer ngram-simple = 1.524x",
		"edit, each request afresh (no reply kept; a new peer each request): loop draft16 / peer ngram-simple afresh = 2.000x",
		"edit: the peer's greedy tokens are loop's, all 8",
		`edit-call: the peer's greedy tokens differ from loop's from token 2 of 8 (the peer is a newer llama.cpp, whose numerics can differ): peer "[1000 4 5 6 7 8]", loop "[3 4 5 6 7 8]"`,
	} {
		if !strings.Contains(out.String(), line) {
			t.Errorf("the table lacks %q:\n%s", line, out.String())
		}
	}
	// The progress holds each row as it ended: its modes, then its ratio,
	// before the next row's modes.
	prog, at := progress.String(), 0
	for _, line := range []string{"| edit      | loop                      |", "edit: loop draft16 / peer ngram-simple", "| text      | loop                      |", "text: loop draft16", "| edit-call | loop                      |"} {
		i := strings.Index(prog[at:], line)
		if i < 0 {
			t.Errorf("the progress lacks %q after byte %d:\n%s", line, at, prog)
			break
		}
		at += i
	}
	var buf bytes.Buffer
	if err := writeJSON(&buf, rep); err != nil || !strings.Contains(buf.String(), `"same_tokens_as_loop": false`) {
		t.Errorf("writeJSON(the report) = %v:\n%s", err, buf.String())
	}
}

// TestBenchServerStop checks that a peer that ignores SIGTERM is killed
// with its process group, and that a cancelled wait for a peer stops it.
func TestBenchServerStop(t *testing.T) {
	grace := serverStopGrace
	serverStopGrace = 100 * time.Millisecond
	t.Cleanup(func() { serverStopGrace = grace })
	path, dir := fakeServer(t, "stubborn")
	s, err := startServer(context.Background(), path, []string{"--host", "127.0.0.1"}, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.stop(); err != nil {
		t.Errorf("stop() = %v", err)
	}
	if err := s.stop(); err != nil {
		t.Errorf("a second stop() = %v", err)
	}
	if got := serversStarted(t, dir); len(got) != 1 {
		t.Errorf("the stubborn fake started %d times, want 1", len(got))
	}

	path, dir = fakeServer(t, "unready")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	if _, err := startServer(ctx, path, []string{"--host", "127.0.0.1"}, ""); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("startServer(a context that ends) = %v, want %v", err, context.DeadlineExceeded)
	}
	serversStarted(t, dir)
}

func TestBenchServerErrors(t *testing.T) {
	timeout := serverStartTimeout
	serverStartTimeout = 2 * time.Second
	t.Cleanup(func() { serverStartTimeout = timeout })
	missing := filepath.Join(t.TempDir(), "llama-server")
	f := benchFlags{nGen: 8}
	if err := checkServer(missing, &f); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("checkServer(%q) = %v, want an error naming it", missing, err)
	}
	if _, _, err := serverHelp(context.Background(), missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("serverHelp(%q) = %v, want an error naming it", missing, err)
	}
	if _, err := startServer(context.Background(), missing, nil, ""); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("startServer(%q) = %v, want an error naming it", missing, err)
	}
	for _, tc := range []struct {
		name, mode string
		want       []string
	}{
		{"exits at once", "exit", []string{"exited before it was ready", "failed to load model"}},
		{"never ready", "unready", []string{"no 200 from", "/health in 2s"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path, dir := fakeServer(t, tc.mode)
			rep := &serverReport{Path: path, Args: []string{"--host", "127.0.0.1"}}
			err := runBesidePeers(context.Background(), rep, nil, testWorkloads(), 1, 8, tokenView{})
			if err == nil || !strings.Contains(err.Error(), path) {
				t.Fatalf("runBesidePeers(a fake that %s) = %v, want an error naming %s", tc.name, err, path)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("runBesidePeers(a fake that %s) = %v, want it to say %q", tc.name, err, w)
				}
			}
			if got := serversStarted(t, dir); len(got) != 1 {
				t.Errorf("the fake started %d times, want 1", len(got))
			}
		})
	}
}

// TestBenchServerPause checks that a paused peer is stopped (state T)
// until it is resumed, that a run resumes it and pauses it again, also
// after a pause longer than it keeps an idle connection, and that
// stopping a paused peer ends it with SIGTERM, not with the SIGKILL after
// the grace.
func TestBenchServerPause(t *testing.T) {
	path, dir := fakeServer(t, "serve")
	s, err := startServer(context.Background(), path, []string{"--host", "127.0.0.1"}, "")
	if err != nil {
		t.Fatal(err)
	}
	defer serversStarted(t, dir)
	defer s.stop()
	state := func() string {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", s.cmd.Process.Pid))
		if err != nil {
			t.Fatal(err)
		}
		// pid (comm) STATE ...: comm may hold spaces, the state follows its ')'.
		f := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		return f[0]
	}
	if err := s.pause(); err != nil {
		t.Fatal(err)
	}
	if got := waitState(state, "T"); got != "T" {
		t.Errorf("state after pause() = %s, want T", got)
	}
	if err := s.resume(); err != nil {
		t.Fatal(err)
	}
	if got := waitState(state, "S", "R"); got == "T" {
		t.Errorf("state after resume() = %s, want running or sleeping", got)
	}
	// A run after a pause longer than the peer keeps an idle connection.
	run := s.runner(4)
	w := testWorkloads()[0]
	for i := range 2 {
		if _, err := run(context.Background(), w, i); err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		time.Sleep(4 * fakeIdle)
	}
	if got := state(); got != "T" {
		t.Errorf("state after a run = %s, want T (paused again)", got)
	}
	if err := s.stop(); err != nil {
		t.Errorf("stop() of a paused peer = %v", err)
	}
	var exit *exec.ExitError
	if errors.As(s.err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() && ws.Signal() == syscall.SIGKILL {
			t.Errorf("a paused peer was killed after the grace (%v), not stopped by SIGTERM", s.err)
		}
	}
	if err := s.pause(); err == nil {
		t.Error("pause() of a peer that exited = nil, want an error")
	}
}

// waitState polls state until it returns one of want, for a second at
// most, and returns the last state seen: a signal is delivered
// asynchronously.
func waitState(state func() string, want ...string) string {
	var got string
	for range 100 {
		if got = state(); slices.Contains(want, got) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	return got
}

// TestLoopRunnerKeep runs one greedy workload twice in each of loop's
// drafting modes: the kept mode's second run drafts from its first reply
// (one engine.Pace per row), the afresh mode's does not, and both write
// the tokens of plain decoding.
func TestLoopRunnerKeep(t *testing.T) {
	m, err := llama.LoadModel(context.Background(), testmodels.Path(t, testmodels.TinyQwen15F32), llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	prompt, err := m.Tokenize("<|im_start|>user\nWrite a haiku about the sea.<|im_end|>\n<|im_start|>assistant\n", false, true)
	if err != nil {
		t.Fatal(err)
	}
	f := benchFlags{threads: 1}
	slot, _, done, err := f.greedySlot(m, 512)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	eog := eogBias(m)
	w := serverWorkload{draftWorkload{"w", prompt, func(int) (*llama.Sampler, error) { return newChain(m, eog, llama.NewGreedy()) }, nil, nil}, true, ""}
	plain, err := loopRunner("loop", slot, 0, 64, false).run(context.Background(), w, 0)
	if err != nil {
		t.Fatal(err)
	}
	var second [2]serverRun
	for i, keep := range []bool{false, true} {
		r := loopRunner("loop draft16", slot, 16, 64, keep)
		for rep := -1; rep < 1; rep++ {
			if second[i], err = r.run(context.Background(), w, rep); err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(second[i].tokens, plain.tokens) {
				t.Errorf("keep %v, run %d: the tokens differ from plain decoding's", keep, rep)
			}
		}
	}
	if second[1].accepted < len(plain.tokens)/2 || second[1].accepted <= second[0].accepted {
		t.Errorf("the second run took %d of %d tokens from drafts kept, %d afresh; want at least half, and more than afresh",
			second[1].accepted, len(plain.tokens), second[0].accepted)
	}
}

// TestServerRowCompareAfresh checks the two comparisons a row prints: the
// best of all modes on each side, and the best of those that keep nothing
// from one request to the next (loop's modes without "kept", the peer's
// "afresh" ones), even where a keeping mode is faster on its side.
func TestServerRowCompareAfresh(t *testing.T) {
	r := serverRow{Row: "text", Modes: []serverMode{
		{Mode: "loop", AvgTS: 30},
		{Mode: "loop draft16", AvgTS: 50},
		{Mode: "loop draft16 kept", AvgTS: 90},
		{Mode: "peer", AvgTS: 20},
		{Mode: "peer ngram-mod", AvgTS: 60},
		{Mode: "peer ngram-mod afresh", AvgTS: 25},
	}}
	if err := r.compare(serverWorkload{}, tokenView{}); err != nil {
		t.Fatal(err)
	}
	got := [][3]any{{r.LoopBest, r.PeerBest, r.Ratio}, {r.AfreshLoop, r.AfreshPeer, r.AfreshRatio}}
	want := [][3]any{{"loop draft16 kept", "peer ngram-mod", 1.5}, {"loop draft16", "peer ngram-mod afresh", 2.0}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("best modes and ratios, all and afresh: (-want +got)\n%s", diff)
	}
}
