package main

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/transcript"
)

// timingTable collects, per step, the prompt cache figures and where the
// step's time went, for `loop run --timings`.
type timingTable struct {
	rows []timingRow
}

type timingRow struct {
	step   int
	usage  model.Usage
	timing transcript.StepTiming
}

// Emit takes the reply's usage and the step's timing.
func (t *timingTable) Emit(e transcript.Event) {
	switch e.Kind {
	case transcript.KindReply:
		var u model.Usage
		if json.Unmarshal(e.Usage, &u) == nil {
			t.rows = append(t.rows, timingRow{step: e.Step, usage: u})
		}
	case transcript.KindTiming:
		if n := len(t.rows); n > 0 && t.rows[n-1].step == e.Step && e.Timing != nil {
			t.rows[n-1].timing = *e.Timing
		}
	}
}

// print writes the table: one row per step and a total. The agent's own
// share is its time (client work, checks and the rest, without the
// tools) over the model's.
func (t *timingTable) print(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "step\tprompt\tcache_n\tprompt_n\tgen\tttft ms\tprefill ms\tdecode ms\trender\ttokenize\tgrammar\tparse\tvalidate\tcheck\ttools\tother\tagent/model\t")
	var sum timingRow
	for _, r := range t.rows {
		t.row(tw, fmt.Sprint(r.step), r)
		sum.add(r)
	}
	if len(t.rows) > 1 {
		t.row(tw, "all", sum)
	}
	tw.Flush()
}

func (t *timingTable) row(w io.Writer, label string, r timingRow) {
	u, s := r.usage, r.timing
	share := 0.0
	if s.ModelMs > 0 {
		share = s.AgentMs() / s.ModelMs * 100
	}
	fmt.Fprintf(w, "%s\t%d\t%d\t%d\t%d\t%.0f\t%.0f\t%.0f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.2f\t%.1f\t%.2f\t%.2f%%\t\n",
		label, u.PromptTokens, u.CacheN, u.PromptN, u.CompletionTokens, u.FirstTokenMs, u.PromptMs, u.PredictedMs,
		u.RenderMs, u.TokenizeMs, u.GrammarMs, u.ParseMs, u.ValidateMs, s.CheckMs, s.ToolsMs, s.OtherMs, share)
}

func (r *timingRow) add(o timingRow) {
	u, v := &r.usage, o.usage
	u.PromptTokens += v.PromptTokens
	u.CacheN += v.CacheN
	u.PromptN += v.PromptN
	u.CompletionTokens += v.CompletionTokens
	u.FirstTokenMs += v.FirstTokenMs
	u.PromptMs += v.PromptMs
	u.PredictedMs += v.PredictedMs
	u.RenderMs += v.RenderMs
	u.TokenizeMs += v.TokenizeMs
	u.GrammarMs += v.GrammarMs
	u.ParseMs += v.ParseMs
	u.ValidateMs += v.ValidateMs
	s, t := &r.timing, o.timing
	s.StepMs += t.StepMs
	s.ModelMs += t.ModelMs
	s.ClientMs += t.ClientMs
	s.CheckMs += t.CheckMs
	s.ToolsMs += t.ToolsMs
	s.OtherMs += t.OtherMs
}
