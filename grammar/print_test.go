package grammar

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func r1(lo rune) Range { return Range{lo, lo} }

// stringTests are expressions and how a rule body prints them. Each is
// canonical, so it must also parse back equal.
var stringTests = []struct {
	name string
	e    Expr
	want string
}{
	{"literal", Lit("say \"hi\"\\\n\r\t\x00\x7f é"), `"say \"hi\"\\\n\r\t\x00\x7F é"`},
	{"sequence", Seq{Lit("a"), Ref("b"), Any{}}, `"a" b .`},
	{"sequence in sequence", Seq{Seq{Lit("a"), Lit("b")}, Lit("c")}, `("a" "b") "c"`},
	{"alternation in sequence", Seq{Lit("a"), Alt{Lit("b"), Seq{}}}, `"a" ("b" |)`},
	{"alternation in alternation", Alt{Alt{Lit("a"), Lit("b")}, Seq{Lit("c"), Lit("d")}}, `("a" | "b") | "c" "d"`},
	{"empty first alternative", Alt{Seq{}, Lit("a")}, `| "a"`},
	{"empty last alternative", Alt{Lit("a"), Seq{}}, `"a" | ()`},
	{"empty middle alternative", Alt{Lit("a"), Seq{}, Lit("b")}, `"a" | | "b"`},
	{"only empty alternatives", Alt{Seq{}, Seq{}}, `| ()`},
	{"empty sequence", Seq{}, `()`},
	{"empty sequence in sequence", Seq{Lit("a"), Seq{}}, `"a" ()`},
	{"star", star(Ref("a")), `a*`},
	{"plus", plus(Any{}), `.+`},
	{"optional", opt(Token{ID: 3}), `<[3]>?`},
	{"exactly", rep(Lit("ab"), 2, 2), `"ab"{2}`},
	{"once", rep(Lit("a"), 1, 1), `"a"{1}`},
	{"zero times", rep(Lit("a"), 0, 0), `"a"{0}`},
	{"at least", rep(Class{Ranges: []Range{{'0', '9'}}}, 2, -1), `[0-9]{2,}`},
	{"between", rep(Lit("a"), 2, 5), `"a"{2,5}`},
	{"repeat sequence", star(Seq{Lit("a"), Lit("b")}), `("a" "b")*`},
	{"repeat alternation", plus(Alt{Lit("a"), Seq{}}), `("a" |)+`},
	{"repeat repeat", star(opt(Lit("a"))), `("a"?)*`},
	{"repeat empty literal", star(Lit("")), `("")*`},
	{"repeat empty class", opt(Class{Negated: true}), `([^])?`},
	{"repeat empty sequence", plus(Seq{}), `()+`},
	{"tokens", Seq{Token{ID: -1, Text: "<|im_end|>", Negated: true}, Token{ID: 0}}, `!<|im_end|> <[0]>`},
	{"class", Class{Ranges: []Range{{'a', 'z'}, r1('_')}}, `[a-z_]`},
	{"negated class", Class{Negated: true, Ranges: []Range{r1('"'), r1('\\'), {0, 0x1F}}}, `[^"\\\x00-\x1F]`},
	{"class specials", Class{Ranges: []Range{r1(']'), r1('['), r1('\n'), r1('#')}}, `[\][\n#]`},
	{"class lone dash", Class{Ranges: []Range{r1('-')}}, `[-]`},
	{"class dash first", Class{Ranges: []Range{r1('-'), r1('a')}}, `[-a]`},
	{"class dash last", Class{Ranges: []Range{r1('a'), r1('-')}}, `[a-]`},
	{"class dash between", Class{Ranges: []Range{r1('a'), r1('-'), r1('b')}}, `[a\x2Db]`},
	{"class dash after range", Class{Ranges: []Range{{'a', 'c'}, r1('-'), r1('b')}}, `[a-c-b]`},
	{"class dash starts range", Class{Ranges: []Range{r1('a'), {'-', 'z'}}}, `[a\x2D-z]`},
	{"class dash ends range", Class{Ranges: []Range{{'!', '-'}, r1('-')}}, `[!---]`},
	{"class caret", Class{Ranges: []Range{r1('^'), r1('a')}}, `[\x5Ea]`},
	{"class caret later", Class{Ranges: []Range{r1('a'), r1('^')}}, `[a^]`},
	{"negated caret", Class{Negated: true, Ranges: []Range{r1('^')}}, `[^^]`},
	{"class surrogate", Class{Ranges: []Range{{0xD800, 0xDFFF}, r1(0x10FFFF)}}, "[\\uD800-\\uDFFF\U0010FFFF]"},
	{"empty classes", Seq{Class{}, Class{Negated: true}}, `[] [^]`},
}

func TestString(t *testing.T) {
	for _, tt := range stringTests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.String(); got != tt.want {
				t.Errorf("%#v.String() = %s, want %s", tt.e, got, tt.want)
			}
			g := &Grammar{Rules: []*Rule{{Name: "r", Expr: tt.e}, {Name: "s", Expr: Lit("next")}}}
			checkRoundTrip(t, g)
		})
	}
}

func TestGrammarString(t *testing.T) {
	g := &Grammar{Rules: []*Rule{
		{Name: "root", Expr: Alt{Ref("a"), Seq{}}},
		{Name: "a", Expr: plus(Lit("x"))},
		{Name: "nil", Expr: nil},
	}}
	want := "root ::= a | ()\na ::= \"x\"+\nnil ::= ()\n"
	if got := g.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if got, want := g.Rules[1].String(), `a ::= "x"+`; got != want {
		t.Errorf("Rule.String() = %q, want %q", got, want)
	}
}

func TestQuote(t *testing.T) {
	for _, tt := range []struct {
		name, s, want string
	}{
		{"plain", "abc", `"abc"`},
		{"escapes", "\"\\\n\r\t", `"\"\\\n\r\t"`},
		{"controls", "\x00\x1f\x7f", `"\x00\x1F\x7F"`},
		{"brackets stay", "[]#", `"[]#"`},
		{"unicode", "é😀\u2028", "\"é😀\u2028\""},
		{"invalid utf-8", "a\xffb", `"a\xFFb"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := Quote(tt.s); got != tt.want {
				t.Errorf("Quote(%q) = %s, want %s", tt.s, got, tt.want)
			}
		})
	}
}

// TestClassChar checks that every escape ClassChar writes is one llama.cpp
// knows and reads back as the same single character.
func TestClassChar(t *testing.T) {
	for _, tt := range []struct {
		r    rune
		want string
	}{
		{'a', "a"}, {']', `\]`}, {'[', `\[`}, {'\\', `\\`}, {'-', `\x2D`}, {'^', `\x5E`},
		{'\n', `\n`}, {0, `\x00`}, {'"', `"`}, {0xD800, `\uD800`}, {0x10FFFF, "\U0010FFFF"},
	} {
		if got := ClassChar(tt.r); got != tt.want {
			t.Errorf("ClassChar(%U) = %s, want %s", tt.r, got, tt.want)
		}
	}
	var all strings.Builder
	var ranges []Range
	for _, r := range []rune("^a-]-[\\\"\n\t\x00\x7f é😀") {
		all.WriteString(ClassChar(r))
		ranges = append(ranges, r1(r))
	}
	src := "r ::= [" + all.String() + "]"
	g, err := Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q) = %v", src, err)
	}
	if diff := cmp.Diff(Class{Ranges: ranges}, g.Rules[0].Expr); diff != "" {
		t.Errorf("Parse(%q) mismatch (-want +got):\n%s", src, diff)
	}
}

func BenchmarkString(b *testing.B) {
	g, err := Parse(readTestdata(b, "TestParse/json.gbnf"))
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(g.String())))
	for b.Loop() {
		_ = g.String()
	}
	b.ReportMetric(float64(len(g.Rules)), "rules")
}
