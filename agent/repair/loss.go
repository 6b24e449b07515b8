package repair

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode"
	"unicode/utf8"
)

// The no-loss check: after a repair, the letters and digits of the keys
// and values of the text, in order, are those of the repaired object.
// It reads the text on its own, by a reading simpler than the repair's
// (quoted strings, and runs of other bytes between brackets, commas and
// colons, comments left out), so that a repair that drops, moves out of
// order or invents content is refused whatever its cause. Quotes, white
// space and escapes are not compared: they are what repairs change.

// token is one string, number or word of the text, and its letters and
// digits.
type token struct {
	raw, alnum string
}

// textTokens returns the tokens of JSON-like text; the words the repair
// reads as true, false and null are no tokens.
func textTokens(t string) []token {
	var toks []token
	add := func(raw, content string) {
		if a := alnum(content); a != "" {
			toks = append(toks, token{raw: raw, alnum: a})
		}
	}
	for i := 0; i < len(t); {
		c := t[i]
		switch {
		case commentAt(t, i):
			i = commentEnd(t, i)
		case c == '"' || c == '\'':
			j, content := quoted(t, i)
			add(t[i:j], content)
			i = j
		case isSpace(c) || strings.IndexByte("{}[](),:\\", c) >= 0:
			i++
		default:
			j := i
			for j < len(t) && !isSpace(t[j]) && strings.IndexByte("{}[](),:\\\"'", t[j]) < 0 && !commentAt(t, j) {
				j++
			}
			if _, _, lit := literal(t[i:j]); !lit {
				add(t[i:j], t[i:j])
			}
			i = j
		}
	}
	return toks
}

// commentEnd returns the index after the comment at t[i].
func commentEnd(t string, i int) int {
	if t[i+1] == '/' {
		if nl := strings.IndexByte(t[i:], '\n'); nl >= 0 {
			return i + nl
		}
		return len(t)
	}
	if end := strings.Index(t[i+2:], "*/"); end >= 0 {
		return i + 2 + end + 2
	}
	return len(t)
}

// quoted reads the string at t[i] up to the same quote, and returns the
// index after it and its text with escapes read.
func quoted(t string, i int) (int, string) {
	q := t[i]
	var b strings.Builder
	j := i + 1
	for j < len(t) && t[j] != q {
		if t[j] != '\\' || j+1 >= len(t) {
			b.WriteByte(t[j])
			j++
			continue
		}
		switch next := t[j+1]; {
		case next == 'u' && isHex4(t[j+2:]):
			var r rune
			fmt.Sscanf(t[j+2:j+6], "%04x", &r)
			b.WriteRune(r)
			j += 6
		case strings.IndexByte("bfnrt", next) >= 0:
			b.WriteByte(' ')
			j += 2
		default:
			b.WriteByte(next)
			j += 2
		}
	}
	return min(j+1, len(t)), b.String()
}

// jsonTokens returns the keys, strings and numbers of valid JSON.
func jsonTokens(js string) []token {
	dec := json.NewDecoder(strings.NewReader(js))
	dec.UseNumber()
	var toks []token
	for {
		tok, err := dec.Token()
		if err == io.EOF || err != nil {
			return toks
		}
		var s string
		switch v := tok.(type) {
		case string:
			s = v
		case json.Number:
			s = v.String()
		default:
			continue
		}
		if a := alnum(s); a != "" {
			toks = append(toks, token{raw: s, alnum: a})
		}
	}
}

// alnum returns the letters and digits of s.
func alnum(s string) string {
	var b strings.Builder
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// checkLoss returns an ErrLoss naming the first token of text that the
// repaired JSON out lost or changed, or nil.
func checkLoss(text, out string) error {
	in := textTokens(text)
	got := strings.Join(tokenAlnums(jsonTokens(out)), "")
	want := strings.Join(tokenAlnums(in), "")
	if got == want {
		return nil
	}
	n := 0
	for n < len(got) && n < len(want) && got[n] == want[n] {
		n++
	}
	at := 0
	for _, tok := range in {
		if at+len(tok.alnum) > n {
			return fmt.Errorf("%w: %s would not be kept as written; write the object again with every bracket closed where it belongs", ErrLoss, tok.raw)
		}
		at += len(tok.alnum)
	}
	return fmt.Errorf("%w: the repair would add text the object does not hold", ErrLoss)
}

func tokenAlnums(toks []token) []string {
	out := make([]string, len(toks))
	for i, t := range toks {
		out[i] = t.alnum
	}
	return out
}
