package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/session"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/internal/testmodels"
)

// BenchmarkWarmResume is the warm-resume table: a session on the bench
// model whose every step is a call (a logit bias on <tool_call>), stopped
// after step 5 of 10, then continued with `loop run --continue`, cold
// (--no-kv-state) and warm (the KV state saved at the end of step 5). It
// reports, for the first resumed step, cache_n and the prompt's tokens,
// the time to its first token (from the request's start, as --timings
// shows it) and the time the restore took before it (restore_ms: reading
// and checking the file, llama_state_seq_set_data).
//
//	go test ./cmd/loop -run '^$' -bench WarmResume -benchtime 3x
func BenchmarkWarmResume(b *testing.B) {
	b.Setenv("XDG_CONFIG_HOME", b.TempDir())
	b.Setenv("LOOP_SESSIONS", b.TempDir())
	ws := b.TempDir()
	for name, text := range map[string]string{
		"calc.go":      "package calc\n\n// Add returns a + b.\nfunc Add(a, b int) int { return a - b }\n\n// Sub returns a - b.\nfunc Sub(a, b int) int { return a - b }\n",
		"calc_test.go": "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif Add(2, 3) != 5 {\n\t\tt.Fatal(\"Add(2, 3) != 5\")\n\t}\n}\n",
		"go.mod":       "module calc\n\ngo 1.22\n",
	} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	common := []string{"-m", testmodels.Path(b, testmodels.BenchQwen2Q8), "-C", ws, "-c", "8192", "-t", strconv.Itoa(testmodels.BenchThreads()),
		"--reasoning", "off", "--seed", "1", "--no-subagent", "--no-loop-guard", "--retries", "20", "--max-tokens", "64",
		"--logit-bias", "'<tool_call>'+20", "--logit-bias", `'"'+20`, "--json"}
	first := benchRun(b, append(common, "--max-steps", "5", "fix Add in calc.go"))
	st, err := session.Open("", ws)
	if err != nil {
		b.Fatal(err)
	}
	s, err := st.Find(first.session)
	if err != nil {
		b.Fatal(err)
	}
	saved := filepath.Join(b.TempDir(), "saved")
	copyDir(b, s.Dir, saved)
	for _, mode := range []string{"cold", "warm"} {
		b.Run(mode, func(b *testing.B) {
			var sum benchResume
			n := 0
			for b.Loop() {
				b.StopTimer()
				os.RemoveAll(s.Dir)
				copyDir(b, saved, s.Dir)
				args := append(common, "--continue", "--max-steps", "1", "--max-tokens", "8")
				if mode == "cold" {
					args = append(args, "--no-kv-state")
				}
				b.StartTimer()
				r := benchRun(b, args)
				sum.add(r)
				n++
			}
			b.ReportMetric(float64(sum.cacheN)/float64(n), "cache_n")
			b.ReportMetric(float64(sum.prompt)/float64(n), "prompt_tokens")
			b.ReportMetric(sum.ttftMs/float64(n), "ttft_ms")
			b.ReportMetric(sum.restoreMs/float64(n), "restore_ms")
		})
	}
}

// benchResume is what one resumed run measured.
type benchResume struct {
	session           string
	cacheN, prompt    int
	ttftMs, restoreMs float64
}

func (r *benchResume) add(o benchResume) {
	r.cacheN += o.cacheN
	r.prompt += o.prompt
	r.ttftMs += o.ttftMs
	r.restoreMs += o.restoreMs
}

// benchRun runs loop run and reads its first reply's figures from the
// transcript.
func benchRun(b *testing.B, args []string) benchResume {
	b.Helper()
	path := filepath.Join(b.TempDir(), "run.jsonl")
	var stdout, stderr bytes.Buffer
	code := run(context.Background(), append([]string{"run", "--transcript", path}, args...), &stdout, &stderr)
	if code != 4 {
		b.Fatalf("loop run: exit %d, want 4 (step limit)\n%s", code, stderr.String())
	}
	events, err := readTranscript(path)
	if err != nil {
		b.Fatal(err)
	}
	var r benchResume
	replies := 0
	for _, e := range events {
		switch e.Kind {
		case transcript.KindSession:
			r.session, r.restoreMs = e.Session, e.Ms
		case transcript.KindReply:
			if replies++; replies == 1 {
				var u model.Usage
				json.Unmarshal(e.Usage, &u)
				r.cacheN, r.prompt, r.ttftMs = u.CacheN, u.PromptTokens, u.FirstTokenMs
			}
		}
	}
	return r
}
