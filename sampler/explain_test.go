package sampler

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestWriteExplain compares WriteExplain with the real output of seed 000
// Example 6's Java program, copied verbatim from the seed. The golden file
// is that reference, not a snapshot of WriteExplain, so there is no
// -update for it: one differing character fails the test.
func TestWriteExplain(t *testing.T) {
	want, err := os.ReadFile(filepath.Join("testdata", t.Name(), "seed000-example6.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var got bytes.Buffer
	if err := WriteExplain(&got); err != nil {
		t.Fatalf("WriteExplain = %v", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("WriteExplain mismatch (-seed +got):\n%s", cmp.Diff(string(want), got.String()))
	}
}

// TestWriteExplainWidths checks the Java printf column widths that
// WriteExplain reproduces.
func TestWriteExplainWidths(t *testing.T) {
	tests := []struct {
		name        string
		x           float64
		width, prec int
		want        string
	}{
		{"%4.1f", 0.2, 4, 1, " 0.2"},
		{"%5.2f", 0.05, 5, 2, " 0.05"},
		{"%12.4f", 0.99938, 12, 4, "      0.9994"},
		{"%25.4f", 1, 25, 4, "                   1.0000"},
		{"%.4f", 0.82140, 0, 4, "0.8214"},
		{"half up on the shortest decimal", 0.00005, 0, 4, "0.0001"},
		{"too wide for the column", 12345.5, 4, 1, "12345.5"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := field(tt.x, tt.width, tt.prec); got != tt.want {
				t.Errorf("field(%v, %d, %d) = %q, want %q", tt.x, tt.width, tt.prec, got, tt.want)
			}
		})
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestWriteExplainError(t *testing.T) {
	if err := WriteExplain(failWriter{}); err == nil {
		t.Errorf("WriteExplain(failing writer) = nil, want an error")
	}
}
