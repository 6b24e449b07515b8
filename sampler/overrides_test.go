package sampler

import (
	"errors"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestResolve(t *testing.T) {
	// A Qwen3-style GGUF recommendation.
	qwen := map[string]string{
		"general.sampling.top_k":    "20",
		"general.sampling.top_p":    "0.95",
		"general.sampling.min_p":    "0",
		"general.sampling.temp":     "0.6",
		"general.sampling.sequence": "penalties;top-k;top-p;min-p;temp",
		"general.architecture":      "qwen3", // not a sampling key: ignored
	}
	tests := []struct {
		name   string
		meta   map[string]string
		o      Overrides
		change func(*Config) // applied to Defaults() to get the want
	}{
		{name: "defaults", change: func(*Config) {}},
		{name: "gguf", meta: qwen, change: func(c *Config) {
			c.TopK, c.TopP, c.MinP, c.Temperature = 20, 0.95, 0, 0.6
			c.Order = []Kind{KindPenalties, KindTopK, KindTopP, KindMinP, KindTemperature}
		}},
		{name: "override beats gguf", meta: qwen, o: Overrides{TopK: Ptr(50), Order: Ptr([]Kind{KindTemperature})},
			change: func(c *Config) {
				c.TopK, c.TopP, c.MinP, c.Temperature = 50, 0.95, 0, 0.6
				c.Order = []Kind{KindTemperature}
			}},
		{name: "override without gguf", o: Overrides{Seed: Ptr[uint32](42), Greedy: Ptr(true), PenaltyLastN: Ptr(-1)},
			change: func(c *Config) { c.Seed, c.Greedy, c.PenaltyLastN = 42, true, -1 }},
		{name: "every gguf key", meta: map[string]string{
			KeyTopK: "1", KeyTopP: "0.5", KeyMinP: "0.1", KeyXTCProbability: "0.25", KeyXTCThreshold: "0.2",
			KeyTemp: "1.5", KeyPenaltyLastN: " 128 ", KeyPenaltyRepeat: "1.1", KeyMirostat: "2",
			KeyMirostatTau: "3", KeyMirostatEta: "0.2", KeySequence: "penalties;dry;top_k;temperature",
		}, change: func(c *Config) {
			c.TopK, c.TopP, c.MinP, c.XTCProbability, c.XTCThreshold = 1, 0.5, 0.1, 0.25, 0.2
			c.Temperature, c.PenaltyLastN, c.RepeatPenalty, c.Mirostat = 1.5, 128, 1.1, 2
			c.MirostatTau, c.MirostatEta = 3, 0.2
			c.Order = []Kind{KindPenalties, KindDRY, KindTopK, KindTemperature}
		}},
		{name: "override skips a malformed gguf value", meta: map[string]string{KeyTopK: "many"},
			o: Overrides{TopK: Ptr(5)}, change: func(c *Config) { c.TopK = 5 }},
		{name: "empty sequence is an empty chain", meta: map[string]string{KeySequence: ""},
			change: func(c *Config) { c.Order = []Kind{} }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := Defaults()
			tt.change(&want)
			got, err := Resolve(tt.meta, tt.o)
			if err != nil {
				t.Fatalf("Resolve(%v, %+v) = %v, want no error", tt.meta, tt.o, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Resolve(%v, %+v) mismatch (-want +got):\n%s", tt.meta, tt.o, diff)
			}
		})
	}
}

func TestResolveErrors(t *testing.T) {
	tests := []struct {
		name    string
		meta    map[string]string
		o       Overrides
		wantErr string
		is      error
	}{
		{name: "int", meta: map[string]string{KeyTopK: "abc"},
			wantErr: `resolve general.sampling.top_k: bad value "abc": invalid syntax`, is: ErrBadValue},
		{name: "float where int", meta: map[string]string{KeyPenaltyLastN: "64.5"},
			wantErr: `resolve general.sampling.penalty_last_n: bad value "64.5": invalid syntax`, is: ErrBadValue},
		{name: "int32 range", meta: map[string]string{KeyTopK: "3000000000"},
			wantErr: `resolve general.sampling.top_k: bad value "3000000000": value out of range`, is: ErrBadValue},
		{name: "float", meta: map[string]string{KeyTemp: "warm"},
			wantErr: `resolve general.sampling.temp: bad value "warm": invalid syntax`, is: ErrBadValue},
		{name: "nan", meta: map[string]string{KeyMinP: "NaN"},
			wantErr: `resolve general.sampling.min_p: bad value "NaN": not a number`, is: ErrBadValue},
		{name: "empty", meta: map[string]string{KeyMirostatEta: ""},
			wantErr: `resolve general.sampling.mirostat_eta: bad value "": invalid syntax`, is: ErrBadValue},
		{name: "mirostat range", meta: map[string]string{KeyMirostat: "3"},
			wantErr: `resolve general.sampling.mirostat: bad value "3": want 0, 1 or 2`, is: ErrBadValue},
		{name: "sequence", meta: map[string]string{KeySequence: "top_k;greedy"},
			wantErr: `resolve general.sampling.sequence: unknown sampler "greedy"`, is: ErrUnknownSampler},
		{name: "letters are not a sequence", meta: map[string]string{KeySequence: "edkt"},
			wantErr: `resolve general.sampling.sequence: unknown sampler "edkt"`, is: ErrUnknownSampler},
		{name: "bad override", o: Overrides{Mirostat: Ptr(7)},
			wantErr: `validate Mirostat: bad value 7: want 0, 1 or 2`, is: ErrBadValue},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(tt.meta, tt.o)
			if err == nil || err.Error() != tt.wantErr || !errors.Is(err, tt.is) {
				t.Fatalf("Resolve(%v) = %+v, %v, want error %q", tt.meta, got, err, tt.wantErr)
			}
			var se *Error
			if !errors.As(err, &se) {
				t.Errorf("Resolve(%v) error %T, want *Error", tt.meta, err)
			}
		})
	}
}

func TestMerge(t *testing.T) {
	preset := Overrides{Temperature: Ptr[float32](0.2), MinP: Ptr[float32](0.05), Order: Ptr([]Kind{KindMinP})}
	flags := Overrides{Temperature: Ptr[float32](0.5), TopK: Ptr(10)}
	want := Overrides{
		Temperature: Ptr[float32](0.5),
		MinP:        Ptr[float32](0.05),
		TopK:        Ptr(10),
		Order:       Ptr([]Kind{KindMinP}),
	}
	if diff := cmp.Diff(want, preset.Merge(flags)); diff != "" {
		t.Errorf("Merge mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(preset, preset.Merge(Overrides{})); diff != "" {
		t.Errorf("Merge(Overrides{}) mismatch (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(flags, Overrides{}.Merge(flags)); diff != "" {
		t.Errorf("Overrides{}.Merge mismatch (-want +got):\n%s", diff)
	}
}

// TestOverridesCoverConfig checks, field by field, that Overrides mirrors
// Config and that Merge and Resolve carry every field.
func TestOverridesCoverConfig(t *testing.T) {
	ot, ct := reflect.TypeFor[Overrides](), reflect.TypeFor[Config]()
	if ot.NumField() != ct.NumField() {
		t.Fatalf("Overrides has %d fields, Config %d", ot.NumField(), ct.NumField())
	}
	for i := range ot.NumField() {
		f := ot.Field(i)
		t.Run(f.Name, func(t *testing.T) {
			cf, ok := ct.FieldByName(f.Name)
			if !ok || f.Type != reflect.PointerTo(cf.Type) {
				t.Fatalf("Overrides.%s is %v, want *%v", f.Name, f.Type, cf.Type)
			}
			// A value unlike the default: the default's zero, or one.
			def := reflect.ValueOf(Defaults()).FieldByName(f.Name)
			v := reflect.New(cf.Type)
			switch {
			case cf.Type.Kind() == reflect.Slice:
				v.Elem().Set(reflect.MakeSlice(cf.Type, 1, 1))
			case cf.Type.Kind() == reflect.Bool:
				v.Elem().SetBool(!def.Bool())
			case !def.IsZero():
				v.Elem().Set(reflect.Zero(cf.Type))
			default:
				v.Elem().Set(reflect.ValueOf(1).Convert(cf.Type))
			}
			var o Overrides
			reflect.ValueOf(&o).Elem().Field(i).Set(v)
			merged := Overrides{}.Merge(o)
			if reflect.ValueOf(merged).Field(i).IsNil() {
				t.Errorf("Overrides{}.Merge drops %s", f.Name)
			}
			// Skip Validate: the zero Order would pass, a zero Kind would not.
			c := Defaults()
			o.apply(&c)
			got := reflect.ValueOf(c).FieldByName(f.Name).Interface()
			if !cmp.Equal(got, v.Elem().Interface()) {
				t.Errorf("Resolve with %s set = %v, want %v", f.Name, got, v.Elem().Interface())
			}
		})
	}
}

func FuzzResolve(f *testing.F) {
	f.Add("penalties;top_k;temp", "40", "0.8", "1")
	f.Add("x", "4.5", "warm", "9")
	f.Fuzz(func(t *testing.T, seq, topK, temp, mirostat string) {
		meta := map[string]string{KeySequence: seq, KeyTopK: topK, KeyTemp: temp, KeyMirostat: mirostat}
		c, err := Resolve(meta, Overrides{})
		if err != nil {
			var se *Error
			if !errors.As(err, &se) || se.Op != "resolve" {
				t.Fatalf("Resolve(%v) = %v, want a resolve *Error", meta, err)
			}
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("Resolve(%v) = %+v, which fails Validate: %v", meta, c, err)
		}
	})
}
