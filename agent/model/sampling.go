package model

import (
	"fmt"

	"github.com/loopagent/loop/sampler"
)

// Sampling is what a request asks of the sampler: loop's presets for
// answers and for calls, and the user's own settings. The model resolves
// it with its GGUF general.sampling.* keys (Resolve), so that the caller
// never resolves settings without the model. Its zero value is
// llama-server's: llama.cpp's defaults under the model's keys.
type Sampling struct {
	// Preset is the preset of answers (sampler.PresetNames; "" none). The
	// model's keys win over it: it fills what the model leaves unset.
	Preset string `json:"preset,omitempty"`
	// CallPreset, when set, is the preset of tool calls, from the moment
	// a call starts (its grammar's trigger). It wins over the model's
	// keys: a call's tokens must all be right, and the preset keeps them
	// on the likely path. "" keeps the answers' settings in calls.
	CallPreset string `json:"call_preset,omitempty"`
	// User are the user's settings (the command line's flags); they win
	// over the presets and the model's keys.
	User sampler.Overrides `json:"user"`
}

// Resolved is the sampler configuration a request ran with.
type Resolved struct {
	// Answer configures the chain from the reply's first token.
	Answer sampler.Config `json:"answer"`
	// Call, when set, replaces Answer once a tool call starts.
	Call *sampler.Config `json:"call,omitempty"`
}

// Resolve layers the settings as llama-server and loop's presets do:
//
//   - answers: llama.cpp's defaults, Preset, the model's keys, User;
//   - calls: llama.cpp's defaults, the model's keys, CallPreset, User.
//
// meta holds the model's general.sampling.* keys (a whole model's
// metadata may be passed; other keys are ignored).
func (s Sampling) Resolve(meta map[string]string) (Resolved, error) {
	var out Resolved
	answer, err := preset(s.Preset)
	if err != nil {
		return out, err
	}
	if out.Answer, err = sampler.Resolve(meta, answer.Unset(meta).Merge(s.User)); err != nil {
		return out, fmt.Errorf("sampling: %w", err)
	}
	if s.CallPreset == "" {
		return out, nil
	}
	call, err := preset(s.CallPreset)
	if err != nil {
		return out, err
	}
	c, err := sampler.Resolve(meta, call.Merge(s.User))
	if err != nil {
		return out, fmt.Errorf("sampling: %w", err)
	}
	out.Call = &c
	return out, nil
}

// Check resolves s without a model, to refuse bad settings before one
// loads.
func (s Sampling) Check() error {
	_, err := s.Resolve(nil)
	return err
}

func preset(name string) (sampler.Overrides, error) {
	if name == "" {
		return sampler.Overrides{}, nil
	}
	o, err := sampler.Preset(name)
	if err != nil {
		return o, fmt.Errorf("sampling: %w", err)
	}
	return o, nil
}

// Agent returns the sampling of loop's agent under the user's settings:
// the prose preset for answers and the tool-call preset for calls.
func Agent(user sampler.Overrides) Sampling {
	return Sampling{Preset: sampler.PresetProse, CallPreset: sampler.PresetToolCall, User: user}
}
