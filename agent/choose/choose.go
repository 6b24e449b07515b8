// Package choose picks a model file for a local coding agent by facts
// rather than by reputation: hard constraints first (memory at the target
// context, trained context, a chat template that supports tools, a
// license the team accepts), then
// the survivors ranked by the lower bound of the 95% Wilson interval of
// their pass rate on the team's own eval suite (agent/eval), which
// rewards both a high rate and enough tasks to trust it.
//
// A Candidate's facts come from its GGUF file's metadata (ReadGGUF, pure
// Go) or, for an example, by hand:
//
//	c, err := choose.ReadGGUF("model.gguf")
//	c.Passed, c.Tasks = 31, 50 // from `loop eval`
//	verdicts := choose.Choose([]choose.Candidate{c}, choose.Constraints{BudgetGB: 12, Context: 32768})
//	choose.WriteTable(os.Stdout, verdicts, choose.Constraints{BudgetGB: 12, Context: 32768})
//
// A license is checked only when Constraints.Licenses lists the accepted
// ones: the file's general.license, or for "other" its
// general.license.name, must be one of them, compared without case
// ("apache-2.0" and "Apache-2.0" are one license). A file that names no
// license is rejected then, since nobody can say it may be used.
//
// The table WriteTable prints, and the default constraints, come from the
// project's specification (../shared/seeds, seed 000 Example 12); the
// tests compare with it.
package choose

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/loopagent/loop/agent/eval"
	"github.com/loopagent/loop/internal/decimal"
)

// Candidate is one model file and what is known about it.
type Candidate struct {
	// Name names it in the table: the file's name.
	Name string `json:"name"`
	// Params is the number of weights, and WeightBytes their size in the
	// file.
	Params      float64 `json:"params"`
	WeightBytes float64 `json:"weight_bytes"`
	// Layers, KVHeads, HeadDimK and HeadDimV shape the KV cache.
	Layers   int `json:"layers"`
	KVHeads  int `json:"kv_heads"`
	HeadDimK int `json:"head_dim_k"`
	HeadDimV int `json:"head_dim_v"`
	// TrainedContext is the context the model was trained for.
	TrainedContext int `json:"trained_context"`
	// Tools: the chat template renders tool definitions and tool calls
	// (chat.Caps' supports_tools and supports_tool_calls).
	Tools bool `json:"tools"`
	// Format is the call format detected from the template, when read
	// from a file.
	Format string `json:"format,omitempty"`
	// License is the file's general.license, an SPDX-style identifier
	// such as "apache-2.0", or "other"; LicenseName and LicenseLink are
	// general.license.name and general.license.link, which name an
	// "other" license and where to read it. "" means the file says none.
	License     string `json:"license,omitempty"`
	LicenseName string `json:"license_name,omitempty"`
	LicenseLink string `json:"license_link,omitempty"`
	// Passed of Tasks are its eval results; 0 Tasks means not measured.
	Passed int `json:"passed"`
	Tasks  int `json:"tasks"`
}

// Constraints are the machine's and the agent's hard limits. The zero
// value is a laptop-sized default: 12 GB, 32,768 tokens, an F16 KV cache.
type Constraints struct {
	// BudgetGB is the memory for the model, in GB of 10^9 bytes; 0 means 12.
	BudgetGB float64 `json:"budget_gb"`
	// Context is the agent's context in tokens; 0 means 32768.
	Context int `json:"context"`
	// KVType is the KV cache's type: "" or "f16", "bf16", "f32", "q8_0",
	// "q4_0".
	KVType string `json:"kv_type,omitempty"`
	// Licenses are the licenses the team accepts, by identifier or
	// name ("apache-2.0", "mit", "qwen-research"); nil accepts any
	// license and checks none.
	Licenses []string `json:"licenses,omitempty"`
}

func (c Constraints) budget() float64 {
	if c.BudgetGB == 0 {
		return 12
	}
	return c.BudgetGB
}

func (c Constraints) context() int {
	if c.Context == 0 {
		return 32768
	}
	return c.Context
}

// kvBytes are the bytes per cached element of each KV type (a q8_0 block
// is 32 values in 34 bytes, a q4_0 block 32 in 18).
var kvBytes = map[string]float64{"": 2, "f16": 2, "bf16": 2, "f32": 4, "q8_0": 34.0 / 32, "q4_0": 18.0 / 32}

// KVTypes lists the KV types Constraints accepts.
func KVTypes() []string { return []string{"f16", "bf16", "f32", "q8_0", "q4_0"} }

// Verdict is a candidate judged against the constraints.
type Verdict struct {
	Candidate Candidate `json:"candidate"`
	// WeightsGB + KVGB = TotalGB at the constraints' context.
	WeightsGB float64 `json:"weights_gb"`
	KVGB      float64 `json:"kv_gb"`
	TotalGB   float64 `json:"total_gb"`
	// Rejected is the first hard constraint it fails; "" means kept.
	Rejected string `json:"rejected,omitempty"`
	// Lower is the lower bound of the 95% Wilson interval of its pass
	// rate; NaN-free: 0 when not measured.
	Lower float64 `json:"lower_bound"`
}

// Choose judges every candidate, in order: the memory at the context,
// then the trained context, then the template's tool support, then (when
// the constraints list licenses) the license; the first that fails
// rejects it. It returns the verdicts in the candidates' order
// and the kept ones ranked by the lower Wilson bound, measured ones first.
func Choose(cands []Candidate, cons Constraints) (all, ranked []Verdict) {
	per, ok := kvBytes[cons.KVType]
	if !ok {
		per = 2
	}
	ctx := cons.context()
	for _, c := range cands {
		v := Verdict{Candidate: c, WeightsGB: c.WeightBytes / 1e9}
		v.KVGB = float64(c.Layers) * float64(c.KVHeads) * float64(c.HeadDimK+c.HeadDimV) * float64(ctx) * per / 1e9
		v.TotalGB = v.WeightsGB + v.KVGB
		switch {
		case v.TotalGB > cons.budget():
			v.Rejected = fmt.Sprintf("needs %s GB > %s GB", decimal.Fixed(v.TotalGB, 1), strconv.FormatFloat(cons.budget(), 'f', -1, 64))
		case c.TrainedContext < ctx:
			v.Rejected = fmt.Sprintf("trained context %d < %d", c.TrainedContext, ctx)
		case !c.Tools:
			v.Rejected = "chat template has no tool support"
		case cons.Licenses != nil && !c.Licensed(cons.Licenses):
			v.Rejected = licenseRejection(c, cons.Licenses)
		}
		if c.Tasks > 0 {
			v.Lower = eval.Wilson(c.Passed, c.Tasks).Low
		}
		all = append(all, v)
		if v.Rejected == "" {
			ranked = append(ranked, v)
		}
	}
	slices.SortStableFunc(ranked, func(a, b Verdict) int {
		if (a.Candidate.Tasks > 0) != (b.Candidate.Tasks > 0) {
			if a.Candidate.Tasks > 0 {
				return -1
			}
			return 1
		}
		return -cmpFloat(a.Lower, b.Lower)
	})
	return all, ranked
}

// Licensed reports whether the candidate's license is one of allowed:
// its License, or its LicenseName, equal to one of them without regard
// to case.
func (c Candidate) Licensed(allowed []string) bool {
	for _, a := range allowed {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if strings.EqualFold(a, c.License) || strings.EqualFold(a, c.LicenseName) {
			return true
		}
	}
	return false
}

// LicenseText names the candidate's license as the table prints it:
// "apache-2.0", "other (qwen-research)", "" for none.
func (c Candidate) LicenseText() string {
	switch {
	case c.License == "":
		return c.LicenseName
	case c.LicenseName != "" && !strings.EqualFold(c.LicenseName, c.License):
		return c.License + " (" + c.LicenseName + ")"
	}
	return c.License
}

// licenseRejection says why the license rejects c.
func licenseRejection(c Candidate, allowed []string) string {
	list := strings.Join(allowed, ", ")
	if c.LicenseText() == "" {
		return "no license in the metadata (allowed: " + list + ")"
	}
	why := "license " + c.LicenseText() + " not allowed (allowed: " + list + ")"
	if c.LicenseLink != "" {
		why += ", terms at " + c.LicenseLink
	}
	return why
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// WriteTable prints the verdicts, a line per candidate with its memory
// and whether it was kept or why not, then the ranking of the kept ones.
func WriteTable(w io.Writer, all, ranked []Verdict) error {
	var b strings.Builder
	for _, v := range all {
		verdict := "kept"
		if v.Rejected != "" {
			verdict = "rejected: " + v.Rejected
		}
		fmt.Fprintf(&b, "%s  weights %s GB + KV %s GB = %s GB  %s\n", v.Candidate.Name, decimal.Fixed(v.WeightsGB, 2),
			decimal.Fixed(v.KVGB, 2), decimal.Fixed(v.TotalGB, 2), verdict)
	}
	b.WriteString("ranked by the lower 95% bound of the task pass rate on the team's own suite:\n")
	for _, v := range ranked {
		c := v.Candidate
		if c.Tasks == 0 {
			fmt.Fprintf(&b, "  %s  not measured (run loop eval with it)\n", c.Name)
			continue
		}
		fmt.Fprintf(&b, "  %s  %d/%d passed, lower bound %s\n", c.Name, c.Passed, c.Tasks, decimal.Fixed(v.Lower, 2))
	}
	_, err := io.WriteString(w, b.String())
	return err
}
