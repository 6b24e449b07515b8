package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/transcript"
)

// runSinks are the renderings of a run's events: the transcript file, and
// the terminal view or JSON lines on stdout.
type runSinks struct {
	multi transcript.Multi
	term  *termView
	file  *transcript.Writer
	path  string
	times *timingTable // --timings
}

func (f *runFlags) sinks(stdout, stderr io.Writer) (*runSinks, error) {
	s := &runSinks{path: f.transcript}
	if s.path == "" {
		s.path = transcriptPath()
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o755); err != nil {
		return nil, err
	}
	w, err := transcript.Create(s.path)
	if err != nil {
		return nil, err
	}
	s.file = w
	s.multi = transcript.Multi{w}
	if f.jsonOut {
		s.multi = append(s.multi, transcript.NewWriter(stdout))
	} else {
		s.term = &termView{w: stdout, color: colorOK(stdout)}
		s.multi = append(s.multi, s.term)
	}
	if f.timings {
		s.times = &timingTable{}
		s.multi = append(s.multi, s.times)
	}
	return s, nil
}

func (s *runSinks) close(stderr io.Writer) {
	if s.times != nil {
		s.times.print(stderr)
	}
	if err := s.file.Close(); err != nil {
		fmt.Fprintf(stderr, "loop run: transcript %s: %v\n", s.path, err)
		return
	}
	fmt.Fprintf(stderr, "transcript: %s\n", s.path)
}

// colorOK reports whether w is a terminal that may show colours: never
// with NO_COLOR set.
func colorOK(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// termView renders a run for a person: the model's text as it streams,
// each call as soon as its name arrives, results in a line or two, notes
// and the outcome line.
type termView struct {
	w       io.Writer
	color   bool
	midLine bool
}

const (
	dim, bold, red, green, yellow, reset = "\033[2m", "\033[1m", "\033[31m", "\033[32m", "\033[33m", "\033[0m"
)

func (v *termView) paint(code, s string) string {
	if !v.color {
		return s
	}
	return code + s + reset
}

func (v *termView) write(s string) {
	io.WriteString(v.w, s)
	v.midLine = !strings.HasSuffix(s, "\n")
}

func (v *termView) newline() {
	if v.midLine {
		v.write("\n")
	}
}

// delta streams the model's reply.
func (v *termView) delta(step int, d chat.Delta) {
	switch {
	case d.Content != "":
		v.write(d.Content)
	case d.Reasoning != "":
		v.write(v.paint(dim, d.Reasoning))
	case d.Call != nil && d.Call.Name != "":
		v.newline()
		v.write(v.paint(bold, "→ "+d.Call.Name) + " ")
	case d.Call != nil:
		v.write(v.paint(dim, d.Call.Arguments))
	}
}

// Emit renders the events a person needs.
func (v *termView) Emit(e transcript.Event) {
	switch e.Kind {
	case transcript.KindRequest:
		v.newline()
		v.write(v.paint(dim, fmt.Sprintf("── step %d (tool_choice %s)\n", e.Step, e.ToolChoice)))
	case transcript.KindRepair:
		v.newline()
		v.write(v.paint(yellow, fmt.Sprintf("  repaired (%s) %v\n", e.Reason, e.Repairs)))
	case transcript.KindRejected:
		v.newline()
		v.write(v.paint(yellow, fmt.Sprintf("  not run (%s): %s\n", e.Reason, firstLine(e.Text))))
	case transcript.KindResult:
		v.newline()
		mark := v.paint(green, "  ✓ ")
		if e.IsError {
			mark = v.paint(red, "  ✗ ")
		}
		v.write(mark + summary(e.Result) + "\n")
	case transcript.KindNote:
		v.newline()
		v.write(v.paint(yellow, "  note: "+firstLine(e.Text)+"\n"))
	case transcript.KindCompact:
		v.newline()
		v.write(v.paint(dim, "── context compacted: "+e.Detail+"\n"))
	case transcript.KindOutcome:
		v.newline()
		v.write(v.paint(bold, e.Detail) + "\n")
	}
}

// summary is a result in one line: its first line and its size.
func summary(s string) string {
	lines := strings.Count(s, "\n") + 1
	first := firstLine(s)
	if lines > 1 {
		return fmt.Sprintf("%s … (%d lines)", first, lines)
	}
	return first
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}
