package window

import (
	"fmt"
	"io"
	"strconv"
)

// ScaledTrigger is loop's compaction trigger, scaled to the window: keep
// ReserveFor(window) for the reply and compact at 80 percent of the rest,
// (window - reserve) x 0.8, rounded down. It is positive for every window.
func ScaledTrigger(window int) int { return (window - ReserveFor(window)) * 4 / 5 }

// PiTrigger is Pi 0.73.1's rule: compact above window - 16,384 tokens
// (reserveTokens). It is negative, so always, for windows up to 16K.
func PiTrigger(window int) int { return window - 16_384 }

// CrushTrigger is Crush v0.97.1's rule: compact when the tokens left fall
// to 20 percent of the window, or to 20,000 above 200,000-token windows.
func CrushTrigger(window int) int {
	if window > 200_000 {
		return window - 20_000
	}
	return window - window/5
}

// OpenHands is the OpenHands SDK 1.51.0 LLMSummarizingCondenser's event
// count rule: condense above MaxSize events to half of it, keeping the
// first KeepFirst events and one summary event.
type OpenHands struct {
	MaxSize, KeepFirst int
}

// DefaultOpenHands are the condenser's defaults.
var DefaultOpenHands = OpenHands{MaxSize: 240, KeepFirst: 2}

// KeepLast is the number of newest events kept.
func (o OpenHands) KeepLast() int { return o.MaxSize/2 - o.KeepFirst - 1 }

// Kept is the number of events after condensing.
func (o OpenHands) Kept() int { return o.KeepFirst + 1 + o.KeepLast() }

// WriteTriggers prints the token triggers above (loop's, Pi's, Crush's)
// for each window, then the OpenHands event rule.
func WriteTriggers(w io.Writer, windows []int, oh OpenHands) error {
	show := func(t int) string {
		if t <= 0 {
			return "always"
		}
		return strconv.Itoa(t)
	}
	if _, err := fmt.Fprintln(w, "window   pi       crush    scaled"); err != nil {
		return err
	}
	for _, win := range windows {
		_, err := fmt.Fprintf(w, "%-8d %-8s %-8s %s\n", win, show(PiTrigger(win)), show(CrushTrigger(win)), show(ScaledTrigger(win)))
		if err != nil {
			return err
		}
	}
	_, err := fmt.Fprintf(w, "openhands: condense above %d events, keep first %d, summary 1, keep last %d -> %d events\n",
		oh.MaxSize, oh.KeepFirst, oh.KeepLast(), oh.Kept())
	return err
}
