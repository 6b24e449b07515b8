package sampler

import (
	"errors"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaults(t *testing.T) {
	want := commonDefaults(t)
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

// commonDefaults reads the defaults of struct common_params_sampling from
// common/common.h of the pinned llama.cpp (through the third_party link
// that make creates), as float32 like llama.cpp's float fields.
func commonDefaults(t *testing.T) Config {
	t.Helper()
	read := func(name string) string {
		b, err := os.ReadFile("../third_party/llama.cpp/" + name)
		if err != nil {
			t.Fatalf("%v (run make to create third_party/llama.cpp)", err)
		}
		return string(b)
	}
	header := read("common/common.h")
	start := strings.Index(header, "struct common_params_sampling {")
	if start < 0 {
		t.Fatal("common.h: no struct common_params_sampling")
	}
	body := header[start:]
	body = body[:strings.Index(body, "\n};")]

	nums := map[string]float64{}
	for _, m := range regexp.MustCompile(`(?m)^\s*(?:float|int32_t)\s+(\w+)\s*=\s*(-?[0-9.]+)f?\s*;`).FindAllStringSubmatch(body, -1) {
		v, err := strconv.ParseFloat(m[2], 32)
		if err != nil {
			t.Fatalf("common.h: %s = %s: %v", m[1], m[2], err)
		}
		nums[m[1]] = v
	}
	num := func(name string) float64 {
		v, ok := nums[name]
		if !ok {
			t.Fatalf("common.h: no default for %s", name)
		}
		return v
	}
	f32 := func(name string) float32 { return float32(num(name)) }
	int_ := func(name string) int { return int(num(name)) }

	var breakers []string
	line := regexp.MustCompile(`dry_sequence_breakers\s*=\s*\{(.*)\}`).FindStringSubmatch(body)
	if line == nil {
		t.Fatal("common.h: no dry_sequence_breakers")
	}
	for _, lit := range regexp.MustCompile(`"(?:[^"\\]|\\.)*"`).FindAllString(line[1], -1) {
		s, err := strconv.Unquote(lit)
		if err != nil {
			t.Fatalf("common.h: breaker %s: %v", lit, err)
		}
		breakers = append(breakers, s)
	}

	kinds := map[string]Kind{
		"PENALTIES": KindPenalties, "DRY": KindDRY, "TOP_N_SIGMA": KindTopNSigma,
		"TOP_K": KindTopK, "TYPICAL_P": KindTypicalP, "TOP_P": KindTopP,
		"MIN_P": KindMinP, "XTC": KindXTC, "TEMPERATURE": KindTemperature,
	}
	samplers := body[strings.Index(body, "samplers = {"):]
	samplers = samplers[:strings.Index(samplers, "};")]
	var order []Kind
	for _, m := range regexp.MustCompile(`COMMON_SAMPLER_TYPE_(\w+)`).FindAllStringSubmatch(samplers, -1) {
		k, ok := kinds[m[1]]
		if !ok {
			t.Fatalf("common.h: unknown sampler %s", m[0])
		}
		order = append(order, k)
	}

	seed := regexp.MustCompile(`#define LLAMA_DEFAULT_SEED (0x[0-9A-Fa-f]+)`).FindStringSubmatch(read("include/llama.h"))
	if seed == nil {
		t.Fatal("llama.h: no LLAMA_DEFAULT_SEED")
	}
	s, err := strconv.ParseUint(seed[1], 0, 32)
	if err != nil {
		t.Fatal(err)
	}

	return Config{
		Seed:             uint32(s),
		Temperature:      f32("temp"),
		DynatempRange:    f32("dynatemp_range"),
		DynatempExponent: f32("dynatemp_exponent"),
		TopK:             int_("top_k"),
		TopP:             f32("top_p"),
		MinP:             f32("min_p"),
		TypicalP:         f32("typ_p"),
		TopNSigma:        f32("top_n_sigma"),
		XTCProbability:   f32("xtc_probability"),
		XTCThreshold:     f32("xtc_threshold"),
		DRYMultiplier:    f32("dry_multiplier"),
		DRYBase:          f32("dry_base"),
		DRYAllowedLength: int_("dry_allowed_length"),
		DRYLastN:         int_("dry_penalty_last_n"),
		DRYBreakers:      breakers,
		RepeatPenalty:    f32("penalty_repeat"),
		FrequencyPenalty: f32("penalty_freq"),
		PresencePenalty:  f32("penalty_present"),
		PenaltyLastN:     int_("penalty_last_n"),
		Mirostat:         int_("mirostat"),
		MirostatTau:      f32("mirostat_tau"),
		MirostatEta:      f32("mirostat_eta"),
		MinKeep:          int_("min_keep"),
		Order:            order,
	}
}
