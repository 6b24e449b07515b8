package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/internal/testmodels"
)

// writeFiles writes path -> text under dir.
func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// requests are a transcript's request events.
func requests(t *testing.T, path string) []transcript.Event {
	t.Helper()
	var out []transcript.Event
	for _, e := range readEvents(t, path) {
		if e.Kind == transcript.KindRequest {
			out = append(out, e)
		}
	}
	if len(out) == 0 {
		t.Fatalf("%s: no request event", path)
	}
	return out
}

// sampling decodes a request event's resolved sampling.
func sampling(t *testing.T, e transcript.Event) model.Resolved {
	t.Helper()
	var r model.Resolved
	if err := json.Unmarshal(e.Sampling, &r); err != nil {
		t.Fatalf("request event of step %d: sampling %s: %v", e.Step, e.Sampling, err)
	}
	return r
}

// evalSuite writes a suite of one scenario, with the workspace files,
// and returns its directory.
func evalSuite(t *testing.T, task string, files map[string]string, replies []string) string {
	t.Helper()
	suite := filepath.Join(t.TempDir(), "suite")
	writeFiles(t, filepath.Join(suite, "one", "workspace"), files)
	sc := map[string]any{"name": "one", "task": task}
	if replies != nil {
		sc["replies"] = replies
	}
	b, err := json.Marshal(sc)
	if err != nil {
		t.Fatal(err)
	}
	writeFiles(t, filepath.Join(suite, "one"), map[string]string{"scenario.json": string(b)})
	return suite
}

// firstEvalRequest runs loop eval with args on a suite and returns the
// request events of its one run.
func evalRequests(t *testing.T, args ...string) []transcript.Event {
	t.Helper()
	dir := t.TempDir()
	code, stdout, stderr := runLoop(t, append([]string{"eval", "--config", "full", "--transcripts", dir}, args...)...)
	if code != 0 {
		t.Fatalf("loop eval: exit %d\n%s\n%s", code, stdout, stderr)
	}
	runs, err := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if err != nil || len(runs) != 1 {
		t.Fatalf("loop eval wrote %v (%v); want one transcript", runs, err)
	}
	return requests(t, runs[0])
}

// TestRunAndEvalSendTheSameRequest: loop run and loop eval build their
// agent with the same constructor, so that for the same task, workspace
// and settings their first requests are the same, byte for byte: system
// prompt with the instruction files, tools, tool choice, limits,
// sampling. A setting that differs changes the digest.
func TestRunAndEvalSendTheSameRequest(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	files := map[string]string{
		"AGENTS.md": "Run go vet before the tests.",
		"calc.go":   "package calc\n\nfunc Add(a, b int) int { return a - b }\n",
		"go.mod":    "module calc\n\ngo 1.22\n",
	}
	const task = "fix Add in calc.go"
	replies := []string{"Add looks right to me."}
	evalReqs := evalRequests(t, "--suite", evalSuite(t, task, files, replies))

	runFirst := func(args ...string) transcript.Event {
		ws := t.TempDir()
		writeFiles(t, ws, files)
		script := writeScript(t, t.TempDir(), replies...)
		path := filepath.Join(t.TempDir(), "run.jsonl")
		runLoop(t, append([]string{"run", "-C", ws, "--script", script, "--seed", "0", "--json", "--transcript", path}, append(args, task)...)...)
		return requests(t, path)[0]
	}
	run := runFirst()
	if run.Digest == "" || run.Digest != evalReqs[0].Digest {
		t.Errorf("first request digests: loop run %q, loop eval %q; want equal", run.Digest, evalReqs[0].Digest)
	}
	if other := runFirst("--no-context-files"); other.Digest == run.Digest {
		t.Errorf("loop run --no-context-files sent the same first request as with AGENTS.md")
	}
}

// TestModelSamplingKeys: a model whose GGUF recommends a temperature and
// a top-k gets them in loop run and loop eval: answers take both, calls
// take the top-k under the tool-call preset's temperature, and a --temp
// flag wins over all. Both offer the task tool, as the model forks.
func TestModelSamplingKeys(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	m := testmodels.WithMetadata(t, testmodels.TinyQwen3F16, map[string]any{
		"general.sampling.temp": float32(0.9), "general.sampling.top_k": int32(17)})
	files := map[string]string{"notes.txt": "nothing to do\n"}
	const task = "say hello"
	common := []string{"-m", m, "-c", "4096", "-t", "2", "--max-tokens", "1"}
	runFirst := func(args ...string) model.Resolved {
		ws := t.TempDir()
		writeFiles(t, ws, files)
		path := filepath.Join(t.TempDir(), "run.jsonl")
		args = append(append([]string{"run", "-C", ws, "--max-steps", "1", "--json", "--transcript", path}, common...), append(args, task)...)
		runLoop(t, args...)
		first := requests(t, path)[0]
		if !slices.Contains(first.Tools, "task") {
			t.Errorf("loop run offers %v; want the task tool on a model that forks at a 4K window", first.Tools)
		}
		return sampling(t, first)
	}
	check := func(name string, r model.Resolved, answerTemp, callTemp float32) {
		t.Helper()
		if r.Answer.Temperature != answerTemp || r.Answer.TopK != 17 {
			t.Errorf("%s: answers temp %v, top_k %d; want %v, 17", name, r.Answer.Temperature, r.Answer.TopK, answerTemp)
		}
		if r.Call == nil || r.Call.Temperature != callTemp || r.Call.TopK != 17 {
			t.Errorf("%s: calls %+v; want temp %v, top_k 17", name, r.Call, callTemp)
		}
	}
	check("loop run", runFirst(), 0.9, 0.2)
	check("loop run --temp 0.5", runFirst("--temp", "0.5"), 0.5, 0.5)
	suite := evalSuite(t, task, files, nil)
	evalFirst := func(config string) model.Resolved {
		t.Helper()
		file := filepath.Join(t.TempDir(), "config.json")
		writeFiles(t, filepath.Dir(file), map[string]string{"config.json": config})
		dir := t.TempDir()
		args := []string{"eval", "--suite", suite, "--config", file, "--transcripts", dir, "-m", m, "-c", "4096", "-t", "2"}
		if code, out, errOut := runLoop(t, args...); code != 0 {
			t.Fatalf("loop eval --config %s: exit %d\n%s\n%s", config, code, out, errOut)
		}
		runs, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
		if len(runs) != 1 {
			t.Fatalf("loop eval wrote %v; want one transcript", runs)
		}
		first := requests(t, runs[0])[0]
		if !slices.Contains(first.Tools, "task") {
			t.Errorf("loop eval offers %v; want the task tool, as loop run", first.Tools)
		}
		return sampling(t, first)
	}
	check("loop eval", evalFirst(`{"name": "full", "max_steps": 1, "max_tokens": 1}`), 0.9, 0.2)
	check("loop eval, temperature 0.5", evalFirst(`{"name": "full", "max_steps": 1, "max_tokens": 1, "temperature": 0.5}`), 0.5, 0.5)
}

// TestLiveRun runs loop run on a random-weight model for ten steps: the
// logit bias on <tool_call> makes every reply a call and the one on '"'
// keeps strings short, the grammar makes each call well-formed, and the
// loop guard and the retry limit are off so that the run goes to its
// step limit. Every call gets an id of its own, every result answers a
// call made before it, and every request event records the sampling the
// model resolved.
func TestLiveRun(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n"})
	path := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, stderr := runLoop(t, "run", "-m", testmodels.Path(t, testmodels.TinyQwen3F16), "-C", ws, "-c", "4096", "-t", "2",
		"--max-steps", "10", "--max-tokens", "64", "--reasoning", "off", "--seed", "1", "--no-subagent", "--no-loop-guard",
		"--retries", "20", "--logit-bias", "'<tool_call>'+20", "--logit-bias", `'"'+20`, "--json", "--transcript", path,
		"fix Add in calc.go")
	if code != 4 {
		t.Fatalf("loop run: exit %d, want 4 (step limit)\n%s", code, stderr)
	}
	events := readEvents(t, path)
	reqs, ids, results := 0, map[string]int{}, 0
	for _, e := range events {
		switch e.Kind {
		case transcript.KindRequest:
			reqs++
			r := sampling(t, e)
			if r.Answer.Seed != 1 || r.Answer.Temperature != 0.7 || r.Call == nil || r.Call.Temperature != 0.2 {
				t.Errorf("step %d: sampling %s; want seed 1, answers at 0.7 and calls at 0.2", e.Step, e.Sampling)
			}
		case transcript.KindCall:
			if prev, dup := ids[e.Call.ID]; dup || e.Call.ID == "" {
				t.Errorf("step %d: call id %q, already used at step %d", e.Step, e.Call.ID, prev)
			}
			ids[e.Call.ID] = e.Step
		case transcript.KindResult:
			results++
			if _, ok := ids[e.Call.ID]; !ok {
				t.Errorf("step %d: a result for call id %q, which no call has", e.Step, e.Call.ID)
			}
		}
	}
	if reqs != 10 || len(ids) < 5 || results != len(ids) {
		t.Errorf("%d requests, %d calls, %d results; want 10 requests and a result for each of at least 5 calls", reqs, len(ids), results)
	}
	t.Logf("%d requests, %d calls with distinct ids: %s", reqs, len(ids), strconv.Itoa(len(ids)))
}

// TestQuestionTools: loop run on a question that asks for no change offers
// no tool that writes files, and its first request is smaller by their
// definitions (the prompt tokens the model's tokenizer counts); a task
// that asks for a change, or --all-tools, offers every tool.
func TestQuestionTools(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n"})
	first := func(task string, extra ...string) transcript.Event {
		t.Helper()
		path := filepath.Join(t.TempDir(), "run.jsonl")
		args := append([]string{"run", "-m", testmodels.Path(t, testmodels.TinyQwen3F16), "-C", ws, "-c", "4096", "-t", "2",
			"--max-steps", "1", "--max-tokens", "8", "--reasoning", "off", "--seed", "1", "--no-subagent", "--json", "--transcript", path}, extra...)
		runLoop(t, append(args, task)...)
		for _, e := range readEvents(t, path) {
			if e.Kind == transcript.KindRequest {
				return e
			}
		}
		t.Fatalf("loop run %q: no request", task)
		return transcript.Event{}
	}
	question := first("What does Add in calc.go return?")
	all := first("What does Add in calc.go return?", "--all-tools")
	change := first("fix Add in calc.go")
	if slices.Contains(question.Tools, "edit_file") || slices.Contains(question.Tools, "write_file") || !slices.Contains(question.Tools, "read_file") {
		t.Errorf("a question is offered %v, want read_file and no tool that writes files", question.Tools)
	}
	for _, e := range []transcript.Event{all, change} {
		if !slices.Contains(e.Tools, "edit_file") || !slices.Contains(e.Tools, "write_file") {
			t.Errorf("offered %v, want every tool", e.Tools)
		}
	}
	if question.PromptTokens <= 0 || question.PromptTokens >= all.PromptTokens {
		t.Errorf("prompt tokens: question %d, with every tool %d; want fewer for the question", question.PromptTokens, all.PromptTokens)
	}
	t.Logf("first request: %d prompt tokens with %v, %d with every tool (%d saved)", question.PromptTokens, question.Tools, all.PromptTokens, all.PromptTokens-question.PromptTokens)
}
