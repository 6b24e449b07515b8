package eval

import (
	"os"
	"testing"

	"github.com/loopagent/loop/agent/sandbox"
)

// TestMain lets this test binary be the sandbox's supervisor of the
// commands its tests run.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
