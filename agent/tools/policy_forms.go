package tools

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The normal forms of a command, which the deny list matches: see
// policy_deny.go.

// maxFormDepth bounds how many commands nest in one call (find -exec
// xargs find -exec ...).
const maxFormDepth = 8

// wrapperSpec says how a wrapper's own arguments end and the command it
// runs begins.
type wrapperSpec struct {
	short       string   // short options that take a value (-n 5, -n5)
	long        []string // long options that take the next word as value
	operands    int      // operands before the command (timeout's duration)
	assignments bool     // NAME=VALUE words before the command (env)
}

// wrappers run the command that follows their own arguments.
var wrappers = map[string]wrapperSpec{
	"env":     {short: "uCSaP", long: []string{"--unset", "--chdir", "--split-string", "--argv0"}, assignments: true},
	"command": {},
	"builtin": {},
	"nohup":   {},
	"exec":    {short: "a"},
	"time":    {short: "fo", long: []string{"--format", "--output"}},
	"nice":    {short: "n", long: []string{"--adjustment"}},
	"timeout": {short: "sk", long: []string{"--signal", "--kill-after"}, operands: 1},
	"stdbuf":  {short: "ioe", long: []string{"--input", "--output", "--error"}},
	"xargs": {short: "adEILnPs", long: []string{"--arg-file", "--delimiter", "--max-args", "--max-procs",
		"--max-chars", "--process-slot-var"}},
}

// normalize adds the normal forms of the command words to v, and the
// scripts it runs.
func normalize(words []string, v *commandView, depth int) {
	if depth > maxFormDepth {
		return
	}
	for len(words) > 0 {
		name := commandName(words[0])
		spec, ok := wrappers[name]
		if !ok {
			break
		}
		rest, split := spec.skip(words[1:])
		if split != "" { // the rest are arguments of the split command
			v.scripts = append(v.scripts, "env "+split+" "+quoteWords(rest))
			return
		}
		if name == "xargs" {
			var inner commandView
			normalize(rest, &inner, depth+1)
			for _, f := range inner.forms {
				v.forms = append(v.forms, append([]string{"xargs"}, f...))
			}
			v.forms = append(v.forms, inner.forms...)
			v.scripts = append(v.scripts, inner.scripts...)
			return
		}
		words = rest
	}
	if len(words) == 0 {
		return
	}
	words = append([]string{commandName(words[0])}, words[1:]...)
	v.forms = append(v.forms, words)
	switch name := words[0]; {
	case name == "git":
		gitForms(words, v)
	case name == "rm":
		v.forms = append(v.forms, rmForms(words)...)
	case name == "find":
		findForms(words, v, depth)
	case name == "eval":
		v.scripts = append(v.scripts, strings.Join(words[1:], " "))
	case slices.Contains(shells, name):
		if text, ok := shellScript(words); ok {
			v.scripts = append(v.scripts, text)
		}
	}
}

// skip returns the words after the wrapper's own arguments, and the
// string of env -S, which env splits into a command of its own.
func (w wrapperSpec) skip(args []string) (rest []string, split string) {
	i := 0
options:
	for i < len(args) {
		a := args[i]
		switch {
		case a == "--":
			i++
			break options
		case strings.HasPrefix(a, "--"):
			name, val, hasVal := strings.Cut(a, "=")
			if !hasVal && slices.Contains(w.long, name) && i+1 < len(args) {
				i++
				val = args[i]
			}
			if name == "--split-string" {
				split = val
			}
		case strings.HasPrefix(a, "-"):
			for j := 1; j < len(a); j++ {
				if strings.IndexByte(w.short, a[j]) < 0 {
					continue
				}
				val := a[j+1:]
				if val == "" && i+1 < len(args) {
					i++
					val = args[i]
				}
				if a[j] == 'S' {
					split = val
				}
				break
			}
		case w.assignments && isAssignment(a):
		default:
			break options
		}
		i++
	}
	i = min(i+w.operands, len(args))
	return args[i:], split
}

// quoteWords writes words back as shell words.
func quoteWords(words []string) string {
	var out []string
	for _, w := range words {
		if q, err := syntax.Quote(w, syntax.LangBash); err == nil {
			w = q
		}
		out = append(out, w)
	}
	return strings.Join(out, " ")
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && syntax.ValidName(name)
}

// gitValueOptions are git's global options that take the next word as
// their value.
var gitValueOptions = []string{"-C", "-c", "--config-env", "--git-dir", "--namespace", "--super-prefix",
	"--work-tree", "--attr-source"}

// splitGit splits git's arguments (after "git") into the global options,
// the subcommand and the subcommand's arguments.
func splitGit(args []string) (globals []string, sub string, rest []string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if slices.Contains(gitValueOptions, a) {
			i++
			continue
		}
		if strings.HasPrefix(a, "-") {
			continue
		}
		return args[:i], a, args[i+1:], true
	}
	return args, "", nil, false
}

// gitForms adds "git SUB ARGS" without the global options, and what an
// alias set with -c alias.SUB=... runs.
func gitForms(words []string, v *commandView) {
	globals, sub, rest, ok := splitGit(words[1:])
	if !ok {
		return
	}
	v.forms = append(v.forms, append([]string{"git", sub}, rest...))
	for i, g := range globals {
		var kv string
		switch {
		case g == "-c" && i+1 < len(globals):
			kv = globals[i+1]
		case strings.HasPrefix(g, "-c"):
			kv = g[2:]
		}
		key, val, _ := strings.Cut(kv, "=")
		if !strings.EqualFold(key, "alias."+sub) {
			continue
		}
		if text, ok := strings.CutPrefix(val, "!"); ok {
			v.scripts = append(v.scripts, text)
			continue
		}
		v.forms = append(v.forms, append(append([]string{"git"}, strings.Fields(val)...), rest...))
	}
}

// rmForms normalises rm's flags: "rm -fr /", "rm -r -f /" and "rm
// --recursive --force /" all read "rm -rf /". It returns the command with
// its flags normalised, then one form per operand.
func rmForms(words []string) [][]string {
	var recursive, force, flagsDone bool
	var operands []string
	for _, w := range words[1:] {
		switch {
		case flagsDone || !strings.HasPrefix(w, "-") || w == "-":
			operands = append(operands, w)
		case w == "--":
			flagsDone = true
		case w == "--recursive":
			recursive = true
		case w == "--force":
			force = true
		case !strings.HasPrefix(w, "--"):
			recursive = recursive || strings.ContainsAny(w, "rR")
			force = force || strings.Contains(w, "f")
		}
	}
	flag := map[[2]bool]string{{true, true}: "-rf", {true, false}: "-r", {false, true}: "-f"}[[2]bool{recursive, force}]
	base := []string{"rm"}
	if flag != "" {
		base = append(base, flag)
	}
	forms := [][]string{append(slices.Clone(base), operands...)}
	for _, op := range operands {
		forms = append(forms, append(slices.Clone(base), op))
	}
	return forms
}

// findForms adds one form per start and action of find: "find / -delete",
// "find ~ -exec rm" (-execdir, -ok and -okdir read as -exec), and the
// forms of each command find runs.
func findForms(words []string, v *commandView, depth int) {
	args := words[1:]
	i := 0
	for i < len(args) && (args[i] == "-H" || args[i] == "-L" || args[i] == "-P" || args[i] == "-D" || strings.HasPrefix(args[i], "-O")) {
		if args[i] == "-D" {
			i++
		}
		i++
	}
	var starts []string
	for ; i < len(args) && !isFindExpression(args[i]); i++ {
		starts = append(starts, args[i])
	}
	if len(starts) == 0 {
		starts = []string{"."}
	}
	var actions [][]string
	for ; i < len(args); i++ {
		switch args[i] {
		case "-delete":
			actions = append(actions, []string{"-delete"})
		case "-exec", "-execdir", "-ok", "-okdir":
			end := i + 1
			for end < len(args) && args[end] != ";" && args[end] != "+" {
				end++
			}
			if cmd := args[i+1 : end]; len(cmd) > 0 {
				actions = append(actions, []string{"-exec", commandName(cmd[0])})
				normalize(cmd, v, depth+1)
			}
			i = end
		}
	}
	for _, s := range starts {
		for _, a := range actions {
			v.forms = append(v.forms, append([]string{"find", s}, a...))
		}
	}
}

// isFindExpression reports whether a find argument begins the expression
// rather than naming a start.
func isFindExpression(a string) bool {
	return (strings.HasPrefix(a, "-") && len(a) > 1) || a == "(" || a == ")" || a == "!" || a == ","
}

// shellScript is the script of "bash -c SCRIPT" (also -lc, -ec, ...).
func shellScript(words []string) (string, bool) {
	hasC := false
	for i := 1; i < len(words); i++ {
		a := words[i]
		switch {
		case a == "--" || a == "-":
			if hasC && i+1 < len(words) {
				return words[i+1], true
			}
			return "", false
		case a == "-o" || a == "+o" || a == "-O" || a == "+O" || a == "--rcfile" || a == "--init-file":
			i++
		case strings.HasPrefix(a, "--"):
		case len(a) > 1 && (a[0] == '-' || a[0] == '+'):
			hasC = hasC || (a[0] == '-' && strings.Contains(a, "c"))
		default:
			return a, hasC
		}
	}
	return "", false
}
