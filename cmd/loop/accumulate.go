package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loopagent/loop/agent/callformat"
	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/validate"
)

// maxStreamLine is the longest line of an event stream accumulate reads.
const maxStreamLine = 16 << 20

// runAccumulate is `loop accumulate`: a chat-completions event stream
// (llama-server's with "stream": true, or `loop chat --sse`) joined as a
// client joins it: the pieces of each call by index, the arguments parsed
// only once the stream has ended.
func runAccumulate(_ context.Context, args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("accumulate", stderr)
	tools := fs.String("tools", "", "tools JSON file (OpenAI form): validate the joined calls against them")
	if err := parse(fs, args); err != nil {
		return err
	}
	name := "standard input"
	var in io.Reader = os.Stdin
	switch {
	case fs.NArg() > 1:
		return usagef("give one stream file, or none (or -) for standard input")
	case fs.NArg() == 1 && fs.Arg(0) != "-":
		name = fs.Arg(0)
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		in = f
	}
	var defs []chat.Tool
	if *tools != "" {
		b, err := os.ReadFile(*tools)
		if err != nil {
			return err
		}
		if defs, err = chat.ParseTools(b); err != nil {
			return fmt.Errorf("%s: %w", *tools, err)
		}
	}
	acc, err := readStream(in, name)
	if err != nil {
		return err
	}
	r := acc.Done()
	bad := printJoined(stdout, r)
	if *tools != "" {
		v, err := validate.New(defs)
		if err != nil {
			return fmt.Errorf("%s: %w", *tools, err)
		}
		viol := v.Validate(validate.Reply{FinishReason: r.FinishReason, Calls: r.ToolCalls()})
		for _, x := range viol {
			fmt.Fprintf(stdout, "violation: %s\n", x)
		}
		bad += len(viol)
	}
	if !r.Done {
		return fmt.Errorf("%s: the stream ended without data: [DONE]", name)
	}
	if bad > 0 {
		return fmt.Errorf("%s: %d problems with the joined calls", name, bad)
	}
	return nil
}

// printJoined prints what a stream joined to, as a client sees it, and
// returns how many calls' arguments do not parse.
func printJoined(w io.Writer, r callformat.Accumulated) int {
	fmt.Fprintf(w, "chunks before [DONE]: %d, finish_reason: %s\n", r.Chunks, orNull(r.FinishReason))
	if r.Reasoning != "" {
		fmt.Fprintf(w, "reasoning: %q\n", r.Reasoning)
	}
	if r.Content != "" {
		fmt.Fprintf(w, "content: %q\n", r.Content)
	}
	bad := 0
	for _, c := range r.Calls {
		fmt.Fprintf(w, "call %d: id=%s name=%s argument pieces=%d\n", c.Index, orNull(c.ID), orNull(c.Name), c.Pieces)
		var b bytes.Buffer
		if err := json.Compact(&b, []byte(c.Arguments)); err != nil {
			fmt.Fprintf(w, "  joined arguments do not parse: %v: %q\n", err, c.Arguments)
			bad++
			continue
		}
		fmt.Fprintf(w, "  joined arguments parse to %s\n", b.String())
	}
	return bad
}

// readStream adds each data line of an event stream to an accumulator,
// up to data: [DONE]. Comments, blank lines and other fields are skipped.
func readStream(in io.Reader, name string) (*callformat.Accumulator, error) {
	var acc callformat.Accumulator
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxStreamLine)
	for line := 1; sc.Scan(); line++ {
		data, ok := strings.CutPrefix(strings.TrimRight(sc.Text(), "\r"), "data:")
		if !ok {
			continue
		}
		if err := acc.Add([]byte(strings.TrimSpace(data))); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if acc.Ended() {
			return &acc, nil
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s: a line longer than %d bytes", name, maxStreamLine)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &acc, nil
}

// orNull prints an absent value as a JSON client does.
func orNull(s string) string {
	if s == "" {
		return "null"
	}
	return s
}
