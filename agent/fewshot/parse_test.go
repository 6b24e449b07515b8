package fewshot

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParse(t *testing.T) {
	got, err := Parse([]byte(`[{"user": "Which Java version does the build use?",
		"call": {"name": "read_file", "arguments": {"path": "example/build.gradle"}},
		"result": "1| plugins { id 'java' }\n2| java { toolchain { languageVersion = JavaLanguageVersion.of(21) } }",
		"answer": "The build uses Java 21 (line 2 of example/build.gradle)."}]`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(Default()[:1], got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for raw, want := range map[string]string{
		`{}`: "cannot unmarshal",
		`[{"user": "q", "call": {"name": "x", "arguments": {}}, "result": "r"}]`:                 "answer are required",
		`[{"user": "q", "call": {"name": "x", "arguments": [1]}, "result": "r", "answer": "a"}]`: "must be a JSON object",
		`[{"user": "q", "call": {"name": "x"}, "result": "r", "answer": "a"}]`:                   "must be a JSON object",
	} {
		if _, err := Parse([]byte(raw)); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse(%s) = %v, want an error with %q", raw, err, want)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte(`[{"user": "q", "call": {"name": "x", "arguments": {"a": "b"}}, "result": "r", "answer": "a"}]`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		shots, err := Parse(data)
		if err != nil {
			return
		}
		for _, m := range shots.Messages() {
			_ = m
		}
		for _, s := range shots {
			if s.User == "" || s.Call.Function.Name == "" {
				t.Fatalf("accepted an incomplete shot %+v", s)
			}
		}
	})
}
