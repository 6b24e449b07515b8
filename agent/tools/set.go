package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Set is the tools an agent offers, in a fixed order. The order is the
// order of their definitions in a request, so that the prompt's tool block
// stays the same from step to step and its cache is reused. A Set does not
// change after NewSet and is safe for concurrent use.
type Set struct {
	tools  []Tool
	byName map[string]Tool
}

// NewSet makes a set of tools. Two tools with one name are an error
// wrapping ErrDuplicate.
func NewSet(tools ...Tool) (*Set, error) {
	s := &Set{byName: make(map[string]Tool, len(tools))}
	for _, t := range tools {
		if _, dup := s.byName[t.Name()]; dup {
			return nil, &Error{Op: "new tool set", Path: t.Name(), Err: ErrDuplicate}
		}
		s.byName[t.Name()] = t
		s.tools = append(s.tools, t)
	}
	return s, nil
}

// Default is the six tools of a coding agent, in this order: read_file,
// edit_file, write_file, shell, grep, list_files.
func Default() *Set {
	s, _ := NewSet(ReadFile{}, EditFile{}, WriteFile{}, Shell{}, Grep{}, ListFiles{})
	return s
}

// Names lists the tools' names in order.
func (s *Set) Names() []string {
	names := make([]string, len(s.tools))
	for i, t := range s.tools {
		names[i] = t.Name()
	}
	return names
}

// Get looks a tool up by name.
func (s *Set) Get(name string) (Tool, bool) {
	t, ok := s.byName[name]
	return t, ok
}

// ReadOnly reports whether the named tool never changes the workspace, so
// that a dispatcher may run calls to it concurrently. An unknown name is
// not read-only.
func (s *Set) ReadOnly(name string) bool {
	t, ok := s.byName[name]
	return ok && t.ReadOnly()
}

// Writers returns the names of the set's tools that write files
// (FileWriter), in the set's order.
func (s *Set) Writers() []string {
	var out []string
	for _, t := range s.tools {
		if _, ok := t.(FileWriter); ok {
			out = append(out, t.Name())
		}
	}
	return out
}

// Subset is the set of the named tools, in the set's order. An unknown
// name is an error.
func (s *Set) Subset(names ...string) (*Set, error) {
	want := make(map[string]bool, len(names))
	for _, n := range names {
		if _, ok := s.byName[n]; !ok {
			return nil, &Error{Op: "tool subset", Path: n, Err: errors.New("no such tool")}
		}
		want[n] = true
	}
	var picked []Tool
	for _, t := range s.tools {
		if want[t.Name()] {
			picked = append(picked, t)
		}
	}
	return NewSet(picked...)
}

// Definitions is the OpenAI "tools" array for the named tools, in the
// set's order, or for all of them when no name is given:
//
//	[{"type": "function", "function": {"name": ..., "description": ...,
//	  "parameters": {...}}}, ...]
//
// A step offers only the tools it needs, so names may pick a few; a name
// the set does not have is left out (Subset reports it).
func (s *Set) Definitions(names ...string) json.RawMessage {
	type function struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		Parameters  json.RawMessage `json:"parameters"`
	}
	type definition struct {
		Type     string   `json:"type"`
		Function function `json:"function"`
	}
	defs := []definition{}
	for _, t := range s.tools {
		if len(names) > 0 && !slices.Contains(names, t.Name()) {
			continue
		}
		var params bytes.Buffer
		if err := json.Compact(&params, t.Schema()); err != nil {
			panic(fmt.Sprintf("tools: the schema of %s is not JSON: %v", t.Name(), err))
		}
		defs = append(defs, definition{"function", function{t.Name(), t.Description(), params.Bytes()}})
	}
	var out bytes.Buffer
	enc := json.NewEncoder(&out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(defs); err != nil {
		panic(fmt.Sprintf("tools: definitions: %v", err))
	}
	return bytes.TrimSuffix(out.Bytes(), []byte("\n"))
}

// Run runs a call to the named tool. An unknown name is a result that
// lists the tools, not an error.
func (s *Set) Run(ctx context.Context, ws *Workspace, name string, args json.RawMessage) (Result, error) {
	t, ok := s.byName[name]
	if !ok {
		return errorResult("unknown tool %q; the tools are %s", name, strings.Join(s.Names(), ", ")), nil
	}
	return t.Run(ctx, ws, args)
}
