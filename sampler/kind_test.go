package sampler

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDefaultOrder(t *testing.T) {
	// common_params_sampling.samplers in common/common.h.
	want := []Kind{"penalties", "dry", "top_n_sigma", "top_k", "typ_p", "top_p", "min_p", "xtc", "temperature"}
	if diff := cmp.Diff(want, DefaultOrder()); diff != "" {
		t.Errorf("DefaultOrder() mismatch (-want +got):\n%s", diff)
	}
	if got, err := ParseSequence("edskypmxt"); err != nil || !cmp.Equal(got, DefaultOrder()) {
		t.Errorf("ParseSequence(%q) = %v, %v, want DefaultOrder()", "edskypmxt", got, err)
	}
}

func TestParseOrder(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Kind
		wantErr string
	}{
		{name: "canonical", in: "penalties;dry;top_k", want: []Kind{KindPenalties, KindDRY, KindTopK}},
		{name: "default", in: "penalties;dry;top_n_sigma;top_k;typ_p;top_p;min_p;xtc;temperature", want: DefaultOrder()},
		{name: "dash aliases", in: "top-k;top-p;top-n-sigma;min-p;typ-p;typical-p",
			want: []Kind{KindTopK, KindTopP, KindTopNSigma, KindMinP, KindTypicalP, KindTypicalP}},
		{name: "word aliases", in: "nucleus;typical;typ;temp",
			want: []Kind{KindTopP, KindTypicalP, KindTypicalP, KindTemperature}},
		{name: "infill", in: "infill;temp", want: []Kind{KindInfill, KindTemperature}},
		{name: "repeats kept", in: "temp;temp", want: []Kind{KindTemperature, KindTemperature}},
		{name: "empty names skipped", in: "top_k;;temp;", want: []Kind{KindTopK, KindTemperature}},
		{name: "empty", in: "", want: []Kind{}},
		{name: "unknown", in: "top_k;foo", wantErr: `parse samplers "top_k;foo": unknown sampler "foo"`},
		{name: "all unknown named", in: "foo;top_k;bar", wantErr: `parse samplers "foo;top_k;bar": unknown sampler "foo", "bar"`},
		{name: "case-sensitive", in: "Top_K", wantErr: `parse samplers "Top_K": unknown sampler "Top_K"`},
		{name: "no trimming", in: "top_k; temp", wantErr: `parse samplers "top_k; temp": unknown sampler " temp"`},
		{name: "comma is not a separator", in: "top_k,temp", wantErr: `parse samplers "top_k,temp": unknown sampler "top_k,temp"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseOrder(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrUnknownSampler) {
					t.Fatalf("ParseOrder(%q) = %v, %v, want error %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseOrder(%q) = %v, want no error", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseOrder(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestParseSequence(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    []Kind
		wantErr string
	}{
		{name: "default", in: "edskypmxt", want: DefaultOrder()},
		{name: "short", in: "kt", want: []Kind{KindTopK, KindTemperature}},
		{name: "infill", in: "i", want: []Kind{KindInfill}},
		{name: "empty", in: "", want: []Kind{}},
		{name: "unknown", in: "kzt", wantErr: `parse sampling-seq "kzt": unknown sampler 'z'`},
		{name: "upper case", in: "KT", wantErr: `parse sampling-seq "KT": unknown sampler 'K', 'T'`},
		{name: "non-ASCII", in: "kÿ", wantErr: `parse sampling-seq "kÿ": unknown sampler 'ÿ'`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseSequence(tt.in)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr || !errors.Is(err, ErrUnknownSampler) {
					t.Fatalf("ParseSequence(%q) = %v, %v, want error %q", tt.in, got, err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatalf("ParseSequence(%q) = %v, want no error", tt.in, err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ParseSequence(%q) mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

func TestKindLetters(t *testing.T) {
	// common_sampler_type_to_chr in common/sampling.cpp.
	tests := []struct {
		name   string
		kind   Kind
		letter byte
	}{
		{"penalties", KindPenalties, 'e'},
		{"dry", KindDRY, 'd'},
		{"top_n_sigma", KindTopNSigma, 's'},
		{"top_k", KindTopK, 'k'},
		{"typ_p", KindTypicalP, 'y'},
		{"top_p", KindTopP, 'p'},
		{"min_p", KindMinP, 'm'},
		{"xtc", KindXTC, 'x'},
		{"temperature", KindTemperature, 't'},
		{"infill", KindInfill, 'i'},
		{"unknown", Kind("mirostat"), '?'},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.letter != '?' {
				if got, err := ParseSequence(string(tt.letter)); err != nil || len(got) != 1 || got[0] != tt.kind {
					t.Errorf("ParseSequence(%q) = %v, %v, want [%s]", tt.letter, got, err, tt.kind)
				}
			}
			if got, want := tt.kind.Known(), tt.letter != '?'; got != want {
				t.Errorf("Kind(%q).Known() = %v, want %v", tt.kind, got, want)
			}
		})
	}
}

func FuzzParseOrder(f *testing.F) {
	for _, s := range []string{"", "penalties;dry;top_k", "top-k;nucleus;temp", ";;", "foo;bar", "top_k;\xff", "temperature;"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		order, err := ParseOrder(s)
		if err != nil {
			if !errors.Is(err, ErrUnknownSampler) {
				t.Fatalf("ParseOrder(%q) = %v, want ErrUnknownSampler", s, err)
			}
			return
		}
		// Round trip: the canonical form parses to the same chain.
		again, err := ParseOrder(FormatOrder(order))
		if err != nil || !cmp.Equal(order, again) {
			t.Fatalf("ParseOrder(FormatOrder(%v)) = %v, %v, want %v", order, again, err, order)
		}
	})
}

func FuzzParseSequence(f *testing.F) {
	for _, s := range []string{"", "edskypmxt", "kt", "KZ", "\xff"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		order, err := ParseSequence(s)
		if err != nil {
			if !errors.Is(err, ErrUnknownSampler) {
				t.Fatalf("ParseSequence(%q) = %v, want ErrUnknownSampler", s, err)
			}
			return
		}
		// One known sampler per letter.
		if len(order) != len(s) {
			t.Fatalf("ParseSequence(%q) = %v: %d samplers for %d letters", s, order, len(order), len(s))
		}
		for _, k := range order {
			if !k.Known() {
				t.Fatalf("ParseSequence(%q) = %v: %q is not a sampler", s, order, k)
			}
		}
	})
}
