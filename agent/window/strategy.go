package window

import (
	"fmt"
	"io"
)

// Search says how the agent searches code: through a subagent, whose
// search output never enters the main history, or with direct grep calls.
type Search string

const (
	SearchSubagent Search = "subagent"
	SearchDirect   Search = "direct"
)

// Strategy is the set of settings derived from a context window's size.
// Each field comes from one rule, stated on the field; Plan computes them.
// They are starting points for measurement, not constants.
type Strategy struct {
	// Window is the context window in tokens.
	Window int `json:"window"`
	// Reserve is kept for the reply: an eighth of the window, at least
	// 1,024 tokens (ReserveFor).
	Reserve int `json:"reserve"`
	// ToolCap is the largest tool result in characters: a sixteenth of
	// the window in tokens at 3 characters per token.
	ToolCap int `json:"tool_cap"`
	// ReadLines is the read tool's default line limit: ToolCap at about 40
	// characters per source line.
	ReadLines int `json:"read_lines"`
	// RepoMap is the repository map's token budget: none below 16K, then
	// RepoMapTokens (a sixteenth of the window, at most 1,024).
	RepoMap int `json:"repo_map"`
	// KeepRecent is the history kept verbatim after a compaction: a
	// quarter of the window, in tokens.
	KeepRecent int `json:"keep_recent"`
	// CompactAt is the scaled trigger (ScaledTrigger): compact when the
	// prompt passes (window - reserve) x 0.8 tokens.
	CompactAt int `json:"compact_at"`
	// Search is by subagent up to 16K, direct above.
	Search Search `json:"search"`
}

const (
	// CharsPerToolToken is the conservative ratio for tool output.
	CharsPerToolToken = 3
	// CharsPerLine is the assumed length of a source line.
	CharsPerLine = 40
	// MapMinWindow is the smallest window that gets a repository map.
	MapMinWindow = 16_384
	// SubagentMaxWindow is the largest window that searches by subagent.
	SubagentMaxWindow = 16_384
)

// Plan derives the strategy for a window.
func Plan(window int) Strategy {
	s := Strategy{
		Window:     window,
		Reserve:    ReserveFor(window),
		ToolCap:    window / 16 * CharsPerToolToken,
		KeepRecent: window / 4,
		CompactAt:  ScaledTrigger(window),
		Search:     SearchDirect,
	}
	s.ReadLines = s.ToolCap / CharsPerLine
	if window >= MapMinWindow {
		s.RepoMap = RepoMapTokens(window)
	}
	if window <= SubagentMaxWindow {
		s.Search = SearchSubagent
	}
	return s
}

// ReserveFor is the reply reserve of a window: max(1024, window / 8).
func ReserveFor(window int) int { return max(1024, window/8) }

// RepoMapTokens is the repository map's share of a window:
// min(1024, window / 16), Aider's default at most.
func RepoMapTokens(window int) int { return min(1024, window/16) }

// WriteStrategies prints strategies as a table, a row per window, as
// `loop context-plan` shows them.
func WriteStrategies(w io.Writer, plans []Strategy) error {
	if _, err := fmt.Fprintln(w, "window  reserve  tool-cap  read-lines  repo-map  keep-recent  compact-at  search"); err != nil {
		return err
	}
	for _, s := range plans {
		_, err := fmt.Fprintf(w, "%6d  %7d  %8d  %10d  %8d  %11d  %10d  %s\n",
			s.Window, s.Reserve, s.ToolCap, s.ReadLines, s.RepoMap, s.KeepRecent, s.CompactAt, s.Search)
		if err != nil {
			return err
		}
	}
	return nil
}
