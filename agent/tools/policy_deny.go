package tools

import (
	"path"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The deny list, judged on the whole syntax tree: every call anywhere in
// it (subshells, blocks, functions, if/for/while bodies, $( ), <( ),
// pipelines) is read in its normal forms and matched against the rules
// as a word prefix. A normal form drops what does not change which
// program runs: wrappers (env, command, builtin, exec, nohup, time, nice,
// timeout, stdbuf, xargs) with their options, the directory of the
// program, git's global options; rm's flags become -rf, -r or -f with one
// form per operand; find gets one form per start and action ("find /
// -delete", "find ~ -exec rm"); a command xargs runs also reads as
// "xargs rm -rf". Text that a shell runs is parsed and judged too: bash
// -c, sh -c, eval, env -S, git -c alias.x='!...', a here-document or a
// here-string given to a shell, and echo piped into a shell.
//
// A rule "A | B" matches when a command starting with A feeds one
// starting with B: through one or more pipes, or as a substitution in
// B's words or redirections (bash <(curl x), sh -c "$(curl x)").
//
// The deny list reads what the command line shows. What only exists when
// the command runs ($x, a script's contents, a file) is beyond it; the
// kernel sandbox contains that.

// maxScriptDepth bounds how deeply nested scripts (bash -c 'bash -c ...')
// are parsed, and maxScripts how many one command line may run. A command
// line with more is refused: its deny list cannot be judged in bounded
// time, and no one writes one by hand.
const (
	maxScriptDepth = 4
	maxScripts     = 64
)

// shells run text as a script: with -c, from a here-document, or from a
// pipe.
var shells = []string{"bash", "sh", "zsh", "dash", "ksh"}

// denyRule is one entry of the deny list, read as words like a command.
type denyRule struct {
	text        string
	words       []string // a command prefix
	left, right []string // "A | B": A feeds B
}

// rules reads the deny list's entries.
func (r wordReader) rules(list []string) []denyRule {
	out := make([]denyRule, 0, len(list))
	for _, text := range list {
		if left, right, ok := strings.Cut(text, "|"); ok {
			out = append(out, denyRule{text: text, left: r.ruleWords(left), right: r.ruleWords(right)})
			continue
		}
		out = append(out, denyRule{text: text, words: r.ruleWords(text)})
	}
	return out
}

// ruleWords reads a rule's words as the words of a command, so that
// "rm -rf ~" and "rm -rf $HOME" name the home directory as a command's
// would. Text that is not one plain command is split on spaces.
func (r wordReader) ruleWords(text string) []string {
	f, err := parseBash(text)
	if err == nil && len(f.Stmts) == 1 {
		if call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(call.Assigns) == 0 && len(call.Args) > 0 {
			words := r.fields(call.Args)
			words[0] = commandName(words[0])
			return words
		}
	}
	return strings.Fields(text)
}

// commandName is the program a command word names: /usr/bin/sudo is sudo.
func commandName(w string) string {
	if w == "" || w == unknownWord {
		return w
	}
	return path.Base(w)
}

// denyScan judges one command line against the deny list.
type denyScan struct {
	rules   []denyRule
	words   wordReader
	views   map[*syntax.CallExpr]commandView
	piped   map[*syntax.BinaryCmd]bool // pipes judged as part of a longer pipeline
	scripts int                        // nested scripts parsed so far
}

// commandView is how one call reads for the deny list: its normal forms
// and the scripts it runs.
type commandView struct {
	forms   [][]string
	scripts []string
}

func newDenyScan(list []string, r wordReader) *denyScan {
	return &denyScan{rules: r.rules(list), words: r, views: map[*syntax.CallExpr]commandView{},
		piped: map[*syntax.BinaryCmd]bool{}}
}

// file returns the first rule that a call or pipeline of f matches.
func (s *denyScan) file(f *syntax.File, depth int) (rule string, hit bool) {
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.Stmt:
			rule, hit = s.stmt(n, depth)
		case *syntax.BinaryCmd:
			if isPipe(n) && !s.piped[n] {
				rule, hit = s.pipeline(n, depth)
			}
		}
		return !hit
	})
	return rule, hit
}

// script parses and judges text that a command runs as a script. Text
// that does not parse does not run either.
func (s *denyScan) script(text string, depth int) (string, bool) {
	if depth >= maxScriptDepth {
		return "", false
	}
	if s.scripts++; s.scripts > maxScripts {
		return "more than 64 nested scripts", true
	}
	f, err := parseBash(text)
	if err != nil {
		return "", false
	}
	return s.file(f, depth+1)
}

// view is call's commandView, computed once.
func (s *denyScan) view(call *syntax.CallExpr) commandView {
	if v, ok := s.views[call]; ok {
		return v
	}
	var v commandView
	normalize(s.words.fields(call.Args), &v, 0)
	s.views[call] = v
	return v
}

// stmt judges one simple command: its forms, the scripts it runs, the
// substitutions that feed it, and a here-document given to a shell.
func (s *denyScan) stmt(st *syntax.Stmt, depth int) (string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return "", false
	}
	v := s.view(call)
	for _, rule := range s.rules {
		if rule.words != nil && anyPrefix(v.forms, rule.words) {
			return rule.text, true
		}
	}
	for _, text := range v.scripts {
		if rule, ok := s.script(text, depth); ok {
			return rule, true
		}
	}
	if rule, ok := s.fedBySubstitution(call, st.Redirs, v); ok {
		return rule, true
	}
	if !isShell(v) {
		return "", false
	}
	for _, rd := range st.Redirs {
		body := rd.Hdoc
		if rd.Op == syntax.WordHdoc {
			body = rd.Word
		}
		if body == nil {
			continue
		}
		if text, ok := s.words.literal(body); ok {
			if rule, ok := s.script(text, depth); ok {
				return rule, true
			}
		}
	}
	return "", false
}

// fedBySubstitution matches the "A | B" rules whose B is call against the
// commands of the substitutions in call's words and redirections.
func (s *denyScan) fedBySubstitution(call *syntax.CallExpr, redirs []*syntax.Redirect, v commandView) (string, bool) {
	if !slices.ContainsFunc(s.rules, func(r denyRule) bool { return r.words == nil && anyPrefix(v.forms, r.right) }) {
		return "", false
	}
	var inner []*syntax.CallExpr
	for _, w := range call.Args {
		inner = append(inner, callsIn(w)...)
	}
	for _, rd := range redirs {
		inner = append(inner, callsIn(rd)...)
	}
	if len(inner) == 0 {
		return "", false
	}
	for _, rule := range s.rules {
		if rule.words != nil || !anyPrefix(v.forms, rule.right) {
			continue
		}
		for _, c := range inner {
			if anyPrefix(s.view(c).forms, rule.left) {
				return rule.text, true
			}
		}
	}
	return "", false
}

// pipeline matches the "A | B" rules against the stages of a pipeline,
// and judges the text an echo pipes into a shell.
func (s *denyScan) pipeline(b *syntax.BinaryCmd, depth int) (string, bool) {
	stages := s.pipeStages(b)
	forms := make([][][]string, len(stages)) // the forms of every call in each stage
	shell := make([]bool, len(stages))
	for i, st := range stages {
		for _, c := range callsIn(st) {
			v := s.view(c)
			forms[i] = append(forms[i], v.forms...)
			shell[i] = shell[i] || isShell(v)
		}
	}
	for _, rule := range s.rules {
		if rule.words != nil {
			continue
		}
		fed := false // whether an earlier stage starts with rule.left
		for i := range stages {
			if fed && anyPrefix(forms[i], rule.right) {
				return rule.text, true
			}
			fed = fed || anyPrefix(forms[i], rule.left)
		}
	}
	for j := 1; j < len(stages); j++ {
		if text, ok := s.echoed(stages[j-1]); ok && shell[j] {
			if rule, ok := s.script(text, depth); ok {
				return rule, true
			}
		}
	}
	return "", false
}

// pipeStages flattens a | b | c, which parses as (a | b) | c, and marks
// the inner pipe as judged with the whole.
func (s *denyScan) pipeStages(b *syntax.BinaryCmd) []*syntax.Stmt {
	if x, ok := b.X.Cmd.(*syntax.BinaryCmd); ok && isPipe(x) {
		s.piped[x] = true
		return append(s.pipeStages(x), b.Y)
	}
	return []*syntax.Stmt{b.X, b.Y}
}

func isPipe(b *syntax.BinaryCmd) bool { return b.Op == syntax.Pipe || b.Op == syntax.PipeAll }

// echoed is the text a stage that is one echo of literal words prints.
func (s *denyScan) echoed(st *syntax.Stmt) (string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok {
		return "", false
	}
	words := s.words.fields(call.Args)
	if len(words) < 2 || commandName(words[0]) != "echo" || slices.Contains(words, unknownWord) {
		return "", false
	}
	args := words[1:]
	for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-E") {
		args = args[1:]
	}
	return strings.Join(args, " "), true
}

// isShell reports whether a command runs a shell that reads its script
// from stdin: a shell without -c.
func isShell(v commandView) bool {
	return len(v.forms) > 0 && slices.Contains(shells, v.forms[0][0]) && len(v.scripts) == 0
}

// callsIn lists the calls inside n, at any depth.
func callsIn(n syntax.Node) []*syntax.CallExpr {
	var out []*syntax.CallExpr
	syntax.Walk(n, func(n syntax.Node) bool {
		if c, ok := n.(*syntax.CallExpr); ok {
			out = append(out, c)
		}
		return true
	})
	return out
}

// anyPrefix reports whether any form starts with prefix, paths compared
// cleaned: "rm -rf //" starts with "rm -rf /".
func anyPrefix(forms [][]string, prefix []string) bool {
	return slices.ContainsFunc(forms, func(f []string) bool {
		return len(prefix) > 0 && len(f) >= len(prefix) && slices.EqualFunc(f[:len(prefix)], prefix, func(a, b string) bool {
			return cleanWord(a) == cleanWord(b)
		})
	})
}
