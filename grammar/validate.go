package grammar

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrInvalid is wrapped by the errors of Validate: a grammar that parses but
// that llama.cpp rejects or cannot run.
var ErrInvalid = errors.New("invalid grammar")

// Validate checks what llama.cpp checks beyond syntax, and what a Grammar
// built in Go may get wrong where printed text could not:
//
//   - rule names are [a-zA-Z0-9-]+ and each is defined once (llama.cpp
//     silently lets the last definition win; a generator that redefines a
//     rule has a bug);
//   - the rule root exists ("" means "root"), and so does a rule named
//     "root", which llama.cpp requires whatever the start rule;
//   - every Ref names a defined rule;
//   - every expression prints as GBNF that means it: no nil Expr, counts
//     0 <= Min <= Max <= MaxRepetition (or Max -1), well-formed tokens,
//     literals in valid UTF-8, code points up to U+10FFFF;
//   - no rule is left-recursive (llama_grammar_detect_left_recursion).
//
// The left recursion check uses exact nullability, so it rejects every
// grammar llama.cpp rejects and also those llama.cpp's approximation lets
// through but then recurses on forever while matching. Because llama.cpp
// rewrites x* as the rule x' ::= x x' |, an unbounded repetition of an
// expression that can match the empty string (x?*, ("")+, (a b)* where a
// and b can be empty) is left recursion too.
//
// Validate returns nil or all the problems joined with errors.Join, each an
// *Error with Op "validate", Subject the rule name, and Err wrapping
// ErrInvalid.
func (g *Grammar) Validate(root string) error {
	if root == "" {
		root = "root"
	}
	v := &validator{g: g, rules: map[string]*Rule{}}
	for _, r := range g.Rules {
		if !validName(r.Name) {
			v.errorf(r.Name, "bad rule name %q", r.Name)
		}
		if _, dup := v.rules[r.Name]; dup {
			v.errorf(r.Name, "rule defined more than once")
		}
		v.rules[r.Name] = r
	}
	for _, name := range []string{root, "root"} {
		if v.rules[name] == nil {
			v.errorf(name, "no rule named %s", name)
			break
		}
	}
	for _, r := range g.Rules {
		v.check(r.Name, r.Expr)
	}
	v.leftRecursion()
	return errors.Join(v.errs...)
}

type validator struct {
	g        *Grammar
	rules    map[string]*Rule // the last definition of each name
	nullable map[string]bool  // rules that can match the empty string
	errs     []error
}

func (v *validator) errorf(rule, format string, args ...any) {
	v.errs = append(v.errs, &Error{
		Op:      "validate",
		Subject: rule,
		Err:     fmt.Errorf("%w: %s", ErrInvalid, fmt.Sprintf(format, args...)),
	})
}

// check reports what in e cannot be printed as it means or refers to no
// rule.
func (v *validator) check(rule string, e Expr) {
	switch e := e.(type) {
	case nil:
		v.errorf(rule, "nil expression")
	case Alt:
		for _, x := range e {
			v.check(rule, x)
		}
	case Seq:
		for _, x := range e {
			v.check(rule, x)
		}
	case Lit:
		if !utf8.ValidString(string(e)) {
			v.errorf(rule, "literal %q is not valid UTF-8", string(e))
		}
	case Class:
		for _, r := range e.Ranges {
			if r.Lo < 0 || r.Lo > utf8.MaxRune || r.Hi < 0 || r.Hi > utf8.MaxRune {
				v.errorf(rule, "class range %U-%U out of range", r.Lo, r.Hi)
			}
		}
	case Ref:
		if !validName(string(e)) {
			v.errorf(rule, "bad rule name %q", string(e))
		} else if v.rules[string(e)] == nil {
			v.errorf(rule, "undefined rule %s", string(e))
		}
	case Token:
		if msg := tokenProblem(e); msg != "" {
			v.errorf(rule, "%s", msg)
		}
	case Repeat:
		v.checkRepeat(rule, e)
	}
}

func (v *validator) checkRepeat(rule string, e Repeat) {
	switch {
	case e.Min < 0 || e.Max < -1 || e.Max >= 0 && e.Min > e.Max:
		v.errorf(rule, "bad repetition bounds {%d,%d}", e.Min, e.Max)
	case e.Min > MaxRepetition || e.Max > MaxRepetition:
		v.errorf(rule, "number of repetitions exceeds %d", MaxRepetition)
	}
	v.check(rule, e.X)
}

// tokenProblem says what is wrong with t, or "".
func tokenProblem(t Token) string {
	switch {
	case t.ID >= 0 && t.Text != "":
		return fmt.Sprintf("token has both id %d and text %q", t.ID, t.Text)
	case t.ID >= 0:
		return ""
	case t.ID != -1:
		return fmt.Sprintf("bad token id %d", t.ID)
	case len(t.Text) < 2 || t.Text[0] != '<' || strings.IndexByte(t.Text, '>') != len(t.Text)-1:
		return fmt.Sprintf("token text %q is not <...> without another >", t.Text)
	case strings.HasPrefix(t.Text, "<[") || strings.IndexByte(t.Text, 0) >= 0:
		return fmt.Sprintf("token text %q would not parse back", t.Text)
	}
	return ""
}

// leftRecursion reports cycles of rules that can reach themselves without
// consuming input, and unbounded repetitions of nullable expressions.
func (v *validator) leftRecursion() {
	v.computeNullable()
	edges := map[string][]string{}
	for _, r := range v.g.Rules {
		seen := map[string]bool{}
		v.walkLeft(r.Name, r.Expr, true, func(name string) {
			if !seen[name] && v.rules[name] != nil {
				seen[name] = true
				edges[r.Name] = append(edges[r.Name], name)
			}
		})
	}
	const (
		onStack = 1
		done    = 2
	)
	state := map[string]int{}
	var stack []string
	var visit func(string)
	visit = func(n string) {
		state[n] = onStack
		stack = append(stack, n)
		for _, m := range edges[n] {
			switch state[m] {
			case 0:
				visit(m)
			case onStack:
				i := len(stack) - 1
				for stack[i] != m {
					i--
				}
				cycle := append(append([]string(nil), stack[i:]...), m)
				v.errorf(m, "left recursion: %s", strings.Join(cycle, " -> "))
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
	}
	for _, r := range v.g.Rules {
		if state[r.Name] == 0 {
			visit(r.Name)
		}
	}
}

// computeNullable finds the rules that can match the empty string: a rule
// is checked again whenever a rule it refers to turns out nullable.
func (v *validator) computeNullable() {
	v.nullable = map[string]bool{}
	users := map[string][]string{}
	var queue []string
	for _, r := range v.g.Rules {
		if v.rules[r.Name] != r {
			continue // redefined; llama.cpp uses the last definition
		}
		queue = append(queue, r.Name)
		forEachRef(r.Expr, func(name string) { users[name] = append(users[name], r.Name) })
	}
	for len(queue) > 0 {
		name := queue[0]
		queue = queue[1:]
		if !v.nullable[name] && v.walkLeft(name, v.rules[name].Expr, false, nil) {
			v.nullable[name] = true
			queue = append(queue, users[name]...)
		}
	}
}

// walkLeft returns whether e can match the empty string, as far as the rules
// known to be nullable say. As in llama.cpp, "" and a class with no ranges
// emit nothing, so they match the empty string. If add is not nil, walkLeft
// calls it with each rule e can start with when left (e is where its rule
// may start), and reports unbounded repetitions of expressions that can
// match the empty string, only the innermost of nested ones.
func (v *validator) walkLeft(rule string, e Expr, left bool, add func(string)) bool {
	switch e := e.(type) {
	case nil:
		return true
	case Alt:
		empty := len(e) == 0
		for _, x := range e {
			empty = v.walkLeft(rule, x, left, add) || empty
		}
		return empty
	case Seq:
		empty := true
		for _, x := range e {
			empty = v.walkLeft(rule, x, left && empty, add) && empty
		}
		return empty
	case Lit:
		return e == ""
	case Class:
		return len(e.Ranges) == 0
	case Ref:
		if left && add != nil {
			add(string(e))
		}
		return v.nullable[string(e)]
	case Repeat:
		reported := len(v.errs)
		empty := v.walkLeft(rule, e.X, left && e.Max != 0, add)
		if add != nil && e.Max < 0 && empty && len(v.errs) == reported {
			v.errorf(rule, "left recursion: %s repeats an expression that can match the empty string", shorten(e.String()))
		}
		return e.Min == 0 || e.Max == 0 || empty
	}
	return false
}

// forEachRef calls f with the name of each Ref in e.
func forEachRef(e Expr, f func(string)) {
	switch e := e.(type) {
	case Alt:
		for _, x := range e {
			forEachRef(x, f)
		}
	case Seq:
		for _, x := range e {
			forEachRef(x, f)
		}
	case Repeat:
		forEachRef(e.X, f)
	case Ref:
		f(string(e))
	}
}

// shorten cuts s to at most 60 bytes for an error message.
func shorten(s string) string {
	if len(s) <= 60 {
		return s
	}
	i := 57
	for i > 0 && !utf8.RuneStart(s[i]) {
		i--
	}
	return s[:i] + "..."
}
