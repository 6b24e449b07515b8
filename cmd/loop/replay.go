package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/sampler"
)

// runReplay is `loop replay FILE`: it runs a transcript's raw model outputs
// again, as a scripted model, through today's parser and loop, on the
// task the transcript recorded, in the workspace given with -C. It
// replays one run: a file with two tasks (an interactive session, or runs
// that shared a file) is refused.
func runReplay(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f runFlags
	fs := newFlagSet("replay", stderr)
	f.registerAll(fs)
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usagef("give one transcript file")
	}
	if err := f.validate(); err != nil {
		return err
	}
	events, err := readTranscript(fs.Arg(0))
	if err != nil {
		return err
	}
	task, err := oneRun(fs.Arg(0), events)
	if err != nil {
		return err
	}
	texts, finish := transcript.Replies(events)
	if len(texts) == 0 {
		return fmt.Errorf("%s: no replies to replay", fs.Arg(0))
	}
	replies := make([]model.Reply, len(texts))
	for i := range texts {
		replies[i] = model.Reply{Text: texts[i], FinishReason: finish[i]}
	}
	format := f.format
	if format == "" {
		format = "hermes"
	}
	script, err := model.NewScript(format, replies)
	if err != nil {
		return err
	}
	a, sinks, err := f.agent(script, sampler.Overrides{}, stdout, stderr)
	if err != nil {
		return err
	}
	defer sinks.close(stderr)
	return outcomeError(a.Run(ctx, task))
}

// readTranscript reads the events of the transcript file at path.
func readTranscript(path string) ([]transcript.Event, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	events, err := transcript.Read(file)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return events, nil
}

// oneRun returns the task of a transcript that holds one run: one task
// event and at most one outcome. Replies of two runs in one file would be
// replayed as one run's, to an outcome neither run had.
func oneRun(path string, events []transcript.Event) (string, error) {
	var tasks []string
	outcomes := 0
	for _, e := range events {
		switch e.Kind {
		case transcript.KindTask:
			tasks = append(tasks, e.Task)
		case transcript.KindOutcome:
			outcomes++
		}
	}
	switch {
	case len(tasks) > 1 || outcomes > 1:
		return "", fmt.Errorf("%s: the events of more than one run (tasks: %d, outcomes: %d), from an interactive session or runs that shared the file; loop replay replays one run", path, len(tasks), outcomes)
	case len(tasks) == 0 || tasks[0] == "":
		return "", fmt.Errorf("%s: no task to replay", path)
	}
	return tasks[0], nil
}
