package choose

import (
	"math"

	"github.com/google/go-cmp/cmp"
	"strings"
	"testing"

	"github.com/loopagent/loop/internal/golden"
	"github.com/loopagent/loop/internal/testmodels"
)

// seedCandidates are seed 000 Example 12's five example candidates:
// parameters in billions, layers, KV heads, head size, bits per weight,
// trained context, tool support, tasks passed of tasks.
func seedCandidates() []Candidate {
	c := func(name string, paramsB float64, layers, kvHeads, headDim int, bpw float64, trained int, tools bool, passed, tasks int) Candidate {
		return Candidate{Name: name, Params: paramsB * 1e9, WeightBytes: paramsB * 1e9 * bpw / 8, Layers: layers, KVHeads: kvHeads,
			HeadDimK: headDim, HeadDimV: headDim, TrainedContext: trained, Tools: tools, Passed: passed, Tasks: tasks}
	}
	return []Candidate{
		c("cand-1", 7.6, 28, 4, 128, 4.9, 32_768, true, 31, 50),
		c("cand-2", 14.8, 48, 8, 128, 4.9, 32_768, true, 36, 50),
		c("cand-3", 3.1, 36, 2, 128, 8.5, 32_768, true, 19, 50),
		c("cand-4", 8.0, 32, 8, 128, 4.9, 131_072, false, 0, 0),
		c("cand-5", 6.7, 32, 4, 128, 4.9, 16_384, true, 0, 0),
	}
}

// licensed gives the seed's candidates licenses as GGUF files name them.
// The seed lists the license among the hard constraints but its example
// gives none, so these are made up: one SPDX identifier in two spellings,
// one "other" license with its name and link, and one file without any.
func licensed() []Candidate {
	cands := seedCandidates()
	cands[0].License = "apache-2.0"
	cands[1].License = "Apache-2.0"
	cands[2].License, cands[2].LicenseName, cands[2].LicenseLink = "other", "qwen-research", "https://example.com/LICENSE"
	cands[3].License = "mit"
	return cands
}

// TestSeedExample12 judges the seed's five candidates with its budget (12
// GB) and context (32,768 tokens), the zero Constraints, and compares the
// table with the seed's printed output, copied verbatim. Accepting every
// license the candidates have prints the same table: the license comes
// last among the hard constraints, and an accepted one changes nothing.
func TestSeedExample12(t *testing.T) {
	tests := []struct {
		name  string
		cands []Candidate
		cons  Constraints
	}{
		{"no license constraint", seedCandidates(), Constraints{}},
		{"licenses unchecked", licensed(), Constraints{}},
		{"every license allowed", licensed(), Constraints{Licenses: []string{"mit", "APACHE-2.0", "qwen-research"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			all, ranked := Choose(tt.cands, tt.cons)
			var b strings.Builder
			if err := WriteTable(&b, all, ranked); err != nil {
				t.Fatal(err)
			}
			golden.Seed(t, "example12.txt", b.String())
		})
	}
}

// TestLicense: with a list of accepted licenses, a kept candidate whose
// license is not on it is rejected, and the ranking holds the rest. The
// license is compared without case, by identifier or, for "other", by
// its name; a file that names none is rejected.
func TestLicense(t *testing.T) {
	tests := []struct {
		name    string
		allowed []string
		kept    []string
	}{
		{"apache only", []string{"apache-2.0"}, []string{"cand-1"}},
		{"by name", []string{"qwen-research"}, []string{"cand-3"}},
		{"both", []string{"Apache-2.0", "qwen-research"}, []string{"cand-1", "cand-3"}},
		{"none accepted", []string{"gpl-3.0"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ranked := Choose(licensed(), Constraints{Licenses: tt.allowed})
			var kept []string
			for _, v := range ranked {
				kept = append(kept, v.Candidate.Name)
			}
			if diff := cmp.Diff(tt.kept, kept); diff != "" {
				t.Errorf("Choose with licenses %q: kept (-want +got):\n%s", tt.allowed, diff)
			}
		})
	}
	// The table: the seed's, less cand-3, whose license is not accepted,
	// and with cand-6, a copy of cand-1 whose file names no license. cand-5
	// names none either, but its trained context rejects it first (the
	// constraints' order).
	cands := licensed()
	six := cands[0]
	six.Name, six.License = "cand-6", ""
	cands = append(cands, six)
	all, ranked := Choose(cands, Constraints{Licenses: []string{"apache-2.0", "mit"}})
	var b strings.Builder
	if err := WriteTable(&b, all, ranked); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "table.txt", b.String())
}

// TestKVType: a quantized KV cache changes cand-2's verdict, as the seed
// says it would. q8_0 is 34 bytes per 32 elements: 3.42 GB of cache,
// 12.5 GB in all, still over 12; q4_0 is 18 per 32: 1.81 GB, kept.
func TestKVType(t *testing.T) {
	tests := []struct {
		kv       string
		kvGB     float64
		rejected string
	}{
		{"f16", 6.44, "needs 15.5 GB > 12 GB"},
		{"q8_0", 3.42, "needs 12.5 GB > 12 GB"},
		{"q4_0", 1.81, ""},
	}
	for _, tt := range tests {
		all, _ := Choose(seedCandidates()[1:2], Constraints{KVType: tt.kv})
		if v := all[0]; v.Rejected != tt.rejected || math.Abs(v.KVGB-tt.kvGB) >= 0.005 {
			t.Errorf("cand-2 with %s KV: %.2f GB, rejected %q; want %.2f GB, %q", tt.kv, v.KVGB, v.Rejected, tt.kvGB, tt.rejected)
		}
	}
}

// TestReadGGUF reads a generated test model's metadata and checks it
// against what llama.cpp reports for the same file (`loop info`'s test:
// trained context 32768, weights 0.08 GB + KV 0.01 GB at 32768 tokens,
// the Hermes call format).
func TestReadGGUF(t *testing.T) {
	c, err := ReadGGUF(testmodels.Path(t, testmodels.TinyQwen15F32))
	if err != nil {
		t.Fatal(err)
	}
	all, _ := Choose([]Candidate{c}, Constraints{BudgetGB: 1, Context: 32768})
	v := all[0]
	if c.TrainedContext != 32768 || !c.Tools || c.Format != "hermes" || v.Rejected != "" {
		t.Errorf("ReadGGUF = %+v, verdict %+v; want trained 32768, tools, hermes, kept", c, v)
	}
	var b strings.Builder
	WriteTable(&b, all, nil)
	if want := "weights 0.08 GB + KV 0.01 GB"; !strings.Contains(b.String(), want) {
		t.Errorf("table %q lacks %q", b.String(), want)
	}
	if bpw := 8 * c.WeightBytes / c.Params; bpw < 31 || bpw > 33 {
		t.Errorf("ReadGGUF: %v bits per weight, want about 32 for F32 weights", bpw)
	}
}

// TestReadGGUFLicense reads general.license, general.license.name and
// general.license.link from a file's metadata.
func TestReadGGUFLicense(t *testing.T) {
	path := testmodels.WithMetadata(t, testmodels.TinyQwen15F32, map[string]any{
		"general.license":      "other",
		"general.license.name": "qwen-research",
		"general.license.link": "https://example.com/LICENSE",
	})
	c, err := ReadGGUF(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.License != "other" || c.LicenseName != "qwen-research" || c.LicenseLink != "https://example.com/LICENSE" {
		t.Errorf("ReadGGUF license = %q, %q, %q; want other, qwen-research and the link", c.License, c.LicenseName, c.LicenseLink)
	}
	c, err = ReadGGUF(testmodels.Path(t, testmodels.TinyQwen15F32))
	if err != nil || c.License != "" || c.Licensed([]string{"apache-2.0"}) {
		t.Errorf("ReadGGUF of a file without a license = %q, %v; want none, and not licensed", c.License, err)
	}
}
