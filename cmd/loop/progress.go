package main

import (
	"io"
	"time"

	"github.com/schollz/progressbar/v3"
)

// progressBar shows the progress of a long wait (a model load, a prefill)
// on the terminal with schollz/progressbar: only once the wait has lasted
// half a second, and never when w is not a terminal, so that short waits
// and logs stay clean.
type progressBar struct {
	w     io.Writer
	desc  string
	max   int
	start time.Time
	bar   *progressbar.ProgressBar
}

func newProgressBar(w io.Writer, desc string, max int) *progressBar {
	return &progressBar{w: w, desc: desc, max: max, start: time.Now()}
}

// set moves the bar to n of max.
func (p *progressBar) set(n int) {
	if p.bar == nil {
		if !colorOK(p.w) || time.Since(p.start) < 500*time.Millisecond {
			return
		}
		p.bar = progressbar.NewOptions(p.max, progressbar.OptionSetWriter(p.w), progressbar.OptionSetDescription(p.desc),
			progressbar.OptionShowCount(), progressbar.OptionSetWidth(30), progressbar.OptionClearOnFinish(),
			progressbar.OptionThrottle(100*time.Millisecond))
	}
	p.bar.Set(n)
}

// done ends the bar, clearing it.
func (p *progressBar) done() {
	if p.bar != nil {
		p.bar.Finish()
	}
}
