package loop_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
)

// blockingModel streams a little, then waits for its context, as a model
// in the middle of a long generation does when Ctrl-C comes.
type blockingModel struct{ started chan struct{} }

func (m blockingModel) Complete(ctx context.Context, req model.Request) (*model.Response, error) {
	if req.OnDelta != nil {
		req.OnDelta(callformat.Delta{Content: "Let me think"})
	}
	close(m.started)
	<-ctx.Done()
	return &model.Response{Text: "Let me think", FinishReason: "length"}, ctx.Err()
}

// TestCancel stops a run with its context (what the first Ctrl-C does):
// during generation, and during a shell command whose child must die with
// it. Both runs end "cancelled", exit code 130.
func TestCancel(t *testing.T) {
	t.Run("during generation", func(t *testing.T) {
		ws, _ := tools.NewWorkspace(t.TempDir(), tools.Config{})
		m := blockingModel{started: make(chan struct{})}
		a, err := loop.New(m, loop.Settings{ToolSet: tools.Default(), Workspace: ws, NoContext: true})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() { <-m.started; cancel() }()
		out := a.Run(ctx, "say something")
		if out.Kind != loop.Cancelled || out.Kind.ExitCode() != 130 || !errors.Is(out.Err, context.Canceled) {
			t.Errorf("outcome %s (%v), want cancelled", out, out.Err)
		}
	})
	t.Run("during a command", func(t *testing.T) {
		dir := t.TempDir()
		pidFile := filepath.Join(dir, "pid")
		script, _ := model.NewScript("hermes", []model.Reply{{Text: call(`{"name": "shell", "arguments": {"command": "sleep 300 & echo $! > pid; wait"}}`)}})
		ws, _ := tools.NewWorkspace(dir, tools.Config{Policy: tools.Policy{Yes: true}})
		a, err := loop.New(script, loop.Settings{ToolSet: tools.Default(), Workspace: ws, Guards: loop.Guards{NoForce: true}, NoContext: true})
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithCancel(context.Background())
		go func() {
			for range 200 {
				if _, err := os.Stat(pidFile); err == nil {
					break
				}
				time.Sleep(10 * time.Millisecond)
			}
			cancel()
		}()
		start := time.Now()
		out := a.Run(ctx, "wait a while")
		if out.Kind != loop.Cancelled {
			t.Errorf("outcome %s, want cancelled", out)
		}
		if time.Since(start) > time.Minute {
			t.Errorf("the run waited for the command instead of stopping it")
		}
		pid, _ := os.ReadFile(pidFile)
		if p := strings.TrimSpace(string(pid)); p != "" {
			// SIGKILL lands asynchronously: give the kernel a moment.
			alive := func() bool {
				stat, err := os.ReadFile("/proc/" + p + "/stat")
				return err == nil && !strings.Contains(string(stat), ") Z ")
			}
			for i := 0; i < 100 && alive(); i++ {
				time.Sleep(20 * time.Millisecond)
			}
			if alive() {
				t.Errorf("the command's child %s still runs after the cancel", p)
			}
		}
	})
}
