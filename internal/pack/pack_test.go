package pack

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	exe := write(t, dir, "exe", bytes.Repeat([]byte("ELF!"), 1001))
	model := []byte("GGUF" + strings.Repeat("weights", 3000))
	out := filepath.Join(dir, "mytool")
	if err := Write(out, exe, write(t, dir, "m.gguf", model)); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(out); st.Mode()&0o111 == 0 {
		t.Errorf("the packed file is not executable: %v", st.Mode())
	}
	info, ok, err := Find(out)
	if err != nil || !ok {
		t.Fatalf("Find = %v, %v", ok, err)
	}
	if info.Offset%align != 0 || info.Size != int64(len(model)) {
		t.Errorf("info %+v: want a page-aligned offset and %d bytes", info, len(model))
	}
	cache := filepath.Join(dir, "cache")
	p, err := Extract(out, info, cache)
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); !bytes.Equal(got, model) {
		t.Errorf("extracted %d bytes, not the model", len(got))
	}
	// A second start finds the copy.
	if p2, err := Extract(out, info, cache); err != nil || p2 != p {
		t.Errorf("second Extract = %q, %v", p2, err)
	}
	// The executable part is unchanged.
	if got, _ := os.ReadFile(out); !bytes.HasPrefix(got, bytes.Repeat([]byte("ELF!"), 1001)) {
		t.Error("the executable part changed")
	}
	if _, ok, err := Find(exe); ok || err != nil {
		t.Errorf("Find on a plain file = %v, %v; want not packed", ok, err)
	}
}

func TestBadInput(t *testing.T) {
	dir := t.TempDir()
	exe := write(t, dir, "exe", []byte("ELF"))
	if err := Write(filepath.Join(dir, "o"), exe, write(t, dir, "x.zip", []byte("PK\x03\x04zip"))); !errors.Is(err, ErrNotGGUF) {
		t.Errorf("packing a zip: %v, want ErrNotGGUF", err)
	}
	if err := Write(filepath.Join(dir, "o"), exe, filepath.Join(dir, "missing.gguf")); !errors.Is(err, os.ErrNotExist) || !strings.Contains(err.Error(), "missing.gguf") {
		t.Errorf("packing a missing file: %v", err)
	}
	out := filepath.Join(dir, "tool")
	if err := Write(out, exe, write(t, dir, "m.gguf", []byte("GGUF1234"))); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	// A flipped model byte fails the hash on extraction.
	b[len(b)-footerSize-1] ^= 1
	bad := write(t, dir, "bad", b)
	info, ok, err := Find(bad)
	if err != nil || !ok {
		t.Fatal(ok, err)
	}
	if _, err := Extract(bad, info, filepath.Join(dir, "c")); err == nil || !strings.Contains(err.Error(), "hash") {
		t.Errorf("Extract of a damaged model = %v, want a hash error", err)
	}
	// A footer that points outside the file is refused.
	b[len(b)-footerSize+16] ^= 0x40
	if _, _, err := Find(write(t, dir, "bad2", b)); err == nil {
		t.Error("Find accepted a footer pointing outside the file")
	}
}

func FuzzFind(f *testing.F) {
	f.Add([]byte("GGUF"))
	f.Add(append(make([]byte, 64), []byte(Magic)...))
	f.Fuzz(func(t *testing.T, b []byte) {
		p := filepath.Join(t.TempDir(), "f")
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		info, ok, err := Find(p)
		if ok && (err != nil || info.Offset+info.Size+footerSize != int64(len(b))) {
			t.Fatalf("inconsistent %+v %v %v", info, ok, err)
		}
	})
}
