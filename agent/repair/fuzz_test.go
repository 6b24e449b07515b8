package repair

import (
	"encoding/json"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// damageSeeds are valid objects that tool calls look like.
var damageSeeds = []string{
	`{"name": "read_file", "arguments": {"path": "pom.xml"}}`,
	`{"path": "A.java", "old_string": "int a;\n\tint b;", "new_string": "say \"hi\"", "count": 2}`,
	`{"a": [1, 2.5, -3e2], "b": {"c": true, "d": null, "e": false}, "f": "New York"}`,
	`{"cmd": "ls -la", "env": ["A=1", "B=2"], "x": {"y": [[], {}]}}`,
}

// span is a byte range [from, to) of a valid JSON text.
type span struct{ from, to int }

// jsonParts are the places of a valid JSON text that a damage changes.
type jsonParts struct {
	commas, keys, strs, lits, arrays, escapes []span
}

// partsOf finds the commas, keys, string values, literals, arrays and
// escapes of valid JSON text.
func partsOf(text string) jsonParts {
	var p jsonParts
	var opens []int
	for i := 0; i < len(text); i++ {
		switch c := text[i]; {
		case c == '"':
			j := i + 1
			for text[j] != '"' {
				if text[j] == '\\' {
					p.escapes = append(p.escapes, span{j, j + 2})
					j++
				}
				j++
			}
			k := skipSpace(text, j+1)
			if k < len(text) && text[k] == ':' {
				p.keys = append(p.keys, span{i, j + 1})
			} else {
				p.strs = append(p.strs, span{i, j + 1})
			}
			i = j
		case c == ',':
			p.commas = append(p.commas, span{i, i + 1})
		case c == '[':
			opens = append(opens, i)
		case c == ']':
			p.arrays = append(p.arrays, span{opens[len(opens)-1], i + 1})
			opens = opens[:len(opens)-1]
		case c == 't' || c == 'f' || c == 'n':
			n := map[byte]int{'t': 4, 'f': 5, 'n': 4}[c]
			p.lits = append(p.lits, span{i, i + n})
			i += n - 1
		}
	}
	return p
}

var identRe = regexp.MustCompile(`^"[A-Za-z_][A-Za-z0-9_]*"$`)
var wordsRe = regexp.MustCompile(`^"[A-Za-z][A-Za-z ]*[A-Za-z]"$`)

// damage makes one damage of a kind of issue 33's item 2 to valid JSON
// text, at the at-th place it applies, and reports false when the text
// has no such place.
func damage(text string, kind, at int) (string, bool) {
	p := partsOf(text)
	pick := func(spans []span, ok func(span) bool) (span, bool) {
		var fit []span
		for _, s := range spans {
			if ok == nil || ok(s) {
				fit = append(fit, s)
			}
		}
		if len(fit) == 0 {
			return span{}, false
		}
		return fit[at%len(fit)], true
	}
	with := func(s span, repl string) string { return text[:s.from] + repl + text[s.to:] }
	switch kind % 9 {
	case 0: // a missing comma
		if s, ok := pick(p.commas, nil); ok {
			return with(s, " "), true
		}
	case 1: // an unquoted key
		if s, ok := pick(p.keys, func(s span) bool { return identRe.MatchString(text[s.from:s.to]) }); ok {
			return with(s, text[s.from+1:s.to-1]), true
		}
	case 2: // a literal in upper case
		if s, ok := pick(p.lits, nil); ok {
			return with(s, strings.ToUpper(text[s.from:s.to])), true
		}
	case 3: // a comment after a comma
		if s, ok := pick(p.commas, nil); ok {
			if at%2 == 0 {
				return with(s, ", /* note */"), true
			}
			return with(s, ", // note\n"), true
		}
	case 4: // an unquoted string value
		if s, ok := pick(p.strs, func(s span) bool { return wordsRe.MatchString(text[s.from:s.to]) }); ok {
			return with(s, text[s.from+1:s.to-1]), true
		}
	case 5: // an escaped quote left unescaped
		if s, ok := pick(p.escapes, func(s span) bool { return text[s.from+1] == '"' }); ok {
			return with(s, `"`), true
		}
	case 6: // doubled quotes, or the whole object escaped
		if at%2 == 0 {
			return strings.ReplaceAll(text, `"`, `""`), !strings.Contains(text, `\`) && !strings.Contains(text, `""`)
		}
		b, _ := json.Marshal(text)
		return string(b[1 : len(b)-1]), true
	case 7: // a raw newline or tab
		if s, ok := pick(p.escapes, func(s span) bool { return text[s.from+1] == 'n' || text[s.from+1] == 't' }); ok {
			return with(s, map[byte]string{'n': "\n", 't': "\t"}[text[s.from+1]]), true
		}
	case 8: // a tuple
		if s, ok := pick(p.arrays, nil); ok {
			return text[:s.from] + "(" + text[s.from+1:s.to-1] + ")" + text[s.to:], true
		}
	}
	return "", false
}

// FuzzDamage: a valid object with one damage of a kind the repair knows
// repairs back to the same value, or is refused.
func FuzzDamage(f *testing.F) {
	for _, s := range damageSeeds {
		for kind := range 9 {
			f.Add(s, kind, 0)
			f.Add(s, kind, 1)
		}
	}
	f.Fuzz(func(t *testing.T, text string, kind, at int) {
		var want map[string]any
		if json.Unmarshal([]byte(text), &want) != nil || !json.Valid([]byte(text)) || at < 0 || kind < 0 {
			return
		}
		damaged, ok := damage(text, kind, at)
		if !ok {
			return
		}
		out, _, err := Repair(damaged)
		if err != nil {
			return
		}
		var got map[string]any
		if err := json.Unmarshal([]byte(out), &got); err != nil {
			t.Fatalf("Repair(%q) = %q, not a JSON object: %v", damaged, out, err)
		}
		if !sameValue(decodeNumbers(t, out), decodeNumbers(t, text)) {
			t.Fatalf("Repair(%q) = %s, want the value of %s", damaged, out, text)
		}
	})
}

func decodeNumbers(t *testing.T, s string) any {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

var unicodeEscape = regexp.MustCompile(`\\u[0-9a-fA-F]{4}`)

// FuzzNoInvention: a repaired object is valid JSON, and the letters and
// digits of its keys, strings and numbers are, in order, letters and
// digits of the text: a repair never invents content or moves it.
func FuzzNoInvention(f *testing.F) {
	for _, s := range damageSeeds {
		f.Add(s)
	}
	for _, in := range example4Inputs {
		f.Add(in)
	}
	f.Add(`{"name":"f","arguments":{"a":["x"},"b":1}}`)
	f.Add(`{""answer"": ""5"", b: (1, 2), c: TRUE /* x */ "d": "a "q" b"}`)
	f.Add(`{\"key\": \"value\"}`)
	f.Fuzz(func(t *testing.T, in string) {
		out, _, err := Repair(in)
		if err != nil {
			return
		}
		if !json.Valid([]byte(out)) || !strings.HasPrefix(out, "{") {
			t.Fatalf("Repair(%q) = %q, not a JSON object", in, out)
		}
		var got strings.Builder
		for _, tok := range jsonTokens(out) {
			got.WriteString(tok.alnum)
		}
		text := unicodeEscape.ReplaceAllStringFunc(in, func(e string) string {
			r, _ := strconv.ParseUint(e[2:], 16, 32)
			return string(rune(r))
		})
		if !isSubsequence(got.String(), alnum(text)) {
			t.Fatalf("Repair(%q) = %s: its keys and values are not the text's, in order", in, out)
		}
	})
}

// isSubsequence reports whether the runes of sub appear in s in order.
func isSubsequence(sub, s string) bool {
	r := []rune(s)
	i := 0
	for _, c := range sub {
		for i < len(r) && r[i] != c {
			i++
		}
		if i == len(r) {
			return false
		}
		i++
	}
	return true
}
