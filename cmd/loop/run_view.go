package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/transcript"
	"github.com/loopagent/loop/internal/termtext"
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
	w, path, err := openTranscript(f.transcript)
	if err != nil {
		return nil, err
	}
	s := &runSinks{file: w, path: path, multi: transcript.Multi{w}}
	if f.jsonOut {
		s.multi = append(s.multi, transcript.NewWriter(stdout))
	} else {
		s.term = &termView{w: stdout, color: colorOK(stdout)}
		if f.sandbox.spec.Off {
			s.term.outcomeNote = "; sandbox off"
		}
		s.multi = append(s.multi, s.term)
	}
	if f.timings {
		s.times = &timingTable{}
		s.multi = append(s.multi, s.times)
	}
	return s, nil
}

// openTranscript creates the run's transcript: the file --transcript
// names, or a new one in the user cache directory. Either is created
// exclusively (transcript.Create), so two runs never share a file and a
// run never appends to an older one's: an explicit file that exists is
// refused (no caller in scripts/ or the Makefile relies on appending), and
// a default name that exists, which its random suffix makes unlikely, is
// drawn again.
func openTranscript(explicit string) (*transcript.Writer, string, error) {
	if explicit != "" {
		if err := os.MkdirAll(filepath.Dir(explicit), 0o755); err != nil {
			return nil, "", err
		}
		w, err := transcript.Create(explicit)
		if errors.Is(err, fs.ErrExist) {
			return nil, "", errTranscriptExists(explicit)
		}
		return w, explicit, err
	}
	dir := transcriptDir()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", err
	}
	for range 10 {
		path := filepath.Join(dir, transcriptName(time.Now()))
		w, err := transcript.Create(path)
		if !errors.Is(err, fs.ErrExist) {
			return w, path, err
		}
	}
	return nil, "", fmt.Errorf("transcript: %s: no free name after 10 tries", dir)
}

// errTranscriptExists refuses --transcript FILE when FILE exists.
func errTranscriptExists(path string) error {
	return usagef("--transcript %s: the file exists; each run writes a new transcript, so name a new file or remove this one", path)
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
// and the outcome line. Everything it prints that came from a file, a
// command or the model goes through termtext first, so that escape
// sequences in a README or a reply never reach the terminal; the
// transcript keeps them.
type termView struct {
	w       io.Writer
	color   bool
	midLine bool
	// outcomeNote ends the outcome line: what the run ran without.
	outcomeNote string
	// The streams of the current reply, each cut anywhere by the deltas.
	content, reasoning, args termtext.Stripper
}

const (
	dim, bold, red, green, yellow, reset = "\033[2m", "\033[1m", "\033[31m", "\033[32m", "\033[33m", "\033[0m"
)

func (v *termView) paint(code, s string) string {
	if !v.color || s == "" {
		return s
	}
	return code + s + reset
}

func (v *termView) write(s string) {
	if s == "" {
		return
	}
	io.WriteString(v.w, s)
	v.midLine = !strings.HasSuffix(s, "\n")
}

func (v *termView) newline() {
	if v.midLine {
		v.write("\n")
	}
}

// line writes text on a line of its own, stripped, in colour code.
func (v *termView) line(code, text string) {
	v.newline()
	v.write(v.paint(code, termtext.Strip(text)) + "\n")
}

// delta streams the model's reply.
func (v *termView) delta(step int, d callformat.Delta) {
	switch {
	case d.Content != "":
		v.write(v.content.Next(d.Content))
	case d.Reasoning != "":
		v.write(v.paint(dim, v.reasoning.Next(d.Reasoning)))
	case d.Call != nil && d.Call.Name != "":
		v.write(v.paint(dim, v.args.Flush()))
		v.newline()
		v.write(v.paint(bold, "→ "+termtext.Strip(d.Call.Name)) + " ")
	case d.Call != nil:
		v.write(v.paint(dim, v.args.Next(d.Call.Arguments)))
	}
}

// endStreams ends the reply's streams: what a cut character left, and a
// sequence left open, go.
func (v *termView) endStreams() {
	v.write(v.content.Flush())
	v.write(v.paint(dim, v.reasoning.Flush()))
	v.write(v.paint(dim, v.args.Flush()))
}

// Emit renders the events a person needs.
func (v *termView) Emit(e transcript.Event) {
	v.endStreams()
	switch e.Kind {
	case transcript.KindRequest:
		v.line(dim, fmt.Sprintf("── step %d (tool_choice %s)", e.Step, e.ToolChoice))
	case transcript.KindRepair:
		v.line(yellow, fmt.Sprintf("  repaired (%s) %v", e.Reason, e.Repairs))
	case transcript.KindRejected:
		v.line(yellow, fmt.Sprintf("  not run (%s): %s", e.Reason, firstLine(e.Text)))
	case transcript.KindResult:
		mark := v.paint(green, "  ✓ ")
		if e.IsError {
			mark = v.paint(red, "  ✗ ")
		}
		v.newline()
		v.write(mark + summary(e.Result) + "\n")
	case transcript.KindNote:
		v.line(yellow, "  note: "+firstLine(e.Text))
	case transcript.KindCompact:
		v.line(dim, "── context compacted: "+e.Detail)
	case transcript.KindOutcome:
		v.line(bold, e.Detail+v.outcomeNote)
	}
}

// summary is a result in one line, stripped: its first line and its size.
func summary(s string) string {
	s = termtext.Strip(s)
	lines := strings.Count(s, "\n") + 1
	first := firstLine(s)
	if lines > 1 {
		return fmt.Sprintf("%s … (%d lines)", first, lines)
	}
	return first
}

// firstLine is the first line of s, stripped, in 120 bytes at most.
func firstLine(s string) string {
	s = strings.TrimSpace(termtext.Strip(s))
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 120 {
		cut := 117
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}
