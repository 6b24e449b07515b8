package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/session"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/internal/testmodels"
)

// sessionRun is what a test reads back from one loop run.
type sessionRun struct {
	code           int
	stderr         string
	events         []transcript.Event
	session, note  string // the session event's id and reason
	firstMessages  int    // messages of the first request
	cacheN, prompt int    // the first reply's cache_n and prompt tokens
}

// runInSession runs loop run with args and reads its transcript.
func runInSession(t *testing.T, args ...string) sessionRun {
	t.Helper()
	path := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, stderr := runLoop(t, append([]string{"run", "--json", "--transcript", path}, args...)...)
	r := sessionRun{code: code, stderr: stderr, events: readEvents(t, path)}
	for _, e := range r.events {
		switch {
		case e.Kind == transcript.KindSession:
			r.session, r.note = e.Session, e.Reason
		case e.Kind == transcript.KindRequest && r.firstMessages == 0:
			r.firstMessages = e.Messages
		case e.Kind == transcript.KindReply && r.prompt == 0:
			var u model.Usage
			json.Unmarshal(e.Usage, &u)
			r.cacheN, r.prompt = u.CacheN, u.PromptTokens
		}
	}
	if r.session == "" {
		t.Fatalf("loop run %q: no session event; exit %d\n%s", args, code, stderr)
	}
	return r
}

// TestRunContinue: every run is a session; --continue goes on with the
// workspace's last one, --resume ID with a named one (its conversation
// is the first request's history), a run stopped at its step limit goes
// on by itself without a task, and loop sessions lists them.
func TestRunContinue(t *testing.T) {
	t.Setenv("LOOP_SESSIONS", t.TempDir())
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"pom.xml": "<project/>\n"})
	dir := t.TempDir()
	answer := writeScript(t, dir, "It declares a project.")
	read := writeScript(t, t.TempDir(), "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}\n</tool_call>", "It is empty.")
	a := runInSession(t, "-C", ws, "--script", answer, "what is pom.xml?")
	b := runInSession(t, "-C", ws, "--script", read, "--max-steps", "1", "read pom.xml")
	if a.session == b.session || a.firstMessages != 2 || b.code != 4 {
		t.Fatalf("two runs: sessions %s and %s, %d first messages, exit %d; want two new sessions, 2 messages, the step limit",
			a.session, b.session, a.firstMessages, b.code)
	}
	// b stopped at its step limit: without a task it goes on with the same one.
	b2 := runInSession(t, "-C", ws, "--script", writeScript(t, t.TempDir(), "It is empty."), "--continue")
	if b2.session != b.session || b2.firstMessages != 4 || b2.code != 0 || !strings.Contains(b2.stderr, "continued after 1 runs, 3 messages") {
		t.Errorf("--continue without a task: session %s, %d messages, exit %d; want %s, 4 messages (system, task, call, result), done\n%s",
			b2.session, b2.firstMessages, b2.code, b.session, b2.stderr)
	}
	if tasks := tasksOf(b2.events); len(tasks) != 1 || tasks[0] != "read pom.xml" {
		t.Errorf("the continued run's task events %q, want the stopped task", tasks)
	}
	a2 := runInSession(t, "-C", ws, "--script", answer, "--resume", a.session[:18], "and now?")
	if a2.session != a.session || a2.firstMessages != 4 {
		t.Errorf("--resume %s: session %s, %d messages; want %s and 4 (system, task, answer, new task)", a.session[:18], a2.session, a2.firstMessages, a.session)
	}

	code, out, errOut := runLoop(t, "sessions", "-C", ws)
	if code != 0 {
		t.Fatalf("loop sessions: exit %d\n%s", code, errOut)
	}
	want := []string{
		`^id +started +task +outcome +runs +steps +KV state +disk$`,
		`^` + a.session + ` +\d{4}-\d\d-\d\d \d\d:\d\d +what is pom.xml\? +done +2 +2 +- +\d+\.\d [KM]iB$`,
		`^` + b.session + ` +\d{4}-\d\d-\d\d \d\d:\d\d +read pom.xml +done +2 +2 +- +\d+\.\d [KM]iB$`,
		`^2 sessions in .+: KV states 0 B of the cap 2.0 GiB, all files \d+\.\d KiB$`,
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != len(want) {
		t.Fatalf("loop sessions printed %d lines, want %d:\n%s", len(lines), len(want), out)
	}
	for i, re := range want {
		if !regexp.MustCompile(re).MatchString(lines[i]) {
			t.Errorf("loop sessions line %d:\n%s\nwant %s", i+1, lines[i], re)
		}
	}
	_, out, _ = runLoop(t, "sessions", "-C", ws, "--json")
	var list struct {
		Sessions []session.Info `json:"sessions"`
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list.Sessions) != 2 || list.Sessions[1].Task != "read pom.xml" {
		t.Errorf("loop sessions --json: %v\n%s", err, out)
	}

	other := t.TempDir()
	if code, _, errOut := runLoop(t, "run", "-C", other, "--script", answer, "--continue", "x"); code != 1 || !strings.Contains(errOut, "no such session to continue") {
		t.Errorf("--continue in a workspace without sessions: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runLoop(t, "run", "-C", ws, "--script", answer, "--resume", "20990101", "x"); code != 1 || !strings.Contains(errOut, "no such session") {
		t.Errorf("--resume of an unknown id: exit %d\n%s", code, errOut)
	}
	if code, _, errOut := runLoop(t, "run", "-C", ws, "--script", answer, "--continue", "--resume", a.session, "x"); code != 2 {
		t.Errorf("--continue with --resume: exit %d, want 2\n%s", code, errOut)
	}
}

// TestRunWarmResume continues a session on the model that made it: the
// KV state saved at the end of the last step is restored, and the first
// request takes at least 90% of its prompt from the cache. A state of
// another model, a truncated one, and one whose blob llama.cpp refuses
// are ignored with a note: the run goes on cold.
func TestRunWarmResume(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	sessions := t.TempDir()
	t.Setenv("LOOP_SESSIONS", sessions)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"calc.go": "package calc\n\nfunc Add(a, b int) int { return a - b }\n"})
	m := testmodels.Path(t, testmodels.TinyQwen3F16)
	live := func(model string, args ...string) sessionRun {
		t.Helper()
		return runInSession(t, append([]string{"-m", model, "-C", ws, "-c", "4096", "-t", "2", "--max-steps", "1", "--max-tokens", "8",
			"--retries", "-1", "--reasoning", "off", "--seed", "1", "--no-subagent"}, args...)...)
	}
	first := live(m, "fix Add in calc.go")
	st, err := session.Open("", ws)
	if err != nil {
		t.Fatal(err)
	}
	s, err := st.Find(first.session)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.StatePath()); err != nil {
		t.Fatalf("no KV state after the first run: %v\n%s", err, first.stderr)
	}
	// Warm, then cold from the same point: the session as the first run
	// left it.
	saved := filepath.Join(t.TempDir(), "saved")
	copyDir(t, s.Dir, saved)
	warm := live(m, "--continue", "and Sub too")
	os.RemoveAll(s.Dir)
	copyDir(t, saved, s.Dir)
	cold := live(m, "--continue", "--no-kv-state", "and Sub too")
	if !strings.Contains(warm.note, "restored") || warm.cacheN*10 < warm.prompt*9 || cold.cacheN != 0 || cold.prompt != warm.prompt {
		t.Errorf("warm: %q, cache_n %d of %d; cold: %q, cache_n %d of %d; want at least 90%% from the cache warm, none cold",
			warm.note, warm.cacheN, warm.prompt, cold.note, cold.cacheN, cold.prompt)
	}
	t.Logf("first resumed request: cache_n %d of %d prompt tokens warm, %d cold", warm.cacheN, warm.prompt, cold.cacheN)
	good, err := os.ReadFile(s.StatePath())
	if err != nil {
		t.Fatal(err)
	}

	otherModel := testmodels.WithMetadata(t, testmodels.TinyQwen3F16, map[string]any{"test.variant": int32(2)})
	other := live(otherModel, "--continue", "again")
	checkIgnored(t, "another model", other, "made by another model")

	os.WriteFile(s.StatePath(), good[:len(good)/2], 0o600)
	checkIgnored(t, "a truncated state", live(m, "--continue", "again"), "not a whole KV state")

	// A state whose hash is right but whose blob llama.cpp cannot read,
	// as a hostile file would be: refused, never trusted.
	os.WriteFile(s.StatePath(), good, 0o600)
	h := stateHeader(t, good)
	kv, _, err := s.LoadState(h.StateKey)
	if err != nil {
		t.Fatal(err)
	}
	kv.Data = kv.Data[:len(kv.Data)/2]
	if err := s.SaveState(kv, 9); err != nil {
		t.Fatal(err)
	}
	checkIgnored(t, "a blob cut in half", live(m, "--continue", "again"), "could not restore")
	// And one whose tokens are fewer than the positions its blob holds.
	os.WriteFile(s.StatePath(), good, 0o600)
	kv, _, _ = s.LoadState(h.StateKey)
	kv.Tokens = kv.Tokens[:len(kv.Tokens)-1]
	if err := s.SaveState(kv, 9); err != nil {
		t.Fatal(err)
	}
	checkIgnored(t, "a token short", live(m, "--continue", "again"), "the state holds positions")
}

// checkIgnored checks that a run ignored the session's KV state with a
// note, ran cold, and ended as the first did.
func checkIgnored(t *testing.T, name string, r sessionRun, note string) {
	t.Helper()
	if !strings.Contains(r.note, "KV state ignored") || !strings.Contains(r.note, note) || r.cacheN != 0 || r.code != 6 {
		t.Errorf("%s: note %q, cache_n %d, exit %d; want the state ignored (%q), cache_n 0, exit 6 as before\n%s", name, r.note, r.cacheN, r.code, note, r.stderr)
	}
}

// stateHeader reads a state file's header line.
func stateHeader(t *testing.T, file []byte) session.StateHeader {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(string(file)))
	sc.Buffer(nil, 1<<20)
	sc.Scan()
	sc.Scan()
	var h session.StateHeader
	if err := json.Unmarshal(sc.Bytes(), &h); err != nil {
		t.Fatalf("state header %q: %v", sc.Text(), err)
	}
	return h
}

// copyDir copies the regular files of a directory into a new one.
func copyDir(t testing.TB, from, to string) {
	t.Helper()
	if err := os.MkdirAll(to, 0o700); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(from)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(from, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
}

// TestKilledSessionContinues kills `loop run` (SIGKILL) while its second
// step's command runs: the session keeps every step that ended, loop
// sessions shows it stopped, and --continue without a task goes on with
// the same task from the end of step 1.
func TestKilledSessionContinues(t *testing.T) {
	sessions := t.TempDir()
	t.Setenv("LOOP_SESSIONS", sessions)
	ws := t.TempDir()
	writeFiles(t, ws, map[string]string{"pom.xml": "<project/>\n"})
	script := writeScript(t, t.TempDir(),
		"<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}\n</tool_call>",
		"<tool_call>\n{\"name\": \"shell\", \"arguments\": {\"command\": \"sleep 60\"}}\n</tool_call>", "Done.")
	cmd := exec.Command(os.Args[0], "run", "--script", script, "--yes", "-C", ws, "--transcript", filepath.Join(t.TempDir(), "run.jsonl"), "read pom.xml")
	cmd.Env = append(os.Environ(), envAsLoop+"=1")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	st, _ := session.Open("", ws)
	calls := func() int {
		runs, _ := filepath.Glob(filepath.Join(st.Dir, "*", "*.jsonl"))
		n := 0
		for _, r := range runs {
			b, _ := os.ReadFile(r)
			n += strings.Count(string(b), `"kind":"call"`)
		}
		return n
	}
	if !waitFor(func() bool { return calls() == 2 }) {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the second call did not start\n%s", out.String())
	}
	cmd.Process.Kill()
	cmd.Wait()

	_, list, _ := runLoop(t, "sessions", "-C", ws)
	if !regexp.MustCompile(`read pom.xml +stopped +1 +1 `).MatchString(list) {
		t.Errorf("loop sessions after the kill:\n%s\nwant the session stopped after 1 step", list)
	}
	r := runInSession(t, "-C", ws, "--script", writeScript(t, t.TempDir(), "It is empty."), "--continue")
	if r.code != 0 || r.firstMessages != 4 || !strings.Contains(r.stderr, "continued after 1 runs, 3 messages") {
		t.Errorf("--continue after the kill: exit %d, %d messages; want done, and the system prompt, task, call and result\n%s", r.code, r.firstMessages, r.stderr)
	}
	if tasks := tasksOf(r.events); len(tasks) != 1 || tasks[0] != "read pom.xml" {
		t.Errorf("the continued run's tasks %q, want the killed run's", tasks)
	}
}
