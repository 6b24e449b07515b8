package eval

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/sampler"
)

// TestBuiltins: each built-in adds one technique to the one before, as
// seed 000 Example 13's configurations do, and full is loop's default
// agent, the zero loop.Guards.
func TestBuiltins(t *testing.T) {
	off := loop.Guards{NoRepair: true, NoRecover: true, Retries: -1, NoLoopGuard: true, NoGate: true, NoForce: true, NoPaths: true}
	want := map[string]loop.Guards{
		"raw":     off,
		"+repair": {Retries: -1, NoLoopGuard: true, NoGate: true, NoForce: true, NoPaths: true},
		"+retry":  {Retries: 2, NoLoopGuard: true, NoGate: true, NoForce: true, NoPaths: true},
		"+loop":   {Retries: 2, NoGate: true, NoForce: true, NoPaths: true},
		"+verify": {Retries: 2, NoForce: true, NoPaths: true},
		"full":    {},
	}
	for _, c := range Builtins() {
		if diff := cmp.Diff(want[c.Name], c.Guards()); diff != "" {
			t.Errorf("%s: Guards() differs (-want +got):\n%s", c.Name, diff)
		}
	}
	if len(Builtins()) != len(want) {
		t.Errorf("%d built-ins, want %d", len(Builtins()), len(want))
	}
}

// TestConfigApply: the settings reach loop.Config: the seed and the
// temperature in both samplers, the call preset, the few-shot examples,
// the small tool set, the step and token limits.
func TestConfigApply(t *testing.T) {
	c, err := ParseConfig([]byte(`{"name": "x", "temperature": 0.6, "preset": "prose", "few_shot": true, "tools": "small", "max_steps": 9, "max_tokens": 256}`))
	if err != nil {
		t.Fatal(err)
	}
	var lc loop.Config
	if err := c.apply(&lc, 3); err != nil {
		t.Fatal(err)
	}
	prose, _ := sampler.Preset(sampler.PresetProse)
	if lc.Sampling == nil || lc.CallSampling == nil || lc.Sampling.Seed != 3 || lc.CallSampling.Seed != 3 ||
		lc.Sampling.Temperature != 0.6 || lc.CallSampling.Temperature != 0.6 || lc.CallSampling.TopP != *prose.TopP {
		t.Errorf("samplers %+v / %+v: want seed 3, temperature 0.6, and the prose preset for calls", lc.Sampling, lc.CallSampling)
	}
	if len(lc.FewShot) == 0 || lc.MaxSteps != 9 || lc.MaxTokens != 256 {
		t.Errorf("few-shot %d, max steps %d, max tokens %d; want the default shots, 9, 256", len(lc.FewShot), lc.MaxSteps, lc.MaxTokens)
	}
	set, err := c.toolSet()
	if err != nil || cmp.Diff([]string{"read_file", "edit_file", "shell"}, set.Names()) != "" {
		t.Errorf("small tool set: %v, %v", set.Names(), err)
	}
}
