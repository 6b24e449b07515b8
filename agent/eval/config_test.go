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
	off := loop.Guards{NoRepair: true, NoRecover: true, Retries: -1, NoLoopGuard: true, NoGate: true, NoForce: true, NoPaths: true, NoSyntaxCheck: true}
	want := map[string]loop.Guards{
		"raw":     off,
		"+repair": {Retries: -1, NoLoopGuard: true, NoGate: true, NoForce: true, NoPaths: true, NoSyntaxCheck: true},
		"+retry":  {Retries: 2, NoLoopGuard: true, NoGate: true, NoForce: true, NoPaths: true, NoSyntaxCheck: true},
		"+loop":   {Retries: 2, NoGate: true, NoForce: true, NoPaths: true, NoSyntaxCheck: true},
		"+verify": {Retries: 2, NoForce: true, NoPaths: true, NoSyntaxCheck: true},
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

// TestConfigApply: the settings reach loop.Settings: the seed and the
// temperature in both samplers, the call preset, the few-shot examples,
// the small tool set, the step and token limits, the context switches.
func TestConfigApply(t *testing.T) {
	c, err := ParseConfig([]byte(`{"name": "x", "temperature": 0.6, "preset": "prose", "few_shot": true, "tools": "small", "max_steps": 9, "max_tokens": 256, "no_repo_map": true}`))
	if err != nil {
		t.Fatal(err)
	}
	var s loop.Settings
	c.apply(&s, 3)
	r, err := s.Sampling.Resolve(nil)
	if err != nil {
		t.Fatal(err)
	}
	prose, _ := sampler.Preset(sampler.PresetProse)
	if r.Call == nil || r.Answer.Seed != 3 || r.Call.Seed != 3 || r.Answer.Temperature != 0.6 || r.Call.Temperature != 0.6 || r.Call.TopP != *prose.TopP {
		t.Errorf("samplers %+v / %+v: want seed 3, temperature 0.6, and the prose preset for calls", r.Answer, r.Call)
	}
	if len(s.FewShot) == 0 || s.MaxSteps != 9 || s.MaxTokens != 256 || s.Tools != "small" || !s.NoRepoMap || s.NoContext {
		t.Errorf("few-shot %d, max steps %d, max tokens %d, tools %q, no repo map %v, no context %v; want the default shots, 9, 256, small, true, false",
			len(s.FewShot), s.MaxSteps, s.MaxTokens, s.Tools, s.NoRepoMap, s.NoContext)
	}
}
