package eval

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/fewshot"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/sampler"
)

// Config is a named set of agent settings, one column of a report. Its
// zero value is loop's default agent: every guard on, native call
// format, the large tool set, the samplers' presets; "full" names it.
//
// In JSON (`loop eval --config FILE`):
//
//	{"name": "no-repair", "no_repair": true, "retries": 1, "temperature": 0.6}
type Config struct {
	// Name names the configuration in reports.
	Name string `json:"name"`

	// NoGrammar asks the model to write calls without a grammar, so that
	// its parse rate means something: under a grammar every call parses
	// by construction. Scripted models never have one; a live model's
	// factory must honour it.
	NoGrammar bool `json:"no_grammar,omitempty"`
	// NoRepair, NoRecover, Retries, NoLoopGuard, NoGate and NoForce are
	// loop.Guards': the JSON repair, the recovery of calls outside the
	// format, the bad replies sent back (0: 2, negative: none), loop
	// detection, the verification gate, and the forced tool_choice.
	NoRepair    bool `json:"no_repair,omitempty"`
	NoRecover   bool `json:"no_recover,omitempty"`
	Retries     int  `json:"retries,omitempty"`
	NoLoopGuard bool `json:"no_loop_guard,omitempty"`
	NoGate      bool `json:"no_gate,omitempty"`
	NoForce     bool `json:"no_force,omitempty"`
	// NoPaths leaves read_file's and edit_file's path free in the grammar
	// instead of one of the workspace's files (loop.Guards.NoPaths).
	NoPaths bool `json:"no_paths,omitempty"`
	// NoSyntaxCheck lets edits break a Go or JSON file's syntax, or a Go
	// directory's one package (loop.Guards.NoSyntaxCheck).
	NoSyntaxCheck bool `json:"no_syntax_check,omitempty"`
	// AllTools offers every tool to a question that asks for no change,
	// which otherwise gets no tool that writes files
	// (loop.Guards.AllTools).
	AllTools bool `json:"all_tools,omitempty"`

	// Preset is the sampler preset of tool calls (sampler.PresetNames);
	// "" means loop's own pair, "prose" for answers and "tool-call" for
	// calls.
	Preset string `json:"preset,omitempty"`
	// Temperature, when set, overrides the temperature of both presets.
	Temperature *float32 `json:"temperature,omitempty"`

	// Tools is "" or "large" for tools.Default(), "small" for read_file,
	// edit_file and shell only, fewer choices for the model to get wrong.
	// A scenario with its own fake tools (seed13) keeps them.
	Tools string `json:"tools,omitempty"`
	// FewShot puts fewshot.Default() after the system prompt, where the
	// prompt cache keeps them.
	FewShot bool `json:"few_shot,omitempty"`
	// Format is the call format: "" means the model's native one (the
	// scenario's, for a script), "prompt" the prompt-based format that
	// describes the tools in the system prompt.
	Format string `json:"format,omitempty"`

	// NoContext, NoRepoMap, NoInstructions and NoSubagent are loop run's
	// --no-context, --no-repo-map, --no-context-files and --no-subagent:
	// the context manager, the repository map, the instruction files and
	// the task tool, which are on by default as in loop run.
	NoContext      bool `json:"no_context,omitempty"`
	NoRepoMap      bool `json:"no_repo_map,omitempty"`
	NoInstructions bool `json:"no_context_files,omitempty"`
	NoSubagent     bool `json:"no_subagent,omitempty"`

	// MaxSteps bounds a run's model requests when the scenario does not;
	// 0 means loop's default, 30.
	MaxSteps int `json:"max_steps,omitempty"`
	// MaxTokens bounds each reply; 0 means loop's default, 1024.
	MaxTokens int `json:"max_tokens,omitempty"`
}

// Guards returns the configuration's loop.Guards.
func (c Config) Guards() loop.Guards {
	return loop.Guards{NoRepair: c.NoRepair, NoRecover: c.NoRecover, Retries: c.Retries,
		NoLoopGuard: c.NoLoopGuard, NoGate: c.NoGate, NoForce: c.NoForce, NoPaths: c.NoPaths, AllTools: c.AllTools,
		NoSyntaxCheck: c.NoSyntaxCheck}
}

// builtins are the configurations that add one technique at a time, each
// to the one before, so that a table shows what each adds; then loop's
// verification gate, then loop's default agent.
func builtins() []Config {
	raw := Config{Name: "raw", NoRepair: true, NoRecover: true, Retries: -1, NoLoopGuard: true, NoGate: true, NoForce: true, NoPaths: true,
		NoSyntaxCheck: true}
	repair := raw
	repair.Name, repair.NoRepair, repair.NoRecover = "+repair", false, false
	retry := repair
	retry.Name, retry.Retries = "+retry", 2
	lg := retry
	lg.Name, lg.NoLoopGuard = "+loop", false
	verify := lg
	verify.Name, verify.NoGate = "+verify", false
	return []Config{raw, repair, retry, lg, verify, {Name: "full"}}
}

// Builtins returns the built-in configurations: raw, +repair, +retry,
// +loop (one technique added at a time), +verify (with the gate), and
// full (loop's default agent).
func Builtins() []Config { return builtins() }

// SeedConfigs are the names of the step-by-step configurations, in
// order: the four of the reference table (see the package doc) and
// loop's +verify.
var SeedConfigs = []string{"raw", "+repair", "+retry", "+loop", "+verify"}

// ParseConfig reads a configuration from JSON and checks it. Unknown
// fields are an error.
func ParseConfig(data []byte) (Config, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var c Config
	if err := dec.Decode(&c); err != nil {
		return Config{}, &Error{Op: "parse config", Err: fmt.Errorf("%w: %w", ErrInvalid, err)}
	}
	if dec.More() {
		return Config{}, &Error{Op: "parse config", Err: fmt.Errorf("%w: data after the object", ErrInvalid)}
	}
	if err := c.validate(); err != nil {
		return Config{}, &Error{Op: "parse config", Subject: c.Name, Err: err}
	}
	return c, nil
}

func (c Config) validate() error {
	switch {
	case strings.TrimSpace(c.Name) == "":
		return fmt.Errorf("%w: no name", ErrInvalid)
	case c.Preset != "" && !slices.Contains(sampler.PresetNames(), c.Preset):
		return fmt.Errorf("%w: preset %q: want one of %q", ErrInvalid, c.Preset, sampler.PresetNames())
	case c.Temperature != nil && (*c.Temperature < 0 || *c.Temperature > 5):
		return fmt.Errorf("%w: temperature %v: want 0 to 5", ErrInvalid, *c.Temperature)
	case c.Tools != "" && c.Tools != "small" && c.Tools != "large":
		return fmt.Errorf("%w: tools %q: want small or large", ErrInvalid, c.Tools)
	case c.Format != "" && c.Format != "prompt" && c.Format != "native":
		return fmt.Errorf("%w: format %q: want native or prompt", ErrInvalid, c.Format)
	case c.MaxSteps < 0 || c.MaxTokens < 0:
		return fmt.Errorf("%w: negative max_steps or max_tokens", ErrInvalid)
	}
	return nil
}

// LookupConfig returns the built-in configuration of that name, or reads
// the JSON file at that path.
func LookupConfig(arg string) (Config, error) {
	for _, c := range builtins() {
		if c.Name == arg {
			return c, nil
		}
	}
	data, err := os.ReadFile(arg)
	if errors.Is(err, os.ErrNotExist) {
		return Config{}, &Error{Op: "config", Subject: arg, Err: fmt.Errorf("%w (built-ins: %s)", ErrUnknown, strings.Join(configNames(), ", "))}
	}
	if err != nil {
		return Config{}, &Error{Op: "config", Subject: arg, Err: err}
	}
	c, err := ParseConfig(data)
	if err != nil {
		return Config{}, &Error{Op: "config", Subject: arg, Err: err}
	}
	return c, nil
}

func configNames() []string {
	var names []string
	for _, c := range builtins() {
		names = append(names, c.Name)
	}
	return names
}

// apply sets the configuration's settings on a run's loop.Settings,
// with the run's seed in the sampler, so that two configurations sample
// their runs alike.
func (c Config) apply(s *loop.Settings, seed int) {
	s.Guards = c.Guards()
	if s.MaxSteps == 0 {
		s.MaxSteps = c.MaxSteps
	}
	s.MaxTokens = c.MaxTokens
	s.NoGrammar = c.NoGrammar
	if c.Format == "prompt" {
		s.Format = "prompt"
	}
	if c.FewShot {
		s.FewShot = fewshot.Default()
	}
	s.Tools = c.Tools
	s.NoContext, s.NoRepoMap, s.NoInstructions, s.NoSubagent = c.NoContext, c.NoRepoMap, c.NoInstructions, c.NoSubagent
	user := sampler.Overrides{Seed: sampler.Ptr(uint32(seed))}
	if c.Temperature != nil {
		user.Temperature = sampler.Ptr(*c.Temperature)
	}
	s.Sampling = model.Agent(user)
	if c.Preset != "" {
		s.Sampling.CallPreset = c.Preset
	}
}
