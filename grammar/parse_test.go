package grammar

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/internal/golden"
)

// TestParse parses each testdata/TestParse/<case>.gbnf and compares the
// printed grammar with <case>.out, which must parse back to the same AST.
func TestParse(t *testing.T) {
	files, err := filepath.Glob("testdata/TestParse/*.gbnf")
	if err != nil || len(files) == 0 {
		t.Fatalf("no test grammars: %v", err)
	}
	for _, file := range files {
		name := strings.TrimSuffix(filepath.Base(file), ".gbnf")
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			g, err := Parse(string(src))
			if err != nil {
				t.Fatalf("Parse(%s) = %v", file, err)
			}
			out := g.String()
			golden.Check(t, name+".out", out)
			checkRoundTrip(t, g)
		})
	}
}

// checkRoundTrip checks that g prints as text that parses back to g and
// prints the same again.
func checkRoundTrip(t *testing.T, g *Grammar) {
	t.Helper()
	out := g.String()
	g2, err := Parse(out)
	if err != nil {
		t.Fatalf("Parse(%q) = %v, want the grammar it was printed from", out, err)
	}
	if diff := cmp.Diff(g, g2); diff != "" {
		t.Fatalf("Parse(%q) differs from the grammar printed (-printed +parsed):\n%s", out, diff)
	}
	if out2 := g2.String(); out2 != out {
		t.Fatalf("printing is not stable: %q, then %q", out, out2)
	}
}

// parseExprTests are rule bodies and what they parse to.
var parseExprTests = []struct {
	name string
	body string
	want Expr
}{
	{"literal", `"a\n\"\\"`, Lit("a\n\"\\")},
	{"hex escapes", `"\x41\u00e9\U0001F600\[\]\t\r"`, Lit("Aé😀[]\t\r")},
	{"lowercase hex", `"\x4a\u00E9"`, Lit("Jé")},
	{"raw utf-8", `"é😀"`, Lit("é😀")},
	{"empty literal", `""`, Lit("")},
	{"bad utf-8 like decode_utf8", "\"\xc3a\x80\"", Lit("\u00e1\x00")},
	{"truncated utf-8 eats the quote", "\"x\xe2\"ab\"", Lit("x\u28a1b")},
	{"sequence", `"a" b`, Seq{Lit("a"), Ref("b")}},
	{"no space needed", `"a"b"c"`, Seq{Lit("a"), Ref("b"), Lit("c")}},
	{"alternatives", `"a" | b c`, Alt{Lit("a"), Seq{Ref("b"), Ref("c")}}},
	{"empty last alternative", `"a" |`, Alt{Lit("a"), Seq{}}},
	{"empty first alternative", `| "a"`, Alt{Seq{}, Lit("a")}},
	{"empty alternatives", `| |`, Alt{Seq{}, Seq{}, Seq{}}},
	{"empty body", ``, Seq{}},
	{"empty group", `()`, Seq{}},
	{"group of one", `("a")`, Lit("a")},
	{"group in sequence", `("a" "b") "c"`, Seq{Seq{Lit("a"), Lit("b")}, Lit("c")}},
	{"group of alternatives", `("a" | "b") | "c"`, Alt{Alt{Lit("a"), Lit("b")}, Lit("c")}},
	{"group with empty alternative", `("a" | )`, Alt{Lit("a"), Seq{}}},
	{"newlines in group", "(\n\"a\" # x\n\n|\n\"b\"\n) c", Seq{Alt{Lit("a"), Lit("b")}, Ref("c")}},
	{"newline after bar", "\"a\" |\n\n  \"b\"", Alt{Lit("a"), Lit("b")}},
	{"newline after ::=", "\n  \"a\"", Lit("a")},
	{"comment", `"a" # "b"`, Lit("a")},
	{"names", `a-1 9 -x`, Seq{Ref("a-1"), Ref("9"), Ref("-x")}},
	{"any", `. .`, Seq{Any{}, Any{}}},
	{"class", `[a-z_]`, Class{Ranges: []Range{{'a', 'z'}, {'_', '_'}}}},
	{"negated class", `[^"\\]`, Class{Negated: true, Ranges: []Range{{'"', '"'}, {'\\', '\\'}}}},
	{"class dash first", `[-a]`, Class{Ranges: []Range{{'-', '-'}, {'a', 'a'}}}},
	{"class dash last", `[a-]`, Class{Ranges: []Range{{'a', 'a'}, {'-', '-'}}}},
	{"class dash after range", `[a-c-e]`, Class{Ranges: []Range{{'a', 'c'}, {'-', '-'}, {'e', 'e'}}}},
	{"class dash range", `[!--]`, Class{Ranges: []Range{{'!', '-'}}}},
	{"class escapes", `[\]\[\\\x2D\n]`, Class{Ranges: []Range{{']', ']'}, {'[', '['}, {'\\', '\\'}, {'-', '-'}, {'\n', '\n'}}}},
	{"class caret", `[^^] [a^]`, Seq{Class{Negated: true, Ranges: []Range{{'^', '^'}}}, Class{Ranges: []Range{{'a', 'a'}, {'^', '^'}}}}},
	{"class reversed range", `[z-a]`, Class{Ranges: []Range{{'z', 'a'}}}},
	{"class surrogate", `[\uD800-\uDFFF]`, Class{Ranges: []Range{{0xD800, 0xDFFF}}}},
	{"class max", `[^\x00-\U0010FFFF]`, Class{Negated: true, Ranges: []Range{{0, 0x10FFFF}}}},
	{"class quote and hash", `["#]`, Class{Ranges: []Range{{'"', '"'}, {'#', '#'}}}},
	{"empty classes", `[] [^]`, Seq{Class{}, Class{Negated: true}}},
	{"token id", `<[42]> !<[0]>`, Seq{Token{ID: 42}, Token{ID: 0, Negated: true}}},
	{"token text", `<|im_end|> !<a b>`, Seq{Token{ID: -1, Text: "<|im_end|>"}, Token{ID: -1, Text: "<a b>", Negated: true}}},
	{"token text odd", `<#"(> <>`, Seq{Token{ID: -1, Text: `<#"(>`}, Token{ID: -1, Text: "<>"}}},
	{"star", `"a"*`, star(Lit("a"))},
	{"plus", `"a"+`, plus(Lit("a"))},
	{"optional", `"a"?`, opt(Lit("a"))},
	{"exactly", `"a"{3}`, rep(Lit("a"), 3, 3)},
	{"at least", `"a"{3,}`, rep(Lit("a"), 3, -1)},
	{"between", `"a"{3,5}`, rep(Lit("a"), 3, 5)},
	{"spaces in braces", `"a"{ 3 , 5 }`, rep(Lit("a"), 3, 5)},
	{"space before operator", `"a" * b`, Seq{star(Lit("a")), Ref("b")}},
	{"threshold", `"a"{2000} "b"{0,2000}`, Seq{rep(Lit("a"), 2000, 2000), rep(Lit("b"), 0, 2000)}},
	{"leading zeros", `"a"{007}`, rep(Lit("a"), 7, 7)},
	{"whole literal repeats", `"ab"+`, plus(Lit("ab"))},
	{"repeat of repeat", `"a"?*`, star(opt(Lit("a")))},
	{"repeat of counted", `"a"{2}{3}`, rep(rep(Lit("a"), 2, 2), 3, 3)},
	{"repeat of group", `("a" "b")*`, star(Seq{Lit("a"), Lit("b")})},
	{"repeat of empty group", `("")* ()+ ([])?`, Seq{star(Lit("")), plus(Seq{}), opt(Class{})}},
	{"zero times", `"a"{0} "b"{0,0}`, Seq{rep(Lit("a"), 0, 0), rep(Lit("b"), 0, 0)}},
	{"repeat in group newline", "(\"a\"\n{\n1\n,\n2\n}\n)", rep(Lit("a"), 1, 2)},
}

func TestParseExpr(t *testing.T) {
	for _, tt := range parseExprTests {
		t.Run(tt.name, func(t *testing.T) {
			src := "r ::= " + tt.body
			g, err := Parse(src)
			if err != nil {
				t.Fatalf("Parse(%q) = %v, want %v", src, err, tt.want)
			}
			want := &Grammar{Rules: []*Rule{{Name: "r", Expr: tt.want}}}
			if diff := cmp.Diff(want, g); diff != "" {
				t.Fatalf("Parse(%q) mismatch (-want +got):\n%s", src, diff)
			}
			checkRoundTrip(t, g)
		})
	}
}

func TestParseGrammar(t *testing.T) {
	for _, tt := range []struct {
		name string
		src  string
		want []*Rule
	}{
		{"empty", "", nil},
		{"only comments", "# a\n\n  # b\r\n", nil},
		{"two rules", "a ::= b\nb ::= \"x\"", []*Rule{{"a", Ref("b")}, {"b", Lit("x")}}},
		{"crlf", "a ::= b\r\nb ::= \"x\"\r\n", []*Rule{{"a", Ref("b")}, {"b", Lit("x")}}},
		{"cr", "a ::= b\rb ::= \"x\"\r", []*Rule{{"a", Ref("b")}, {"b", Lit("x")}}},
		{"blank lines and indent", "\n\n  a ::= b # c\n\n\tb ::= \"x\"\n\n", []*Rule{{"a", Ref("b")}, {"b", Lit("x")}}},
		{"space before ::=", "a\t ::=b", []*Rule{{"a", Ref("b")}}},
		{"redefinition kept", "a ::= \"x\"\na ::= \"y\"", []*Rule{{"a", Lit("x")}, {"a", Lit("y")}}},
		{"empty rule at end", "a ::= b\nb ::=", []*Rule{{"a", Ref("b")}, {"b", Seq{}}}},
		{"rule ending in bar at end", "a ::= \"x\" |", []*Rule{{"a", Alt{Lit("x"), Seq{}}}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Parse(tt.src)
			if err != nil {
				t.Fatalf("Parse(%q) = %v, want %v", tt.src, err, tt.want)
			}
			if diff := cmp.Diff(&Grammar{Rules: tt.want}, g); diff != "" {
				t.Fatalf("Parse(%q) mismatch (-want +got):\n%s", tt.src, diff)
			}
			checkRoundTrip(t, g)
		})
	}
}

// parseErrorTests are grammars llama.cpp rejects (or, where noted in Parse's
// doc, mishandles), the position of the error and its message.
var parseErrorTests = []struct {
	name, src, pos, msg string
}{
	{"no ::=", "root", "line 1, column 5", "expecting ::="},
	{"no name", `::= "a"`, "line 1, column 1", "expecting name"},
	{"unterminated literal", `root ::= "a`, "line 1, column 12", "unexpected end of input"},
	{"two rules on a line", `root ::= "a" b ::= "c"`, "line 1, column 16", "expecting newline or end"},
	{"bar at line start", "root ::= \"a\"\n| \"b\"", "line 2, column 1", "expecting name"},
	{"continuation line", "root ::= \"a\"\n  \"b\"", "line 2, column 3", "expecting name"},
	{"bar before next rule", "root ::= \"a\" |\nb ::= \"c\"", "line 2, column 3", "expecting newline or end"},
	{"lone star", `root ::= *`, "line 1, column 10", "expecting preceding item to */+/?/{"},
	{"star after bar", `root ::= "a" | *`, "line 1, column 16", "expecting preceding item to */+/?/{"},
	{"star of empty literal", `root ::= "a" ""*`, "line 1, column 16", "expecting preceding item to */+/?/{"},
	{"star of empty class", `root ::= []+`, "line 1, column 12", "expecting preceding item to */+/?/{"},
	{"star of zero times", `root ::= "a"{0}*`, "line 1, column 16", "expecting preceding item to */+/?/{"},
	{"too many", `root ::= "a"{2001}`, "line 1, column 13", "number of repetitions exceeds 2000"},
	{"too many max", `root ::= "a"{0,2001}`, "line 1, column 13", "number of repetitions exceeds 2000"},
	{"huge", `root ::= "a"{99999999999999999999999,}`, "line 1, column 13", "number of repetitions exceeds 2000"},
	{"min above max", `root ::= "a"{3,2}`, "line 1, column 13", "minimum number of repetitions 3 exceeds maximum 2"},
	{"no int", `root ::= "a"{}`, "line 1, column 14", "expecting an int"},
	{"no comma", `root ::= "a"{1`, "line 1, column 15", "expecting ','"},
	{"no brace", `root ::= "a"{1,2`, "line 1, column 17", "expecting '}'"},
	{"bad max", `root ::= "a"{1,x}`, "line 1, column 16", "expecting '}'"},
	{"newline in braces at top level", "root ::= \"a\"{1,\n2}", "line 1, column 16", "expecting '}'"},
	{"unknown escape", `root ::= "\q"`, "line 1, column 11", "unknown escape"},
	{"escaped dash", `root ::= [a\-z]`, "line 1, column 12", "unknown escape"},
	{"escape at end", `root ::= "\`, "line 1, column 11", "unknown escape"},
	{"short hex", `root ::= "\x4"`, "line 1, column 13", "expecting 2 hex chars"},
	{"bad unicode", `root ::= "\u12G4"`, "line 1, column 13", "expecting 4 hex chars"},
	{"out of range", `root ::= [\U00110000]`, "line 1, column 11", "code point U+110000 out of range"},
	{"lenient utf-8 out of range", "root ::= [\xf7\xbf\xbf\xbf]", "line 1, column 11", "code point U+1FFFFF out of range"},
	{"surrogate in literal", `root ::= "\uD800"`, "line 1, column 11", "code point U+D800 cannot be in a string literal"},
	{"unterminated class", `root ::= [a`, "line 1, column 12", "unexpected end of input"},
	{"unterminated range", `root ::= [a-`, "line 1, column 13", "unexpected end of input"},
	{"unclosed group", `root ::= ("a"`, "line 1, column 14", "expecting ')'"},
	{"wrong close", `root ::= ("a"]`, "line 1, column 14", "expecting ')'"},
	{"token no int", `root ::= <[x]>`, "line 1, column 12", "expecting integer"},
	{"token no bracket", `root ::= <[1>`, "line 1, column 13", "expecting ']'"},
	{"token no angle", `root ::= <[1]`, "line 1, column 14", "expecting '>'"},
	{"token text unterminated", `root ::= <abc`, "line 1, column 14", "expecting '>'"},
	{"space after bang", `root ::= ! <a>`, "line 1, column 11", "expecting '<'"},
	{"token id too big", `root ::= <[4294967296]>`, "line 1, column 10", "token id out of range"},
	{"nul", "root ::= \"a\"\x00", "line 1, column 13", "unexpected NUL byte"},
	{"second line column", "a ::= b\nroot ::= (\"x\"\n  \"y\" ]", "line 3, column 7", "expecting ')'"},
}

func TestParseErrors(t *testing.T) {
	for _, tt := range parseErrorTests {
		t.Run(tt.name, func(t *testing.T) {
			g, err := Parse(tt.src)
			want := "parse: " + tt.pos + ": GBNF syntax error: " + tt.msg
			if err == nil {
				t.Fatalf("Parse(%q) = %q, want error %q", tt.src, g, want)
			}
			var perr *Error
			if !errors.As(err, &perr) || !errors.Is(err, ErrSyntax) || perr.Op != "parse" || perr.Subject != tt.pos {
				t.Errorf("Parse(%q) = %#v, want *Error at %s wrapping ErrSyntax", tt.src, err, tt.pos)
			}
			if err.Error() != want {
				t.Errorf("Parse(%q) = %v, want %v", tt.src, err, want)
			}
			if g != nil {
				t.Errorf("Parse(%q) returned a grammar with its error", tt.src)
			}
		})
	}
}

// FuzzParse checks that Parse never panics and that whatever it accepts
// prints as text that parses back to the same grammar.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/TestParse/*.gbnf")
	for _, file := range files {
		src, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(src))
	}
	for _, tt := range parseExprTests {
		f.Add("r ::= " + tt.body)
	}
	for _, tt := range parseErrorTests {
		f.Add(tt.src)
	}
	f.Fuzz(func(t *testing.T, src string) {
		g, err := Parse(src)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("Parse(%q) = %v, want an ErrSyntax", src, err)
			}
			return
		}
		checkRoundTrip(t, g)
		_ = g.Validate("root") // must not panic
	})
}

func BenchmarkParse(b *testing.B) {
	src := readTestdata(b, "TestParse/json.gbnf")
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := Parse(src); err != nil {
			b.Fatal(err)
		}
	}
}
