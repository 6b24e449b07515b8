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
// task the transcript recorded, in the workspace given with -C.
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
	file, err := os.Open(fs.Arg(0))
	if err != nil {
		return err
	}
	events, err := transcript.Read(file)
	file.Close()
	if err != nil {
		return err
	}
	task := ""
	for _, e := range events {
		if e.Kind == transcript.KindTask {
			task = e.Task
			break
		}
	}
	texts, finish := transcript.Replies(events)
	if task == "" || len(texts) == 0 {
		return fmt.Errorf("%s: no task or no replies to replay", fs.Arg(0))
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
