package tools

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func grepWorkspace(t *testing.T, cfg Config) *Workspace {
	return newWorkspace(t, map[string]string{
		"order.go":                orderGo,
		"order_test.go":           "package order\n\nfunc TestTotal(t *testing.T) {\n\tif got := (Order{Items: []int{10, 20}}).Total(); got != 30 {\n",
		"sub/util.go":             "package sub\n// Total helper\n",
		"bin.dat":                 "Total\x00binary",
		".git/config":             "Total in git\n",
		"node_modules/x/index.js": "Total in deps\n",
	}, cfg)
}

func TestGrep(t *testing.T) {
	ws := grepWorkspace(t, Config{})
	tests := []struct {
		name string
		args string
		want Result
	}{
		{name: "whole workspace", args: `{"pattern": "Total"}`, want: Result{Content: "order.go:5: // Total is the sum of the items.\n" +
			"order.go:6: func (o Order) Total() int {\n" +
			"order_test.go:3: func TestTotal(t *testing.T) {\n" +
			"order_test.go:4: \tif got := (Order{Items: []int{10, 20}}).Total(); got != 30 {\n" +
			"sub/util.go:2: // Total helper"}},
		{name: "regexp", args: `{"pattern": "^func \\w+Total"}`, want: Result{Content: "order_test.go:3: func TestTotal(t *testing.T) {"}},
		{name: "directory", args: `{"pattern": "Total", "path": "sub"}`, want: Result{Content: "sub/util.go:2: // Total helper"}},
		{name: "file", args: `{"pattern": "sum", "path": "order.go"}`, want: Result{Content: "order.go:5: // Total is the sum of the items.\n" +
			"order.go:7: \tsum := 0\norder.go:9: \t\tsum += it\norder.go:11: \treturn sum - 3"}},
		{name: "inside a skipped directory when asked", args: `{"pattern": "Total", "path": "node_modules"}`,
			want: Result{Content: "node_modules/x/index.js:1: Total in deps"}},
		{name: "no match", args: `{"pattern": "nothing here"}`, want: Result{Content: `No matches for "nothing here" in the workspace.`}},
		{name: "bad regexp", args: `{"pattern": "(unclosed"}`,
			want: Result{IsError: true, Content: "grep: pattern \"(unclosed\" is not a Go regular expression: missing closing ): `(unclosed`"}},
		{name: "missing path", args: `{"pattern": "x", "path": "nope"}`, want: Result{Content: `No matches for "x" in nope.`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := call(t, Grep{}, ws, tt.args)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("grep(%s) mismatch (-want +got):\n%s", tt.args, diff)
			}
		})
	}
}

func TestGrepCaps(t *testing.T) {
	var many strings.Builder
	for i := range 50 {
		fmt.Fprintf(&many, "match %d\n", i)
	}
	ws := newWorkspace(t, map[string]string{"many.txt": many.String(), "long.txt": "match " + strings.Repeat("y", 300) + "\n"}, Config{MaxMatches: 3})
	got := call(t, Grep{}, ws, `{"pattern": "match", "path": "many.txt"}`)
	want := "many.txt:1: match 0\nmany.txt:2: match 1\nmany.txt:3: match 2\n[47 more matches not shown; narrow the pattern or the path]"
	if got.Content != want {
		t.Errorf("grep with MaxMatches 3 = %q, want %q", got.Content, want)
	}
	got = call(t, Grep{}, ws, `{"pattern": "match", "path": "long.txt"}`)
	if want := "long.txt:1: match " + strings.Repeat("y", 194) + " [106 chars cut]"; got.Content != want {
		t.Errorf("grep of a long line = %q, want %q", got.Content, want)
	}
	ws = newWorkspace(t, map[string]string{"many.txt": many.String()}, Config{ResultChars: 300})
	got = call(t, Grep{}, ws, `{"pattern": "match"}`)
	if len(got.Content) > 300+70 || !strings.HasSuffix(got.Content, "more matches not shown; narrow the pattern or the path]") {
		t.Errorf("grep with ResultChars 300 = %d bytes: %q", len(got.Content), got.Content)
	}
}
