package main

import (
	"os"
	"testing"

	"github.com/loopagent/loop/agent/sandbox"
)

// envAsLoop makes this test binary run as loop itself (its main, with
// os.Args), so that a test can signal a real loop process.
const envAsLoop = "LOOP_TEST_AS_LOOP"

// TestMain lets this test binary be the sandbox's supervisor of the
// commands its tests run, and loop itself under envAsLoop.
func TestMain(m *testing.M) {
	if os.Getenv(envAsLoop) == "1" {
		os.Unsetenv(envAsLoop)
		main()
	}
	sandbox.Main()
	if os.Getenv("LOOP_SESSIONS") == "" {
		// Every loop run is a session: keep the tests' sessions and KV
		// states out of the user's cache.
		dir, err := os.MkdirTemp("", "loop-sessions-")
		if err != nil {
			panic(err)
		}
		os.Setenv("LOOP_SESSIONS", dir)
		code := m.Run()
		os.RemoveAll(dir)
		os.Exit(code)
	}
	os.Exit(m.Run())
}
