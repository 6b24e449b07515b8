package repair

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestRepair: each kind of repair, and each refusal, on text a small
// model writes.
func TestRepair(t *testing.T) {
	tests := []struct {
		name    string
		in      string
		want    string // the repaired object; "" when refused
		repairs []string
		err     error // the refusal's sentinel
	}{
		// Item 1: a mismatched bracket never moves or drops a member.
		{name: "bracket typo keeps b in arguments", in: `{"name":"f","arguments":{"a":["x"},"b":1}}`,
			want: `{"name":"f","arguments":{"a":["x"],"b":1}}`, repairs: []string{BracketClosed}},
		{name: "bracket typo keeps key2", in: `{"key1": ["value1", "value2"}, "key2": ["value3", "value4"]}`,
			want: `{"key1": ["value1", "value2"], "key2": ["value3", "value4"]}`, repairs: []string{BracketClosed}},
		{name: "members after the closing brace", in: `{"key": "value"}, "key2": "value2"}`, err: ErrTextAfter},
		{name: "missing closing bracket", in: `{"a": [1, 2}`, want: `{"a": [1, 2]}`, repairs: []string{BracketClosed}},
		{name: "stray bracket", in: `{"a": 1]}`, want: `{"a": 1}`, repairs: []string{BracketClosed}},
		{name: "extra closing brace", in: `{"a": 1}}`, err: ErrTextAfter},

		// Comments.
		{name: "line comment", in: "{\"a\": 1, // the count\n\"b\": 2}", want: "{\"a\": 1, \n\"b\": 2}", repairs: []string{Comment}},
		{name: "block comment", in: `{"flag": /* on */ true}`, want: `{"flag":  true}`, repairs: []string{Comment}},
		{name: "comment after the object", in: `{"a": 1} // done`, want: `{"a": 1}`, repairs: []string{TextAround}},
		{name: "URL is no comment", in: `{"url": https://example.com/a}`, want: `{"url": "https://example.com/a"}`, repairs: []string{UnquotedValue}},
		{name: "comment never closed", in: `{"a": 1 /* note`, err: ErrTruncated},

		// Unquoted keys and values.
		{name: "unquoted key", in: `{a: 2}`, want: `{"a": 2}`, repairs: []string{UnquotedKey}},
		{name: "unquoted key after a quoted one", in: `{"age": 30, city: "New York"}`, want: `{"age": 30, "city": "New York"}`, repairs: []string{UnquotedKey}},
		{name: "unquoted value with a space", in: `{"city": New York}`, want: `{"city": "New York"}`, repairs: []string{UnquotedValue}},
		{name: "unquoted value to the end of the line", in: "{path: src/main.go\nmode: read}", want: "{\"path\": \"src/main.go\",\n\"mode\": \"read\"}",
			repairs: []string{UnquotedKey, UnquotedValue, MissingComma}},
		{name: "value that lost its opening quote", in: `{"a":foo","b":"bar"}`, want: `{"a":"foo","b":"bar"}`, repairs: []string{UnquotedValue}},
		{name: "ellipsis is no value", in: `{"a": [1, 2, ...]}`, err: ErrSyntax},
		{name: "undefined is no value", in: `{"a": undefined}`, err: ErrSyntax},
		{name: "number outside JSON's grammar", in: `{"a": .25}`, err: ErrSyntax},
		{name: "curly quotes", in: `{“a”: 1}`, err: ErrSyntax},

		// Literals.
		{name: "upper-case literals", in: `{"a": TRUE, "b": FALSE, "c": Null}`, want: `{"a": true, "b": false, "c": null}`,
			repairs: []string{LiteralCase + "TRUE", LiteralCase + "FALSE", LiteralCase + "Null"}},
		{name: "Python literals", in: `{"a": True, "b": None}`, want: `{"a": true, "b": null}`,
			repairs: []string{PythonLiteral + "True", PythonLiteral + "None"}},

		// Missing commas.
		{name: "missing comma between members", in: "{\"a\":2\n\"b\":3}", want: "{\"a\":2,\n\"b\":3}", repairs: []string{MissingComma}},
		{name: "missing comma between elements", in: `{"l": ["x" "y"]}`, want: `{"l": ["x", "y"]}`, repairs: []string{MissingComma}},
		{name: "missing comma after a string", in: `{"reason": "ok""ans": "YES"}`, want: `{"reason": "ok","ans": "YES"}`, repairs: []string{MissingComma}},
		{name: "number against a quote", in: `{"n": 12345", "m": 1}`, err: ErrSyntax},

		// Quotes inside strings.
		{name: "inner quotes", in: `{"key": "apple "bee" carrot"}`, want: `{"key": "apple \"bee\" carrot"}`, repairs: []string{InnerQuote}},
		{name: "HTML attributes", in: `{"html": "<a href="x.html">x</a>", "n": 1}`, want: `{"html": "<a href=\"x.html\">x</a>", "n": 1}`, repairs: []string{InnerQuote}},
		{name: "apostrophe in single quotes", in: `{'text': 'it's here'}`, want: `{"text": "it's here"}`, repairs: []string{SingleQuotes, InnerQuote}},
		{name: "missing closing quote or inner quote", in: `{"a":"b,"c":"d"}`, err: ErrAmbiguous},
		{name: "code with quotes and raw newlines", in: "{\"new_string\": \"\tfmt.Println(\"hi \" + name)\n\tfmt.Println(\"bye\")\n\"}",
			want: `{"new_string": "\tfmt.Println(\"hi \" + name)\n\tfmt.Println(\"bye\")\n"}`, repairs: []string{RawTab, InnerQuote, RawNewline}},
		{name: "joined strings", in: "{\"a\": 'hello' +\n 'world'}", err: ErrSyntax},

		// Doubled quotes and escaped JSON.
		{name: "doubled quotes", in: `{""answer"": ""5""}`, want: `{"answer": "5"}`, repairs: []string{DoubledQuotes}},
		{name: "doubled single quotes", in: `{""traits"": ''aged 60+''}`, want: `{"traits": "aged 60+"}`, repairs: []string{DoubledQuotes, SingleQuotes}},
		{name: "empty string stays", in: `{"a": "", "b": 1}`, want: `{"a": "", "b": 1}`},
		{name: "escaped JSON", in: `{\"key\": \"value\", \"n\": 2}`, want: `{"key": "value", "n": 2}`, repairs: []string{EscapedJSON}},
		{name: "escaped JSON with an escaped newline", in: `{\"a\": \"x\\ny\"}`, want: `{"a": "x\ny"}`, repairs: []string{EscapedJSON}},

		// Raw control characters.
		{name: "raw newline and tab", in: "{\"s\": \"a\n\tb\"}", want: `{"s": "a\n\tb"}`, repairs: []string{RawNewline, RawTab}},

		// Tuples.
		{name: "tuple", in: `{"point": (1, 2)}`, want: `{"point": [1, 2]}`, repairs: []string{Tuple}},
		{name: "one value in parentheses", in: `{"a": (1)}`, err: ErrSyntax},

		// Escapes.
		{name: "escaped single quote", in: `{"key": "valu\'e"}`, want: `{"key": "valu'e"}`, repairs: []string{InvalidEscape}},
		{name: "backslash in a path stays", in: `{"p": "C:\dir"}`, want: `{"p": "C:\\dir"}`, repairs: []string{InvalidEscape}},

		// Text around the object.
		{name: "prose around", in: "Sure: {\"a\": 1} I will read it now.", want: `{"a": 1}`, repairs: []string{TextAround}},
		{name: "fence", in: "```json\n{\"a\": 1}\n```", want: `{"a": 1}`, repairs: []string{TextAround}},
		{name: "second object", in: `{"a":2}{}`, err: ErrTextAfter},
		{name: "second object after a space", in: `{"a":2} {"b":3}`, err: ErrTextAfter},
		{name: "word after", in: `{"a":2}foo`, err: ErrTextAfter},
		{name: "one word after a space", in: `{"a":2} foo`, err: ErrTextAfter},

		// Truncation is refused.
		{name: "cut in a string", in: `{"path": "src/Ma`, err: ErrTruncated},
		{name: "cut after a colon", in: `{"a": 1, "b":`, err: ErrTruncated},
		{name: "cut in an array", in: `{"a": [1, 2,`, err: ErrTruncated},
		{name: "no object", in: `path=pom.xml`, err: ErrNoObject},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, repairs, err := Repair(tt.in)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Fatalf("Repair(%q) = %q, %v; want error %v", tt.in, got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Repair(%q): %v", tt.in, err)
			}
			if got != tt.want {
				t.Errorf("Repair(%q) = %s, want %s", tt.in, got, tt.want)
			}
			if diff := cmp.Diff(tt.repairs, repairs); diff != "" {
				t.Errorf("Repair(%q) repairs mismatch (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestLossRefused: the no-loss check refuses a repaired object that lost,
// moved or changed a key or value of the text, and names it.
func TestLossRefused(t *testing.T) {
	tests := []struct{ name, text, out, lost string }{
		{"member dropped", `{"key1": ["value1", "value2"}, "key2": ["value3"]}`, `{"key1": ["value1", "value2"]}`, `"key2"`},
		{"value changed", `{"a": 0789}`, `{"a": 789}`, `0789`},
		{"value invented", `{"a": 1}`, `{"a": 1, "b": 2}`, ""},
		{"order changed", `{"a": 1, "b": 2}`, `{"b": 2, "a": 1}`, `"a"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkLoss(tt.text, tt.out)
			if !errors.Is(err, ErrLoss) {
				t.Fatalf("checkLoss(%q, %q) = %v, want ErrLoss", tt.text, tt.out, err)
			}
			if tt.lost != "" && !strings.Contains(err.Error(), tt.lost) {
				t.Errorf("checkLoss(%q, %q) = %v, want it to name %s", tt.text, tt.out, err, tt.lost)
			}
		})
	}
	if err := checkLoss(`{a: 'x', /* c */ "b": TRUE}`, `{"a": "x", "b": true}`); err != nil {
		t.Errorf("checkLoss of a repair that keeps everything = %v", err)
	}
}
