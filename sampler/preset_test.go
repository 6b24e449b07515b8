package sampler

import (
	"errors"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestPresetNames(t *testing.T) {
	want := []string{"prose", "tool-call"}
	if diff := cmp.Diff(want, PresetNames()); diff != "" {
		t.Errorf("PresetNames() mismatch (-want +got):\n%s", diff)
	}
}

func TestPreset(t *testing.T) {
	tests := []struct {
		name   string
		change func(*Config) // applied to Defaults() to get the want
	}{
		{name: PresetToolCall, change: func(c *Config) {
			c.Temperature, c.MinP = 0.2, 0.05
			c.RepeatPenalty, c.FrequencyPenalty, c.PresencePenalty = 1, 0, 0
			c.DRYMultiplier, c.XTCProbability, c.Mirostat = 0, 0, 0
		}},
		{name: PresetProse, change: func(c *Config) {
			c.Temperature, c.TopP, c.MinP, c.RepeatPenalty = 0.7, 0.95, 0.05, 1
			c.DRYMultiplier, c.DRYBase, c.DRYAllowedLength = 0.8, 1.75, 2
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := Preset(tt.name)
			if err != nil {
				t.Fatalf("Preset(%q) = %v, want no error", tt.name, err)
			}
			want := Defaults()
			tt.change(&want)
			got, err := Resolve(nil, p)
			if err != nil {
				t.Fatalf("Resolve(nil, Preset(%q)) = %v, want no error", tt.name, err)
			}
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Resolve(nil, Preset(%q)) mismatch (-want +got):\n%s", tt.name, diff)
			}
		})
	}
}

func TestPresetUnknown(t *testing.T) {
	_, err := Preset("creative")
	if want := `preset "creative": unknown preset`; err == nil || err.Error() != want || !errors.Is(err, ErrUnknownPreset) {
		t.Errorf("Preset(%q) = %v, want %q", "creative", err, want)
	}
}

// TestPresetLayers checks the layering a tool-call step uses: the GGUF's
// recommendation, under the preset, under the user's flags.
func TestPresetLayers(t *testing.T) {
	meta := map[string]string{
		KeyTemp:           "0.6",
		KeyTopK:           "20",
		KeyXTCProbability: "0.5",
		KeyPenaltyRepeat:  "1.1",
	}
	p, err := Preset(PresetToolCall)
	if err != nil {
		t.Fatal(err)
	}
	flags := Overrides{Temperature: Ptr[float32](0.1)}
	got, err := Resolve(meta, p.Merge(flags))
	if err != nil {
		t.Fatalf("Resolve = %v", err)
	}
	want := Defaults()
	want.TopK = 20                                   // GGUF, untouched by the preset
	want.Temperature = 0.1                           // the user's flag beats the preset's 0.2
	want.XTCProbability, want.RepeatPenalty = 0, 1.0 // the preset beats the GGUF
	want.MinP = 0.05
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Resolve(meta, preset.Merge(flags)) mismatch (-want +got):\n%s", diff)
	}
	// Presets are built afresh: changing one does not change the next.
	*p.Temperature = 9
	again, _ := Preset(PresetToolCall)
	if *again.Temperature != 0.2 {
		t.Errorf("Preset(%q).Temperature = %v after changing a copy, want 0.2", PresetToolCall, *again.Temperature)
	}
}

// TestPresetToolCallOnSeedLogits runs the tool-call preset through
// llama.cpp's whole default chain on Example 6's logits: the right tool
// gets the 0.9994 of the table's temperature 0.2 rows.
func TestPresetToolCallOnSeedLogits(t *testing.T) {
	p, _ := Preset(PresetToolCall)
	cfg, err := Resolve(nil, p)
	if err != nil {
		t.Fatal(err)
	}
	right, wrong, tail := shares(Distribution(cfg, seedLogits, nil))
	if math.Abs(right-0.9994) > 0.00005 || math.Abs(wrong-0.0006) > 0.00005 || tail != 0 {
		t.Errorf("tool-call on seed logits = %.6f, %.6f, %.6f, want 0.9994, 0.0006, 0", right, wrong, tail)
	}
	// The same history of JSON quotes does not lower " under tool-call.
	json := []float32{3.0, 1.0, 0.5}
	history := []int32{0, 0, 0, 0}
	withQuotes := Distribution(cfg, json, history)
	without := Distribution(cfg, json, nil)
	if diff := cmp.Diff(without, withQuotes); diff != "" {
		t.Errorf("tool-call with \" in history changed the distribution (-without +with):\n%s", diff)
	}
}
