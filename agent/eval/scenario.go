package eval

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/model"
)

// A Scenario is one task for the agent and how to tell that it was done:
// the workspace's files, the task, the model's replies when they are
// scripted (none: a live model answers), and the pass condition.
//
// On disk a scenario is a directory holding scenario.json and, optionally,
// a workspace/ directory whose files are copied into each run's
// workspace:
//
//	{
//	  "name": "trailing comma",
//	  "task": "total() returns 27 instead of 30. Fix it.",
//	  "tools": "seed13",
//	  "max_steps": 8,
//	  "check": "mvn -q test",
//	  "files": {"Order.java": "int total() { return 27; }\n"},
//	  "replies": ["<tool_call>\n{...}\n</tool_call>", {"text": "...", "finish_reason": "length"}],
//	  "branches": [{"when": "loop note text", "replies": ["..."]}],
//	  "pass": {"verified": true}
//	}
type Scenario struct {
	// Name names the scenario in reports; empty means its directory's
	// name.
	Name string `json:"name,omitempty"`
	// Task is the user's request.
	Task string `json:"task"`
	// Tools names the tool set: "" or "default" is tools.Default() on a
	// real temporary workspace (the configuration may cut it to the small
	// set); "seed13" is the fake workspace of SuiteSeed13, where total()
	// returns 27 until an edit replaces "27" and the tests pass only
	// after it.
	Tools string `json:"tools,omitempty"`
	// Format is the call format of the scripted replies; "" means hermes.
	Format string `json:"format,omitempty"`
	// MaxSteps bounds the run's model requests; 0 means the
	// configuration's (or loop's default, 30).
	MaxSteps int `json:"max_steps,omitempty"`
	// Check is the command the agent's verification gate runs; empty
	// means the one it detects in the workspace.
	Check string `json:"check,omitempty"`
	// Workspace is a directory copied into each run's workspace; empty
	// means the scenario directory's workspace/, when there is one.
	Workspace string `json:"workspace,omitempty"`
	// Files are written into the workspace before the run (path ->
	// content), after the Workspace's files.
	Files map[string]string `json:"files,omitempty"`
	// Replies are the scripted model's replies, in order; none means a
	// live model answers.
	Replies Replies `json:"replies,omitempty"`
	// Branches switch the script to other replies when a request's
	// newest message contains When (a model that reads a note).
	Branches []Branch `json:"branches,omitempty"`
	// Pass is the pass condition.
	Pass Pass `json:"pass"`

	// dir is the scenario's directory on disk, for workspace/.
	dir string
}

// Pass is what a run must achieve. Every condition that is set must
// hold, and the model must have answered (not given up, looped or hit the
// step limit). With none set, an answer after a change must also be
// verified by the agent's own gate; with some set, they judge it.
type Pass struct {
	// Verified requires the run to end "done (verified)": the model
	// answered after a check passed on its changes (reason "unverified"
	// otherwise).
	Verified bool `json:"verified,omitempty"`
	// Check is a command run in the workspace after the run (sh -c); it
	// must exit 0 (reason "check").
	Check string `json:"check,omitempty"`
	// Calls must all have run, in this order, among the run's calls
	// (reason "wrong call"): the right tool with the right arguments.
	Calls []ExpectedCall `json:"calls,omitempty"`
	// Answer is a regular expression the final answer must match (reason
	// "answer").
	Answer string `json:"answer,omitempty"`
}

// ExpectedCall is a call a run must make: the tool's name and the
// arguments it must have (others may be there too).
type ExpectedCall struct {
	Name      string         `json:"name"`
	Arguments map[string]any `json:"arguments,omitempty"`
}

// Replies are scripted replies. In JSON each is a string (the text) or
// an object {"text": ..., "finish_reason": ...}.
type Replies []model.Reply

// UnmarshalJSON reads strings and objects.
func (r *Replies) UnmarshalJSON(data []byte) error {
	var raw []json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return err
	}
	if len(raw) == 0 {
		*r = nil // no replies: a live model answers
		return nil
	}
	out := make(Replies, len(raw))
	for i, m := range raw {
		if json.Unmarshal(m, &out[i].Text) == nil {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(m))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&out[i]); err != nil {
			return fmt.Errorf("reply %d: want a string or {\"text\": ..., \"finish_reason\": ...}: %w", i, err)
		}
	}
	*r = out
	return nil
}

// Branch is a model.Branch whose replies may be strings in JSON.
type Branch struct {
	When    string  `json:"when"`
	Replies Replies `json:"replies"`
}

// branches returns the scenario's branches for model.NewScript.
func (s *Scenario) branches() []model.Branch {
	var out []model.Branch
	for _, b := range s.Branches {
		out = append(out, model.Branch{When: b.When, Replies: b.Replies})
	}
	return out
}

// Scripted reports whether the scenario's replies are scripted.
func (s *Scenario) Scripted() bool { return len(s.Replies) > 0 }

// Suite is a named list of scenarios, in the order of its report.
type Suite struct {
	Name      string      `json:"name"`
	Scenarios []*Scenario `json:"scenarios"`
}

// ParseScenario reads a scenario.json and checks it: a task, a known tool
// set, a format, a pass condition whose answer pattern compiles, and
// expected calls with names. Unknown fields are an error, so that a typo
// does not silently drop a condition.
func ParseScenario(data []byte) (*Scenario, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var s Scenario
	if err := dec.Decode(&s); err != nil {
		return nil, &Error{Op: "parse scenario", Err: fmt.Errorf("%w: %w", ErrInvalid, err)}
	}
	if dec.More() {
		return nil, &Error{Op: "parse scenario", Err: fmt.Errorf("%w: data after the object", ErrInvalid)}
	}
	if err := s.validate(); err != nil {
		return nil, &Error{Op: "parse scenario", Subject: s.Name, Err: err}
	}
	return &s, nil
}

func (s *Scenario) validate() error {
	switch {
	case strings.TrimSpace(s.Task) == "":
		return fmt.Errorf("%w: no task", ErrInvalid)
	case !slices.Contains(toolSets, s.Tools):
		return fmt.Errorf("%w: tools %q: want one of %q", ErrInvalid, s.Tools, toolSets)
	case s.MaxSteps < 0:
		return fmt.Errorf("%w: max_steps %d", ErrInvalid, s.MaxSteps)
	}
	if _, err := model.NewScript(s.format(), nil); err != nil {
		return fmt.Errorf("%w: format: %w", ErrInvalid, err)
	}
	if _, err := regexp.Compile(s.Pass.Answer); err != nil {
		return fmt.Errorf("%w: pass.answer: %w", ErrInvalid, err)
	}
	for i, c := range s.Pass.Calls {
		if c.Name == "" {
			return fmt.Errorf("%w: pass.calls[%d] has no name", ErrInvalid, i)
		}
	}
	for name := range s.Files {
		if !fs.ValidPath(name) || name == "." {
			return fmt.Errorf("%w: file %q: want a relative path inside the workspace", ErrInvalid, name)
		}
	}
	return nil
}

func (s *Scenario) format() string {
	if s.Format == "" {
		return "hermes"
	}
	return s.Format
}

// toolSets are the names Scenario.Tools accepts.
var toolSets = []string{"", "default", "seed13"}

// LoadSuite reads a suite directory: every subdirectory holding a
// scenario.json is a scenario, in the order of the directory names (name
// them 01-..., 02-...). The suite is named by its directory (see
// suiteName).
func LoadSuite(dir string) (*Suite, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, &Error{Op: "load suite", Subject: dir, Err: err}
	}
	suite := &Suite{Name: suiteName(dir)}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		sub := filepath.Join(dir, e.Name())
		data, err := os.ReadFile(filepath.Join(sub, "scenario.json"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, &Error{Op: "load suite", Subject: sub, Err: err}
		}
		s, err := ParseScenario(data)
		if err != nil {
			return nil, &Error{Op: "load suite", Subject: sub, Err: err}
		}
		if s.Name == "" {
			s.Name = e.Name()
		}
		s.dir = sub
		suite.Scenarios = append(suite.Scenarios, s)
	}
	if len(suite.Scenarios) == 0 {
		return nil, &Error{Op: "load suite", Subject: dir, Err: fmt.Errorf("%w: no */scenario.json", ErrInvalid)}
	}
	return suite, nil
}

// WriteSuite writes a suite as LoadSuite reads it: one directory per
// scenario, numbered in order, each with its scenario.json (files
// inline).
func WriteSuite(dir string, suite *Suite) error {
	for i, s := range suite.Scenarios {
		sub := filepath.Join(dir, fmt.Sprintf("%02d-%s", i+1, slug(s.Name)))
		if err := os.MkdirAll(sub, 0o755); err != nil {
			return &Error{Op: "write suite", Subject: sub, Err: err}
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetIndent("", "  ")
		enc.SetEscapeHTML(false) // <tool_call> as the model wrote it
		if err := enc.Encode(s); err != nil {
			return &Error{Op: "write suite", Subject: s.Name, Err: err}
		}
		if err := os.WriteFile(filepath.Join(sub, "scenario.json"), b.Bytes(), 0o644); err != nil {
			return &Error{Op: "write suite", Subject: sub, Err: err}
		}
	}
	return nil
}

// slug turns a name into a directory name: lowercase letters, digits and
// dashes.
func slug(name string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(name) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			b.WriteRune(r)
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	s := strings.TrimSuffix(b.String(), "-")
	if s == "" {
		return "scenario"
	}
	return s
}

// copyWorkspace fills dst with the scenario's Workspace (or workspace/
// directory), then its Files.
func (s *Scenario) copyWorkspace(dst string) error {
	src := s.Workspace
	if src != "" && !filepath.IsAbs(src) && s.dir != "" {
		src = filepath.Join(s.dir, src)
	}
	if src == "" && s.dir != "" {
		src = filepath.Join(s.dir, "workspace")
		if _, err := os.Stat(src); err != nil {
			src = ""
		}
	}
	if src != "" {
		if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
			return err
		}
	}
	for name, content := range s.Files {
		p := filepath.Join(dst, filepath.FromSlash(path.Clean(name)))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// suiteName names a suite by its directory's name, or, for a directory
// named "suite", by its parent's too ("demo/suite"), which says more.
func suiteName(dir string) string {
	dir = filepath.Clean(dir)
	name := filepath.Base(dir)
	if parent := filepath.Base(filepath.Dir(dir)); name == "suite" && parent != "." && parent != string(filepath.Separator) {
		return parent + "/" + name
	}
	return name
}
