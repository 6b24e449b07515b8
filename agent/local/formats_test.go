package local_test

import (
	"context"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/repair"
	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

// TestFormatsEndToEnd compiles every format's grammar with llama.cpp, lets
// the tiny random model write a required call under it, and parses and
// validates what it wrote: each format's grammar, parser and validator
// agree on one complete, valid call.
func TestFormatsEndToEnd(t *testing.T) {
	m, slot, tools := formatsSetup(t)
	v, err := validate.New(tools)
	if err != nil {
		t.Fatal(err)
	}
	prompt, _ := m.Tokenize("<|im_start|>user\nWhat is in pom.xml?<|im_end|>\n<|im_start|>assistant\n", false, true)
	for _, name := range callformat.Names() {
		t.Run(name, func(t *testing.T) {
			f, err := callformat.NewWithOptions(name, tools, callformat.Options{Rand: rand.New(rand.NewPCG(1, 2))})
			if err != nil {
				t.Fatal(err)
			}
			for _, opts := range []grammar.CallOptions{{}, {Parallel: true}, {Choice: grammar.Choice{Mode: grammar.ChoiceFunction, Function: "read_file"}}} {
				cg, err := f.Grammar(opts)
				if err != nil {
					t.Fatal(err)
				}
				g, err := engine.CompileCalls(m, cg)
				if err != nil {
					t.Fatalf("llama.cpp rejects the %s grammar (%+v): %v", name, opts, err)
				}
				g.Close()
			}
			cg, err := f.Grammar(grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}})
			if err != nil {
				t.Fatal(err)
			}
			g, err := engine.CompileCalls(m, cg)
			if err != nil {
				t.Fatal(err)
			}
			defer g.Close()
			ch := defaultChain(t, 3)
			defer ch.Close()
			res, err := engine.Generate(context.Background(), slot, engine.Request{Prompt: prompt, Chain: ch, Grammar: g, NPredict: 400, RenderSpecial: true})
			if err != nil {
				t.Fatal(err)
			}
			p := f.Parse(res.Text)
			for i := range p.Calls {
				if p.Calls[i].ID == "" {
					p.Calls[i].ID = f.NewID(nil)
				}
			}
			finish := "tool_calls"
			if res.StopType == engine.StopLimit {
				finish = "length"
			}
			viol := v.Validate(validate.Reply{FinishReason: finish, Calls: p.Calls})
			if len(p.Calls) != 1 || len(viol) > 0 || len(p.Problems) > 0 {
				t.Errorf("%s: %d calls, problems %v, violations %v, stop %s in %d tokens:\n%s", name, len(p.Calls), p.Problems, viol, res.StopType, len(res.Tokens), res.Text)
				return
			}
			t.Logf("%s: %d tokens: %s", name, len(res.Tokens), strings.ReplaceAll(res.Text, "\n", `\n`))
		})
	}
}

func defaultChain(t *testing.T, seed uint32) *llama.Sampler {
	ch := llama.NewChain(true)
	for _, s := range []*llama.Sampler{llama.NewTopK(40), llama.NewTopP(0.95, 1), llama.NewMinP(0.05, 1), llama.NewTemp(0.8), llama.NewDist(seed)} {
		if err := ch.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	return ch
}

// TestHermesBareCall starts a reply with a bare {"name" under Hermes' auto
// grammar: the grammar wakes on it, the model finishes one complete call
// object, and recovery takes it as a valid call. After other text the same
// object leaves the grammar asleep.
func TestHermesBareCall(t *testing.T) {
	m, slot, tools := formatsSetup(t)
	f, err := callformat.New("hermes", tools)
	if err != nil {
		t.Fatal(err)
	}
	cg, err := f.Grammar(grammar.CallOptions{})
	if err != nil {
		t.Fatal(err)
	}
	start := `{"name"`
	for _, lead := range []string{"", "I will look. "} {
		g, err := engine.CompileCalls(m, cg)
		if err != nil {
			t.Fatal(err)
		}
		head, _ := m.Tokenize(lead+start, false, false)
		for _, tok := range head {
			if err := g.Accept(tok); err != nil {
				t.Fatal(err)
			}
		}
		if g.Waiting() != (lead != "") {
			t.Errorf("after %q: waiting %v, want %v", lead+start, g.Waiting(), lead != "")
		}
		if lead != "" {
			g.Close()
			continue
		}
		prompt, _ := m.Tokenize("<|im_start|>user\nWhat is in pom.xml?<|im_end|>\n<|im_start|>assistant\n", false, true)
		ch := defaultChain(t, 3)
		res, err := engine.Generate(context.Background(), slot, engine.Request{Prompt: append(prompt, head...), Chain: ch, Grammar: g, NPredict: 400, RenderSpecial: true})
		ch.Close()
		g.Close()
		if err != nil {
			t.Fatal(err)
		}
		text := start + res.Text
		v, err := validate.New(tools)
		if err != nil {
			t.Fatal(err)
		}
		fixed, _ := repair.Fixer{Format: f, Check: repair.Validates(v), NoRepair: true}.Fix(text, f.Parse(text))
		if res.StopType != engine.StopEOS || len(fixed.Calls) != 1 || fixed.Calls[0].Function.Name != "read_file" {
			t.Errorf("stop %s, calls %+v after recovery, from %q", res.StopType, fixed.Calls, text)
		}
	}
}

// formatsSetup loads the Qwen3-vocabulary tiny model with one slot of a
// 1024-token context, and parses the seed's tool.
func formatsSetup(t *testing.T) (*llama.Model, *llama.Slot, []chat.Tool) {
	m := loadModel(t, testmodels.TinyQwen3F16)
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 1024, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	slot, err := llama.NewSlot(c, 0)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := chat.ParseTools([]byte(seedTool))
	if err != nil {
		t.Fatal(err)
	}
	return m, slot, tools
}
