package sampler

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaults(t *testing.T) {
	// The values of struct common_params_sampling in common/common.h, as
	// float32 like llama.cpp's float fields.
	want := Config{
		Seed:             0xFFFFFFFF, // LLAMA_DEFAULT_SEED
		Temperature:      0.80,
		DynatempRange:    0.00,
		DynatempExponent: 1.00,
		TopK:             40,
		TopP:             0.95,
		MinP:             0.05,
		TypicalP:         1.00,
		TopNSigma:        -1.00,
		XTCProbability:   0.00,
		XTCThreshold:     0.10,
		DRYMultiplier:    0.0,
		DRYBase:          1.75,
		DRYAllowedLength: 2,
		DRYLastN:         -1,
		DRYBreakers:      []string{"\n", ":", "\"", "*"},
		RepeatPenalty:    1.00,
		FrequencyPenalty: 0.00,
		PresencePenalty:  0.00,
		PenaltyLastN:     64,
		Mirostat:         0,
		MirostatTau:      5.00,
		MirostatEta:      0.10,
		MinKeep:          0,
		Order: []Kind{KindPenalties, KindDRY, KindTopNSigma, KindTopK, KindTypicalP,
			KindTopP, KindMinP, KindXTC, KindTemperature},
	}
	if diff := cmp.Diff(want, Defaults()); diff != "" {
		t.Errorf("Defaults() mismatch (-want +got):\n%s", diff)
	}
	if got := Defaults().Seed; got != RandomSeed {
		t.Errorf("Defaults().Seed = %#x, want RandomSeed", got)
	}
	// Each call returns its own slices.
	a := Defaults()
	a.Order[0] = KindTopK
	a.DRYBreakers[0] = "x"
	if diff := cmp.Diff(want, Defaults()); diff != "" {
		t.Errorf("Defaults() after changing a copy mismatch (-want +got):\n%s", diff)
	}
}

// fakeTokenize splits on spaces and maps each word to its length.
func fakeTokenize(s string) ([]int32, error) {
	if s == "fail" {
		return nil, errors.New("tokenizer broke")
	}
	var ids []int32
	for _, w := range strings.Fields(s) {
		ids = append(ids, int32(len(w)))
	}
	return ids, nil
}

func TestResolveBias(t *testing.T) {
	inf := float32(math.Inf(-1))
	tests := []struct {
		name     string
		bias     []Bias
		tokenize func(string) ([]int32, error)
		want     map[int32]float32
		wantErr  string
	}{
		{name: "none", want: map[int32]float32{}},
		{name: "ids", bias: []Bias{{Token: 5, Value: 1.5}, {Token: 7, Value: inf}},
			want: map[int32]float32{5: 1.5, 7: inf}},
		{name: "same id adds up", bias: []Bias{{Token: 5, Value: 1}, {Token: 5, Value: 2}},
			want: map[int32]float32{5: 3}},
		{name: "text", bias: []Bias{{Text: "ab cde", Value: -2}}, tokenize: fakeTokenize,
			want: map[int32]float32{2: -2, 3: -2}},
		{name: "text biases each distinct token once", bias: []Bias{{Text: "ab cd ef", Value: -2}},
			tokenize: fakeTokenize, want: map[int32]float32{2: -2}},
		{name: "text and id merge", bias: []Bias{{Token: 2, Value: 1}, {Text: "ab", Value: 0.5}, {Token: 9, Text: "abc", Value: 3}},
			tokenize: fakeTokenize, want: map[int32]float32{2: 1.5, 3: 3}},
		{name: "text without tokenizer", bias: []Bias{{Text: "ab", Value: 1}},
			wantErr: `resolve bias "ab": text bias needs a tokenizer`},
		{name: "tokenizer error", bias: []Bias{{Text: "fail", Value: 1}}, tokenize: fakeTokenize,
			wantErr: `resolve bias "fail": tokenizer broke`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Config{LogitBias: tt.bias}
			got, err := c.ResolveBias(tt.tokenize)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ResolveBias(%v) = %v, %v, want error %q", tt.bias, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ResolveBias(%v) = %v, want no error", tt.bias, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ResolveBias(%v) mismatch (-want +got):\n%s", tt.bias, diff)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*Config)
		wantErr string
	}{
		{name: "defaults", change: func(*Config) {}},
		{name: "mirostat 2", change: func(c *Config) { c.Mirostat = 2 }},
		{name: "mirostat 3", change: func(c *Config) { c.Mirostat = 3 },
			wantErr: "validate Mirostat: bad value 3: want 0, 1 or 2"},
		{name: "negative min_keep", change: func(c *Config) { c.MinKeep = -1 },
			wantErr: "validate MinKeep: bad value -1: want >= 0"},
		{name: "unknown kind", change: func(c *Config) { c.Order = []Kind{"top_k", "mirostat"} },
			wantErr: `validate Order: unknown sampler "mirostat"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := Defaults()
			tt.change(&c)
			err := c.Validate()
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tt.wantErr {
				t.Errorf("Validate() = %q, want %q", got, tt.wantErr)
			}
		})
	}
}
