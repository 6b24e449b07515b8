package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/testmodels"
)

// TestKLD: the tiny F32 model against its Q8_0 copy (written by loop
// quantize) gives a small positive divergence; against itself, 0; against
// a model of another vocabulary, a refusal.
func TestKLD(t *testing.T) {
	dir := t.TempDir()
	base := testmodels.Path(t, testmodels.TinyQwen15F32)
	q8 := filepath.Join(dir, "q8.gguf")
	if code, _, errOut := runLoop(t, "quantize", base, q8, "q8_0", "-t", "1"); code != 0 {
		t.Fatalf("quantize: exit %d: %s", code, errOut)
	}
	text := filepath.Join(dir, "text.go")
	src, err := os.ReadFile("kld.go")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(text, src[:1500], 0o644); err != nil {
		t.Fatal(err)
	}
	score := func(other string) map[string]float64 {
		code, out, errOut := runLoop(t, "kld", base, other, "-f", text, "-c", "64", "-t", "1", "--json")
		if code != 0 {
			t.Fatalf("kld: exit %d: %s", code, errOut)
		}
		var r map[string]float64
		if err := json.Unmarshal([]byte(out), &r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	if r := score(q8); r["kld_mean"] <= 0 || r["kld_mean"] > 0.01 || r["positions"] < 20 {
		t.Errorf("F32 against Q8_0: %v; want a small positive mean", r)
	}
	if r := score(base); r["kld_mean"] != 0 || r["kld_max"] != 0 || r["same_top"] != 1 {
		t.Errorf("the model against itself: %v; want 0 and the same top token everywhere", r)
	}
	code, _, errOut := runLoop(t, "kld", base, testmodels.Path(t, testmodels.TinyLlama3Q8), "-f", text, "-c", "64")
	if code == 0 || !strings.Contains(errOut, "vocabularies of") {
		t.Errorf("kld across vocabularies: exit %d, %q; want a refusal", code, errOut)
	}
	if code, _, errOut := runLoop(t, "quantize", base, filepath.Join(dir, "x.gguf"), "q9_9"); code == 0 || !strings.Contains(errOut, "q9_9") {
		t.Errorf("quantize to an unknown type: exit %d, %q", code, errOut)
	}
}
