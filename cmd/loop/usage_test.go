package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// notInUsage are the commands of the dispatch table that the usage text
// may leave out, each with the reason. It is empty: loop has no hidden
// command. The sandbox's supervisor, the one internal mode of the binary,
// is entered through its environment variable before dispatch
// (sandbox.Main), not through a command word, so it is not a table entry.
var notInUsage = map[string]string{}

// usageListing returns the command lines of a usage text: name to
// summary, from the lines indented under "commands:".
func usageListing(text string) map[string]string {
	listed := map[string]string{}
	_, rest, _ := strings.Cut(text, "\ncommands:\n")
	for _, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "  ") {
			break
		}
		name, summary, _ := strings.Cut(strings.TrimSpace(line), " ")
		listed[name] = strings.TrimSpace(summary)
	}
	return listed
}

// missingFromUsage returns the commands of cmds that the usage text does
// not list with their summary, less those notInUsage excuses.
func missingFromUsage(text string, cmds []command) []string {
	listed := usageListing(text)
	var missing []string
	for _, c := range cmds {
		if s, ok := listed[c.name]; (!ok || s != c.summary) && notInUsage[c.name] == "" {
			missing = append(missing, c.name)
		}
	}
	return missing
}

// TestUsage checks the usage text: it says what loop is and lists every
// command of the dispatch table with its summary, and nothing else.
func TestUsage(t *testing.T) {
	code, stdout, text := runLoop(t, "help")
	if code != 0 || stdout != "" {
		t.Fatalf("loop help = exit %d, stdout %q; want exit 0 and the text on stderr", code, stdout)
	}
	if missing := missingFromUsage(text, commands); len(missing) > 0 {
		t.Errorf("the usage text lacks the commands %q:\n%s", missing, text)
	}
	var names []string
	for _, c := range commands {
		names = append(names, c.name)
	}
	for name := range usageListing(text) {
		if !slices.Contains(names, name) {
			t.Errorf("the usage text lists %q, which is not in the dispatch table", name)
		}
	}
	for name, why := range notInUsage {
		if !slices.Contains(names, name) || strings.TrimSpace(why) == "" {
			t.Errorf("notInUsage[%q] = %q: want a command of the table and a reason", name, why)
		}
	}
	// What loop is, before the commands.
	intro, _, _ := strings.Cut(text, "usage:")
	for _, want := range []string{"one Go binary", "small local GGUF models", "in process", "coding agents", "offline"} {
		if !strings.Contains(strings.Join(strings.Fields(intro), " "), want) {
			t.Errorf("the usage text's introduction %q does not say %q", intro, want)
		}
	}
	// The other ways to ask print the same text.
	for _, args := range [][]string{{"-h"}, {"--help"}, {}} {
		_, _, got := runLoop(t, args...)
		if diff := cmp.Diff(text, got); diff != "" {
			t.Errorf("loop %s printed another text (-help +got):\n%s", strings.Join(args, " "), diff)
		}
	}
}

// TestUsageCatchesMissing: the check fails when a command's line is
// missing from the text or shows another summary.
func TestUsageCatchesMissing(t *testing.T) {
	var b strings.Builder
	usage(&b)
	text := b.String()
	// A blank line before map's ends the list there.
	afterMap := slices.IndexFunc(commands, func(c command) bool { return c.name == "map" })
	var cut []string
	for _, c := range commands[afterMap:] {
		cut = append(cut, c.name)
	}
	tests := []struct {
		name, text string
		want       []string
	}{
		{"whole", text, nil},
		{"train's line removed", strings.Replace(text, "\n  train ", "\n", 1), []string{"train"}},
		{"info's summary changed", strings.Replace(text, commands[0].summary, "something else", 1), []string{commands[0].name}},
		{"the list cut short", strings.Replace(text, "\n  map ", "\n\n  map ", 1), cut},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, missingFromUsage(tt.text, commands)); diff != "" {
				t.Errorf("missingFromUsage (-want +got):\n%s", diff)
			}
		})
	}
}
