package sampler

import "testing"

// TestUnsetLetsTheModelWin: a preset under Unset fills only what the
// model's keys leave unset, and the user's settings win over both.
func TestUnsetLetsTheModelWin(t *testing.T) {
	meta := map[string]string{KeyTemp: "0.9", KeyTopK: "17"}
	preset := Overrides{Temperature: Ptr[float32](0.7), TopK: Ptr(40), MinP: Ptr[float32](0.05)}
	c, err := Resolve(meta, preset.Unset(meta))
	if err != nil {
		t.Fatal(err)
	}
	if c.Temperature != 0.9 || c.TopK != 17 || c.MinP != 0.05 {
		t.Errorf("Resolve(meta, preset.Unset(meta)) = temp %v, top_k %d, min_p %v; want 0.9, 17, 0.05", c.Temperature, c.TopK, c.MinP)
	}
	c, err = Resolve(meta, preset.Unset(meta).Merge(Overrides{Temperature: Ptr[float32](0.3)}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Temperature != 0.3 || c.TopK != 17 {
		t.Errorf("with the user's temp: temp %v, top_k %d; want 0.3, 17", c.Temperature, c.TopK)
	}
	if preset.TopK == nil || *preset.TopK != 40 {
		t.Errorf("Unset changed its receiver")
	}
}
