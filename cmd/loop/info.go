package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/decimal"
	"github.com/loopagent/loop/llama"
)

type infoFlags struct {
	modelFlags
	ctxSize  int
	jsonOut  bool
	metaKeys bool
}

// infoReport is what `loop info` prints, and its --json form.
type infoReport struct {
	Model         string                `json:"model"`
	Info          llama.Info            `json:"info"`
	BOS           tokenRef              `json:"bos"`
	EOS           tokenRef              `json:"eos"`
	EOT           tokenRef              `json:"eot"`
	ChatTemplates []string              `json:"chat_templates"`
	TemplateCaps  *chat.Caps            `json:"chat_template_caps,omitempty"`
	CallFormat    *callformat.Detection `json:"tool_call_format,omitempty"`
	Memory        memoryEstimate        `json:"memory"`
	SystemInfo    string                `json:"system_info"`
	Devices       []llama.Device        `json:"devices"`
	Metadata      map[string]string     `json:"metadata"`
	metaOrder     []string
}

type tokenRef struct {
	ID   llama.Token `json:"id"`
	Text string      `json:"text,omitempty"`
}

// memoryEstimate is a model's memory at a context, as package choose
// estimates it: the weights plus an F16 KV cache of 2 (K and V) × layers
// × KV heads × head size × context × 2 bytes, in GB of 10^9 bytes.
type memoryEstimate struct {
	Context   int     `json:"context"`
	WeightsGB float64 `json:"weights_gb"`
	KVGB      float64 `json:"kv_gb"`
	TotalGB   float64 `json:"total_gb"`
}

func estimateMemory(weightBytes float64, layers, kvHeads, headDimK, headDimV, context int) memoryEstimate {
	kv := float64(layers) * float64(kvHeads) * float64(headDimK+headDimV) * float64(context) * 2
	e := memoryEstimate{Context: context, WeightsGB: weightBytes / 1e9, KVGB: kv / 1e9}
	e.TotalGB = e.WeightsGB + e.KVGB
	return e
}

func (e memoryEstimate) String() string {
	return fmt.Sprintf("weights %s GB + KV %s GB = %s GB", decimal.Fixed(e.WeightsGB, 2), decimal.Fixed(e.KVGB, 2), decimal.Fixed(e.TotalGB, 2))
}

func runInfo(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	var f infoFlags
	fs := newFlagSet("info", stderr)
	f.register(fs)
	fs.IntVarP(&f.ctxSize, "ctx-size", "c", 0, "context for the memory estimate (default: 4096, capped at the trained context)")
	fs.IntVar(&f.ctxSize, "ctx", 0, "same as --ctx-size")
	fs.BoolVar(&f.jsonOut, "json", false, "print JSON")
	fs.BoolVar(&f.metaKeys, "meta", true, "list every GGUF key")
	if err := parse(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	m, err := f.load(ctx, stderr, false)
	if err != nil {
		return err
	}
	defer m.Close()
	r, err := buildInfo(m, f.ctxSize)
	if err != nil {
		return err
	}
	if f.jsonOut {
		return writeJSON(stdout, r)
	}
	printInfo(stdout, r, f.metaKeys)
	return nil
}

func buildInfo(m *llama.Model, ctxSize int) (*infoReport, error) {
	in, err := m.Info()
	if err != nil {
		return nil, err
	}
	if ctxSize <= 0 {
		ctxSize = min(4096, in.TrainContext)
	}
	ref := func(t llama.Token) tokenRef {
		r := tokenRef{ID: t}
		if t >= 0 {
			r.Text, _ = m.TokenPiece(t, true)
		}
		return r
	}
	r := &infoReport{
		Model: m.Path(), Info: in, BOS: ref(m.BOS()), EOS: ref(m.EOS()), EOT: ref(m.EOT()),
		Memory:     estimateMemory(float64(in.SizeBytes), in.Layers, in.HeadsKV, in.HeadDimK, in.HeadDimV, ctxSize),
		SystemInfo: llama.SystemInfo(),
		Devices:    llama.Devices(),
		Metadata:   map[string]string{},
	}
	if src, ok := m.ChatTemplate(""); ok {
		r.ChatTemplates = append(r.ChatTemplates, "default")
		bos, eos := r.BOS.Text, r.EOS.Text
		if t, err := chat.NewTemplate(src, bos, eos); err == nil {
			caps, det := t.Caps(), callformat.Detect(t)
			r.TemplateCaps, r.CallFormat = &caps, &det
		}
	}
	r.ChatTemplates = append(r.ChatTemplates, m.ChatTemplateNames()...)
	for _, kv := range m.Metadata() {
		r.Metadata[kv.Key] = kv.Value.String()
		r.metaOrder = append(r.metaOrder, kv.Key)
	}
	return r, nil
}

func printInfo(w io.Writer, r *infoReport, meta bool) {
	in := r.Info
	fmt.Fprintf(w, "model:          %s\n", r.Model)
	fmt.Fprintf(w, "architecture:   %s (%s)\n", in.Arch, in.Description)
	fmt.Fprintf(w, "parameters:     %s\n", humanCount(float64(in.Params)))
	fmt.Fprintf(w, "size:           %s\n", humanBytes(in.SizeBytes))
	fmt.Fprintf(w, "trained ctx:    %d\n", in.TrainContext)
	fmt.Fprintf(w, "layers:         %d (embedding %d, heads %d, KV heads %d, head size %d/%d)\n",
		in.Layers, in.Embd, in.Heads, in.HeadsKV, in.HeadDimK, in.HeadDimV)
	fmt.Fprintf(w, "vocabulary:     %d tokens; BOS %s, EOS %s, EOT %s\n", in.VocabSize, r.BOS, r.EOS, r.EOT)
	if in.SWA > 0 || in.Recurrent {
		fmt.Fprintf(w, "memory kind:    sliding window %d, recurrent %v\n", in.SWA, in.Recurrent)
	}
	tmpl := "none"
	if len(r.ChatTemplates) > 0 {
		tmpl = strings.Join(r.ChatTemplates, ", ")
	}
	fmt.Fprintf(w, "chat templates: %s\n", tmpl)
	if r.TemplateCaps != nil {
		caps, _ := json.Marshal(r.TemplateCaps)
		fmt.Fprintf(w, "template caps:  %s\n", caps)
		fmt.Fprintf(w, "call format:    %s (%s)\n", r.CallFormat.Format, r.CallFormat.Reason)
	}
	fmt.Fprintf(w, "memory:         at %d tokens of context: %s\n", r.Memory.Context, r.Memory)
	fmt.Fprintf(w, "system info:    %s\n", r.SystemInfo)
	for _, d := range r.Devices {
		fmt.Fprintf(w, "device:         %s (%s, %s)\n", d.Name, d.Description, d.Type)
	}
	if !meta {
		return
	}
	fmt.Fprintf(w, "metadata:       %d keys\n", len(r.metaOrder))
	for _, k := range r.metaOrder {
		v := r.Metadata[k]
		if len(v) > 120 {
			v = v[:117] + "..."
		}
		v = strings.ReplaceAll(v, "\n", `\n`)
		fmt.Fprintf(w, "  %-40s %s\n", k, v)
	}
}

func (t tokenRef) String() string {
	if t.ID < 0 {
		return "none"
	}
	return fmt.Sprintf("%d %q", t.ID, t.Text)
}

func humanCount(n float64) string {
	switch {
	case n >= 1e9:
		return fmt.Sprintf("%.2f B", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.2f M", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.2f K", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}

// humanBytes prints a size in MiB or GiB, as llama-bench does.
func humanBytes(b uint64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.2f GiB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.2f MiB", float64(b)/(1<<20))
}
