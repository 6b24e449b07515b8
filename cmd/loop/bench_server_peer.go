package main

// The peer's side of loop bench --vs-server: a llama-server started on a
// loopback port in its own process group, asked for its n-gram types,
// sent the same prompt tokens through /completion, and stopped on every
// path.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/loopagent/loop/llama"
)

// serverStartTimeout is how long a peer has to answer GET /health with
// 200; serverStopGrace is how long it has to exit on SIGTERM before its
// process group is killed.
var (
	serverStartTimeout = 120 * time.Second
	serverStopGrace    = 5 * time.Second
)

// peerClient sends the bench's requests to the peers, each on a
// connection of its own: a peer paused longer than its keep-alive timeout
// closes an idle connection as it resumes, under a request sent on it.
var peerClient = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}

// serverHelp returns the n-gram types that path's --help lists for
// --spec-type, and what its --version prints.
func serverHelp(ctx context.Context, path string) (specs []string, version string, err error) {
	help, err := serverOutput(ctx, path, "--help")
	if err != nil {
		return nil, "", err
	}
	for line := range strings.Lines(help) {
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[0] != "--spec-type" {
			continue
		}
		for t := range strings.SplitSeq(fields[1], ",") {
			if strings.HasPrefix(t, "ngram-") && !slices.Contains(specs, t) {
				specs = append(specs, t)
			}
		}
	}
	out, err := serverOutput(ctx, path, "--version")
	if err != nil {
		return nil, "", err
	}
	for line := range strings.Lines(out) {
		if v, ok := strings.CutPrefix(line, "version: "); ok {
			version = strings.TrimSpace(v)
		}
	}
	return specs, version, nil
}

// serverOutput runs path with one flag and returns its stdout and stderr.
func serverOutput(ctx context.Context, path, flag string) (string, error) {
	var out bytes.Buffer
	cmd := exec.CommandContext(ctx, path, flag)
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", path, flag, err, lastLines(out.String(), 3))
	}
	return out.String(), nil
}

// serverArgs are the flags that give the peer loop's model, threads,
// batch sizes, attention and KV cache, one slot of nCtx tokens.
func serverArgs(f benchFlags, nCtx int) []string {
	th := strconv.Itoa(f.threads)
	args := []string{"-m", f.model, "-t", th, "-tb", th, "--host", "127.0.0.1", "-np", "1", "-c", strconv.Itoa(nCtx),
		"-b", strconv.Itoa(f.batch), "-ub", strconv.Itoa(f.ubatch), "-fa", f.flashAttn, "-ctk", f.cacheK, "-ctv", f.cacheV}
	switch {
	case f.gpuLayers < 0:
		args = append(args, "-ngl", "all")
	case f.gpuLayers > 0:
		args = append(args, "-ngl", strconv.Itoa(f.gpuLayers))
	}
	if f.noMmap {
		args = append(args, "--no-mmap")
	}
	return args
}

// peerServer is a running llama-server, in its own process group.
type peerServer struct {
	path     string
	url      string
	cmd      *exec.Cmd
	log      *syncBuffer
	exited   chan struct{} // closed when the process has been waited for
	err      error         // what Wait returned, once exited is closed
	stopOnce sync.Once
	stopErr  error
}

// startServer starts path with args and --spec-type spec (none: "") on a
// free loopback port and waits until it is ready. A port taken between
// the pick and the bind is picked again, twice at most.
func startServer(ctx context.Context, path string, args []string, spec string) (*peerServer, error) {
	for attempt := 0; ; attempt++ {
		port, err := freePort()
		if err != nil {
			return nil, fmt.Errorf("a free port for %s: %w", path, err)
		}
		a := append(slices.Clip(args), "--port", strconv.Itoa(port))
		if spec != "" {
			a = append(a, "--spec-type", spec)
		}
		s, err := startServerOn(ctx, path, a, port)
		taken := err != nil && (strings.Contains(err.Error(), "couldn't bind") || strings.Contains(err.Error(), "address already in use"))
		if !taken || attempt == 2 {
			return s, err
		}
	}
}

func startServerOn(ctx context.Context, path string, args []string, port int) (*peerServer, error) {
	s := &peerServer{path: path, url: fmt.Sprintf("http://127.0.0.1:%d", port), log: &syncBuffer{}, exited: make(chan struct{})}
	s.cmd = exec.Command(path, args...)
	s.cmd.Stdout, s.cmd.Stderr = s.log, s.log
	// Its own group, so that a stop reaches whatever it started; and
	// killed with loop, should loop die without stopping it.
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := s.cmd.Start(); err != nil {
		return nil, fmt.Errorf("start %s: %w", path, err)
	}
	go func() { s.err = s.cmd.Wait(); close(s.exited) }()
	if err := s.waitHealthy(ctx); err != nil {
		s.stop()
		return nil, err
	}
	return s, nil
}

// waitHealthy polls GET /health until it answers 200, the process exits,
// ctx is done or serverStartTimeout passes.
func (s *peerServer) waitHealthy(ctx context.Context) error {
	deadline := time.NewTimer(serverStartTimeout)
	defer deadline.Stop()
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-s.exited:
			return fmt.Errorf("%s exited before it was ready (%v): %s", s.path, s.err, lastLines(s.log.String(), 5))
		case <-deadline.C:
			return fmt.Errorf("%s: no 200 from %s/health in %v: %s", s.path, s.url, serverStartTimeout, lastLines(s.log.String(), 5))
		case <-tick.C:
			req, err := http.NewRequestWithContext(ctx, "GET", s.url+"/health", nil)
			if err != nil {
				return err
			}
			if resp, err := peerClient.Do(req); err == nil {
				resp.Body.Close()
				if resp.StatusCode == http.StatusOK {
					return nil
				}
			}
		}
	}
}

// serverCompletion is the part of a /completion answer the bench reads.
type serverCompletion struct {
	Tokens  []llama.Token `json:"tokens"`
	Timings struct {
		CacheN             int     `json:"cache_n"`
		PredictedN         int     `json:"predicted_n"`
		PredictedPerSecond float64 `json:"predicted_per_second"`
		DraftN             int     `json:"draft_n"`
		DraftAccepted      int     `json:"draft_n_accepted"`
	} `json:"timings"`
}

// runner generates n tokens after a workload's prompt tokens: greedy, or
// at temperature 1 alone with the repetition's seed, from its prompt cache
// after the warm-up (only decoding is timed; prefilling the prompt again in
// every run would only make the bench longer), end-of-generation ignored,
// as loop's chains keep it out.
// The server runs only for its own request: it is resumed before it and
// paused after it.
func (s *peerServer) runner(n int) func(ctx context.Context, w serverWorkload, rep int) (serverRun, error) {
	return func(ctx context.Context, w serverWorkload, rep int) (_ serverRun, err error) {
		if err := s.resume(); err != nil {
			return serverRun{}, err
		}
		defer func() {
			if perr := s.pause(); err == nil {
				err = perr
			}
		}()
		req := map[string]any{"prompt": w.prompt, "n_predict": n, "cache_prompt": true, "ignore_eos": true, "return_tokens": true}
		if w.gbnf != "" {
			req["grammar"] = w.gbnf
		}
		if w.greedy {
			req["temperature"] = 0
		} else {
			req["temperature"], req["samplers"], req["seed"] = 1, []string{"temperature"}, textSeed+rep+1
		}
		c, err := s.complete(ctx, req)
		if err != nil {
			return serverRun{}, err
		}
		if c.Timings.PredictedN != n {
			return serverRun{}, fmt.Errorf("%s /completion: %d tokens predicted, want %d", s.path, c.Timings.PredictedN, n)
		}
		t := c.Timings
		return serverRun{perSecond: t.PredictedPerSecond, drafted: t.DraftN, accepted: t.DraftAccepted, cacheN: t.CacheN, tokens: c.Tokens}, nil
	}
}

// afreshRunner runs each request of its mode ("peer T afresh") in a
// llama-server started for it with --spec-type spec and stopped after it,
// so that no n-gram pool the peer keeps across requests (ngram-mod's is
// shared by all of its slots) holds an earlier run's reply: what one
// request of an agent's, never sent before, gets from speculation. So
// that each run is not also a prefill of the whole prompt, the first run
// of a workload saves the slot's cache in slots (--slot-save-path) and
// the later ones restore it before their request; the pools are not part
// of a slot's file.
func afreshRunner(path string, args []string, spec, slots string, n int) serverRunner {
	return serverRunner{"peer " + spec + " afresh", func(ctx context.Context, w serverWorkload, rep int) (_ serverRun, err error) {
		s, err := startServer(ctx, path, append(slices.Clip(args), "--slot-save-path", slots), spec)
		if err != nil {
			return serverRun{}, err
		}
		defer func() {
			if serr := s.stop(); err == nil {
				err = serr
			}
		}()
		file := w.name + ".bin"
		_, statErr := os.Stat(filepath.Join(slots, file))
		saved := statErr == nil
		if saved {
			if err := s.slot(ctx, "restore", file); err != nil {
				return serverRun{}, err
			}
		}
		run, err := s.runner(n)(ctx, w, rep)
		if err != nil || saved {
			return run, err
		}
		if err := s.resume(); err != nil {
			return serverRun{}, err
		}
		return run, s.slot(ctx, "save", file)
	}}
}

// slot saves or restores (action) slot 0's cache as file in the folder
// of --slot-save-path.
func (s *peerServer) slot(ctx context.Context, action, file string) error {
	_, err := s.post(ctx, "/slots/0?action="+action, map[string]any{"filename": file})
	return err
}

func (s *peerServer) complete(ctx context.Context, req map[string]any) (*serverCompletion, error) {
	data, err := s.post(ctx, "/completion", req)
	if err != nil {
		return nil, err
	}
	var c serverCompletion
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s /completion: %w", s.path, err)
	}
	return &c, nil
}

// post sends req as JSON to the server's endpoint and returns the body of
// a 200 answer.
func (s *peerServer) post(ctx context.Context, endpoint string, req map[string]any) ([]byte, error) {
	body, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	hreq, err := http.NewRequestWithContext(ctx, "POST", s.url+endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	hreq.Header.Set("Content-Type", "application/json")
	resp, err := peerClient.Do(hreq)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w: %s", s.path, endpoint, err, lastLines(s.log.String(), 3))
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("%s %s: %w", s.path, endpoint, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s %s: %s: %s", s.path, endpoint, resp.Status, lastLines(string(data), 3))
	}
	return data, nil
}

// pause stops the server's process group with SIGSTOP, and resume lets
// it go on with SIGCONT. A peer waits paused while the other modes run:
// an idle llama-server's threads still take CPU time from the mode being
// timed, on a machine with as many cores as threads. A paused server
// keeps its prompt cache.
func (s *peerServer) pause() error  { return s.signal(syscall.SIGSTOP) }
func (s *peerServer) resume() error { return s.signal(syscall.SIGCONT) }

func (s *peerServer) signal(sig syscall.Signal) error {
	select {
	case <-s.exited:
		return fmt.Errorf("%s exited (%v): %s", s.path, s.err, lastLines(s.log.String(), 5))
	default:
	}
	if err := syscall.Kill(-s.cmd.Process.Pid, sig); err != nil {
		return fmt.Errorf("%v to %s: %w", sig, s.path, err)
	}
	return nil
}

// stop sends SIGTERM to the server's process group, SIGKILL after
// serverStopGrace, and waits for the server. Only the first call acts. A
// paused server is resumed first, so that it can exit on SIGTERM.
func (s *peerServer) stop() error {
	s.stopOnce.Do(func() {
		pgid := s.cmd.Process.Pid
		syscall.Kill(-pgid, syscall.SIGCONT)
		syscall.Kill(-pgid, syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(serverStopGrace):
			syscall.Kill(-pgid, syscall.SIGKILL)
			<-s.exited
		}
		// What is left of the group (the server's own children) goes too.
		syscall.Kill(-pgid, syscall.SIGKILL)
		// A server that exits on SIGTERM reports an exit status or the
		// signal; either is the stop asked for.
		var exit *exec.ExitError
		if s.err != nil && !errors.As(s.err, &exit) {
			s.stopErr = fmt.Errorf("stop %s: %w", s.path, s.err)
		}
	})
	return s.stopErr
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// syncBuffer is a bytes.Buffer that a process writes while the bench
// reads it.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}
