package llama_test

import (
	"bytes"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// childEnv names the test that a child process runs.
const childEnv = "LOOP_TEST_CHILD"

// childResult is what a child process printed.
type childResult struct {
	stdout, stderr string
}

// inChild runs body in a child process: this test binary again, running
// only the current test. A test of a crash runs the crashing call there,
// so that a regression fails the test with the child's output instead of
// killing the whole suite. In the child, inChild runs body and returns
// false; in the parent it returns true with what the child printed, after
// failing the test if the child did not exit cleanly.
func inChild(t *testing.T, body func(t *testing.T)) (childResult, bool) {
	t.Helper()
	if os.Getenv(childEnv) == t.Name() {
		body(t)
		return childResult{}, false
	}
	parts := strings.Split(t.Name(), "/")
	for i, p := range parts {
		parts[i] = "^" + regexp.QuoteMeta(p) + "$"
	}
	cmd := exec.Command(os.Args[0], "-test.run="+strings.Join(parts, "/"), "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), childEnv+"="+t.Name())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	res := childResult{stdout.String(), stderr.String()}
	if err != nil {
		t.Fatalf("the child process failed (%v)\nstdout:\n%s\nstderr:\n%s", err, tail(res.stdout), tail(res.stderr))
	}
	if !strings.Contains(res.stdout, "--- PASS") {
		t.Fatalf("the child process ran no test:\n%s", tail(res.stdout))
	}
	return res, true
}

func tail(s string) string {
	if len(s) > 4000 {
		return "..." + s[len(s)-4000:]
	}
	return s
}
