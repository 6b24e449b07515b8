package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestMap(t *testing.T) {
	dir := t.TempDir()
	for p, src := range map[string]string{
		"core.go": "package p\n\nfunc Parse(s string) []Token { return nil }\n\ntype Token struct{}\n",
		"use.go":  "package p\n\nfunc Use() { Parse(\"x\") }\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, p), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runLoop(t, "map", "-C", dir)
	want := "core.go\n  func Parse(s string) []Token\n  type Token struct\nuse.go\n  func Use()\n"
	if code != 0 || out != want || !strings.Contains(errOut, "map: 2 of 2 files") {
		t.Errorf("loop map = %d, %q, stderr %q; want %q", code, out, errOut, want)
	}
	code, out, _ = runLoop(t, "map", "-C", dir, "--tokens", "15", "--json")
	var m struct {
		Files []struct{ Path string }
	}
	if err := json.Unmarshal([]byte(out), &m); code != 0 || err != nil || len(m.Files) != 1 || m.Files[0].Path != "core.go" {
		t.Errorf("loop map --tokens 15 --json = %d, %v:\n%s", code, err, out)
	}
}
