package eval

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// FuzzParseScenario: any input parses or fails with ErrInvalid; what
// parses survives a JSON round trip.
func FuzzParseScenario(f *testing.F) {
	for _, s := range append(Seed13().Scenarios, Classifier().Scenarios...) {
		b, _ := json.Marshal(s)
		f.Add(b)
	}
	f.Add([]byte(`{"task": "x", "pass": {"answer": "("}}`))
	f.Add([]byte(`{"task": "x", "tools": "seed13", "files": {"../a": ""}}`))
	f.Add([]byte(`{"task": "x", "replies": [{"text": "a", "finish_reason": "length"}], "bogus": 1}`))
	f.Add([]byte(`{"task": "x"} {}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := ParseScenario(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseScenario(%q) = %v, want an error wrapping ErrInvalid", data, err)
			}
			return
		}
		b, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseScenario(b)
		if err != nil {
			t.Fatalf("ParseScenario(%s) after a round trip: %v", b, err)
		}
		if diff := cmp.Diff(s, back, cmp.AllowUnexported(Scenario{})); diff != "" {
			t.Errorf("round trip differs (-first +second):\n%s", diff)
		}
	})
}

// FuzzParseConfig: any input parses or fails with ErrInvalid; what
// parses survives a JSON round trip.
func FuzzParseConfig(f *testing.F) {
	for _, c := range Builtins() {
		b, _ := json.Marshal(c)
		f.Add(b)
	}
	f.Add([]byte(`{"name": "hot", "temperature": 1.2, "preset": "prose", "tools": "small", "few_shot": true, "format": "prompt"}`))
	f.Add([]byte(`{"name": "x", "temperature": -1}`))
	f.Add([]byte(`{"name": "x", "retries": 3, "no_grammar": true, "max_steps": 8}`))
	f.Add([]byte(`{"name": ""}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig(data)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("ParseConfig(%q) = %v, want an error wrapping ErrInvalid", data, err)
			}
			return
		}
		b, err := json.Marshal(c)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseConfig(b)
		if err != nil {
			t.Fatalf("ParseConfig(%s) after a round trip: %v", b, err)
		}
		if diff := cmp.Diff(c, back); diff != "" {
			t.Errorf("round trip differs (-first +second):\n%s", diff)
		}
	})
}

// TestParseErrors: each rule of the parsers names what is wrong.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, data, want string
	}{
		{"no task", `{"pass": {}}`, "parse scenario: invalid: no task"},
		{"bad tools", `{"task": "x", "tools": "many"}`, `parse scenario: invalid: tools "many": want one of ["" "default" "seed13"]`},
		{"bad pattern", `{"task": "x", "pass": {"answer": "("}}`, "parse scenario: invalid: pass.answer: error parsing regexp: missing closing ): `(`"},
		{"outside path", `{"task": "x", "files": {"../a": "b"}}`, `parse scenario: invalid: file "../a": want a relative path inside the workspace`},
		{"unknown field", `{"task": "x", "pas": {}}`, `parse scenario: invalid: json: unknown field "pas"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseScenario([]byte(tt.data))
			if err == nil || err.Error() != tt.want {
				t.Errorf("ParseScenario(%s) = %v, want %s", tt.data, err, tt.want)
			}
		})
	}
	if _, err := ParseConfig([]byte(`{"name": "x", "tools": "huge"}`)); err == nil || err.Error() != `parse config: x: invalid: tools "huge": want small or large` {
		t.Errorf("ParseConfig(tools huge) = %v", err)
	}
	if _, err := LookupConfig("nonesuch"); !errors.Is(err, ErrUnknown) {
		t.Errorf("LookupConfig(nonesuch) = %v, want ErrUnknown", err)
	}
}
