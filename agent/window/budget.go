package window

import (
	"fmt"
	"io"

	"github.com/loopagent/loop/internal/decimal"
)

// Budget splits a context window, in tokens:
//
//	history = window - (system + tools + instructions + repo map) - reserve
//
// The fixed parts are paid on every request; the reserve is kept free for
// the reply; what is left is the room for the conversation.
type Budget struct {
	Window       int `json:"window"`
	System       int `json:"system"`
	Tools        int `json:"tools"`
	Instructions int `json:"instructions"`
	RepoMap      int `json:"repo_map"`
	Reserve      int `json:"reserve"`
}

// Parts are the fixed parts of a request as text, to be counted with the
// model's tokenizer. Tools is the tool definitions as the template
// renders them (the lead renders the prompt with and without tools and
// counts the difference when the template spreads them out).
type Parts struct {
	System, Tools, Instructions, RepoMap string
}

// NewBudget counts the fixed parts with c and takes the reserve from
// ReserveFor(window).
func NewBudget(window int, c Counter, p Parts) Budget {
	return Budget{
		Window:       window,
		System:       c.Count(p.System),
		Tools:        c.Count(p.Tools),
		Instructions: c.Count(p.Instructions),
		RepoMap:      c.Count(p.RepoMap),
		Reserve:      ReserveFor(window),
	}
}

// Fixed is the sum of the fixed parts.
func (b Budget) Fixed() int { return b.System + b.Tools + b.Instructions + b.RepoMap }

// History is what is left for the conversation.
func (b Budget) History() int { return b.Window - b.Fixed() - b.Reserve }

// HistoryShare is History as a percentage of the window.
func (b Budget) HistoryShare() float64 {
	if b.Window == 0 {
		return 0
	}
	return 100 * float64(b.History()) / float64(b.Window)
}

// Steps is how many whole steps of stepCost tokens (one call plus its
// result) fit in the history.
func (b Budget) Steps(stepCost int) int {
	if stepCost <= 0 || b.History() <= 0 {
		return 0
	}
	return b.History() / stepCost
}

// WriteBudgets prints budgets as a table, a row per budget, with the
// agent steps the history holds at stepCost tokens each.
func WriteBudgets(w io.Writer, budgets []Budget, stepCost int) error {
	if _, err := fmt.Fprintln(w, "window  fixed  reserve  history  history%  steps"); err != nil {
		return err
	}
	for _, b := range budgets {
		_, err := fmt.Fprintf(w, "%6d  %5d  %7d  %7d  %7s%%  %5d\n",
			b.Window, b.Fixed(), b.Reserve, b.History(), decimal.Fixed(b.HistoryShare(), 1), b.Steps(stepCost))
		if err != nil {
			return err
		}
	}
	return nil
}
