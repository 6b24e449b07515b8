package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/golden"
	"github.com/loopagent/loop/internal/testmodels"
)

// TestTokenizeEstimate: `loop tokenize --estimate` on seed 002 Example
// 2's JSON line (json.txt, the seed's text) with the test models' Llama 3
// and Qwen2 tokenizers prints the seed's header and its json row
// verbatim: 95 characters, an estimate of 24, 33 and 34 real tokens,
// -29%, 2.79 characters per token. The seed gives the texts of its other
// four samples (prose, Java, a Maven log, a commit hash) only as counts,
// so they cannot be measured here; agent/window's TestSeedEstimates
// prints the whole table from the seed's counts.
func TestTokenizeEstimate(t *testing.T) {
	llama3 := testmodels.Path(t, testmodels.TinyLlama3Q8)
	qwen := testmodels.Path(t, testmodels.TinyQwen15F32)
	sample := golden.Path(t, "json.txt")
	code, out, errOut := runLoop(t, "tokenize", "--estimate", "--vocab", "llama3="+llama3, "--vocab", "qwen2="+qwen, sample)
	if code != 0 {
		t.Fatalf("loop tokenize --estimate exited %d: %s", code, errOut)
	}
	lines := strings.SplitAfter(out, "\n")
	if len(lines) < 2 {
		t.Fatalf("loop tokenize --estimate printed %q", out)
	}
	golden.Seed(t, "seed002_example02.txt", lines[0]+lines[1])
	golden.Check(t, "estimate.txt", out)

	// -m names its column by the vocabulary's pre-tokenizer; --json has
	// the same rows.
	code, out, errOut = runLoop(t, "tokenize", "--estimate", "--json", "-m", qwen, "--chars-per-token", "3", sample)
	var r estimateReport
	if code != 0 || json.Unmarshal([]byte(out), &r) != nil {
		t.Fatalf("loop tokenize --estimate --json: %d %s %s", code, out, errOut)
	}
	if row := r.Rows[0]; strings.Join(r.Vocabularies, ",") != "qwen2" || row.Kind != "json" || row.Estimate != 32 || row.Worst != 34 || row.ErrorPct != -6 {
		t.Errorf("loop tokenize --estimate --json --chars-per-token 3 = %+v; want qwen2, json, 32 estimated, 34 real, -6%%", r)
	}
	if code, _, _ := runLoop(t, "tokenize", "--estimate", sample); code != 2 {
		t.Errorf("loop tokenize --estimate without a vocabulary exited %d, want 2", code)
	}
}
