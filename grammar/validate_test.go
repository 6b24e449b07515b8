package grammar

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

func TestValidate(t *testing.T) {
	for _, tt := range []struct {
		name, src, root string
		want            []string // error lines; none when valid
	}{
		{"valid", "root ::= \"a\" b\nb ::= [0-9]+ | b-2\nb-2 ::= \"x\"", "root", nil},
		{"json", readTestdata(t, "TestParse/json.gbnf"), "root", nil},
		{"read file", readTestdata(t, "TestParse/read-file.gbnf"), "", nil},
		{"other start", "root ::= start\nstart ::= \"a\"", "start", nil},
		{"right recursion", "root ::= \"a\" root | \"b\"", "root", nil},
		{"nullable right recursion", "root ::= (\"a\" root)?", "root", nil},
		{"recursion after a token", "root ::= <[1]> root |", "root", nil},
		{"bounded repeat of nullable", "root ::= (\"a\"?){3} (\"b\"?){0,3} e{2}\ne ::= |", "root", nil},
		{"empty grammar", "", "root", []string{"validate: root: invalid grammar: no rule named root"}},
		{"missing root", "start ::= \"a\"", "root", []string{"validate: root: invalid grammar: no rule named root"}},
		{"llama.cpp wants root", "start ::= \"a\"", "start", []string{"validate: root: invalid grammar: no rule named root"}},
		{"missing start", "root ::= \"a\"", "start", []string{"validate: start: invalid grammar: no rule named start"}},
		{"undefined", "root ::= item", "root", []string{"validate: root: invalid grammar: undefined rule item"}},
		{"defined twice", "root ::= \"a\"\nroot ::= \"b\"", "root", []string{"validate: root: invalid grammar: rule defined more than once"}},
		{"left recursion", "root ::= root \"a\" | \"b\"", "root", []string{"validate: root: invalid grammar: left recursion: root -> root"}},
		{"indirect", "root ::= a\na ::= b \"x\"\nb ::= \"y\" | root", "root",
			[]string{"validate: root: invalid grammar: left recursion: root -> a -> b -> root"}},
		{"after empty alternative", "root ::= e root \"x\" | \"y\"\ne ::= | \"z\"", "root",
			[]string{"validate: root: invalid grammar: left recursion: root -> root"}},
		{"after hidden nullable", "root ::= b root | \"z\"\nb ::= c\nc ::= \"x\" |", "root",
			[]string{"validate: root: invalid grammar: left recursion: root -> root"}},
		{"after optional", "root ::= \"a\"? root | \"b\"", "root", []string{"validate: root: invalid grammar: left recursion: root -> root"}},
		{"after empty literal", "root ::= \"\" root | \"b\"", "root", []string{"validate: root: invalid grammar: left recursion: root -> root"}},
		{"after empty class", "root ::= [^] root | \"b\"", "root", []string{"validate: root: invalid grammar: left recursion: root -> root"}},
		{"after zero times", "root ::= \"a\"{0} root | \"b\"", "root", []string{"validate: root: invalid grammar: left recursion: root -> root"}},
		{"in a group", "root ::= (\"a\" | root) \"b\"", "root", []string{"validate: root: invalid grammar: left recursion: root -> root"}},
		{"star of optional", "root ::= \"a\"?*", "root",
			[]string{`validate: root: invalid grammar: left recursion: ("a"?)* repeats an expression that can match the empty string`}},
		{"plus of empty", "root ::= (\"\")+", "root",
			[]string{`validate: root: invalid grammar: left recursion: ("")+ repeats an expression that can match the empty string`}},
		{"star of nullable rules", "root ::= (e f)*\ne ::= \"a\"?\nf ::= ()", "root",
			[]string{`validate: root: invalid grammar: left recursion: (e f)* repeats an expression that can match the empty string`}},
		{"unreachable rules count", "root ::= \"a\"\nx ::= y\ny ::= x", "root", []string{
			"validate: x: invalid grammar: left recursion: x -> y -> x",
		}},
		{"several problems", "root ::= a\nroot ::= root", "root", []string{
			"validate: root: invalid grammar: rule defined more than once",
			"validate: root: invalid grammar: undefined rule a",
			"validate: root: invalid grammar: left recursion: root -> root",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse(%q) = %v", tt.src, err)
			}
			checkValidate(t, g, tt.root, tt.want)
		})
	}
}

// TestValidateBuilt checks grammars that only Go code, not Parse, can make.
func TestValidateBuilt(t *testing.T) {
	for _, tt := range []struct {
		name string
		e    Expr
		want string
	}{
		{"nil", nil, "nil expression"},
		{"nil in sequence", Seq{Lit("a"), nil}, "nil expression"},
		{"min above max", rep(Lit("a"), 3, 2), "bad repetition bounds {3,2}"},
		{"negative min", rep(Lit("a"), -1, 2), "bad repetition bounds {-1,2}"},
		{"bad max", rep(Lit("a"), 0, -2), "bad repetition bounds {0,-2}"},
		{"too many", rep(Lit("a"), 0, 2001), "number of repetitions exceeds 2000"},
		{"token id and text", Token{ID: 3, Text: "<a>"}, `token has both id 3 and text "<a>"`},
		{"token id", Token{ID: -2}, "bad token id -2"},
		{"token text", Token{ID: -1, Text: "im_end"}, `token text "im_end" is not <...> without another >`},
		{"token text two ends", Token{ID: -1, Text: "<a>b>"}, `token text "<a>b>" is not <...> without another >`},
		{"token text like an id", Token{ID: -1, Text: "<[5>"}, `token text "<[5>" would not parse back`},
		{"invalid utf-8", Lit("a\xff"), `literal "a\xff" is not valid UTF-8`},
		{"code point", Class{Ranges: []Range{{'a', 0x110000}}}, "class range U+0061-U+110000 out of range"},
		{"bad ref", Ref("a b"), `bad rule name "a b"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g := &Grammar{Rules: []*Rule{{Name: "root", Expr: tt.e}}}
			checkValidate(t, g, "root", []string{"validate: root: invalid grammar: " + tt.want})
		})
	}
	g := &Grammar{Rules: []*Rule{{Name: "root", Expr: Ref("my_rule")}, {Name: "my_rule", Expr: Lit("x")}}}
	checkValidate(t, g, "root", []string{
		`validate: my_rule: invalid grammar: bad rule name "my_rule"`,
		`validate: root: invalid grammar: bad rule name "my_rule"`,
	})
}

func checkValidate(t *testing.T, g *Grammar, root string, want []string) {
	t.Helper()
	err := g.Validate(root)
	if len(want) == 0 {
		if err != nil {
			t.Errorf("Validate(%q) = %v, want nil", root, err)
		}
		return
	}
	if err == nil {
		t.Fatalf("Validate(%q) = nil, want %q", root, want)
	}
	if got := strings.Split(err.Error(), "\n"); !slices.Equal(got, want) {
		t.Errorf("Validate(%q) = %q, want %q", root, got, want)
	}
	var verr *Error
	if !errors.Is(err, ErrInvalid) || !errors.As(err, &verr) || verr.Op != "validate" {
		t.Errorf("Validate(%q) = %#v, want *Error wrapping ErrInvalid", root, err)
	}
}

// BenchmarkValidate validates a long chain of rules that become nullable one
// after another and a deep nest of repetitions, which once took quadratic
// time.
func BenchmarkValidate(b *testing.B) {
	const n = 2000
	var src strings.Builder
	src.WriteString("root ::= r0 (\"\"){1}" + strings.Repeat("?", n) + "\n")
	for i := range n {
		fmt.Fprintf(&src, "r%d ::= r%d \"x\" | \"y\" r%d\n", i, i+1, i+1)
	}
	fmt.Fprintf(&src, "r%d ::= \"\"\n", n)
	g, err := Parse(src.String())
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if err := g.Validate("root"); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(g.Rules)), "rules")
}
