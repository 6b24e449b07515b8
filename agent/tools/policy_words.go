package tools

import (
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/expand"
	"mvdan.cc/sh/v3/syntax"
)

// How the policy reads a command line: bash's own grammar, parsed by
// mvdan.cc/sh into a syntax tree, and each word turned into the text the
// program will receive, as far as the command line itself shows it. A
// word whose text only exists when the command runs ($x, $(cmd), ~user)
// becomes unknownWord, which equals no rule word.

// unknownWord stands for a word whose value the command line does not
// show. It is never equal to a word of a rule.
const unknownWord = "\x00"

// maxBraceWords caps the words one brace expansion may produce before the
// rest count as unknown: {a,b}{c,d}... grows fast.
const maxBraceWords = 256

// parseBash parses command with bash's grammar, keeping comments so that
// the plain-command check can refuse them.
func parseBash(command string) (*syntax.File, error) {
	p := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(true))
	return p.Parse(strings.NewReader(command), "")
}

// wordReader resolves words to their literal values. home is the user's
// home directory, which ~, $HOME and ${HOME} stand for; "~" when unknown.
type wordReader struct {
	home string
}

// fields is the words a call's argument list becomes before the command
// runs, as far as the text shows: brace expansion first ({sudo,x} is
// "sudo x"), then each word's literal value, or unknownWord.
func (r wordReader) fields(args []*syntax.Word) []string {
	var out []string
	for _, w := range args {
		cp := &syntax.Word{Parts: w.Parts}
		if !syntax.SplitBraces(cp) {
			out = append(out, r.value(w))
			continue
		}
		n := 0
		for ew, err := range expand.BracesSeq(nil, cp) {
			if err != nil || n == maxBraceWords {
				out = append(out, unknownWord)
				break
			}
			out = append(out, r.value(ew))
			n++
		}
	}
	return out
}

// value is w's literal value, or unknownWord.
func (r wordReader) value(w *syntax.Word) string {
	if s, ok := r.literal(w); ok {
		return s
	}
	return unknownWord
}

// cleanWord cleans a word that names a path, so that "//", "/." and "~/"
// read as "/" and the home directory. Options (-x, --x=/a) are left alone.
func cleanWord(s string) string {
	if !strings.Contains(s, "/") || strings.HasPrefix(s, "-") {
		return s
	}
	return path.Clean(s)
}

// literal is the text bash gives w when w holds no expansion other than
// a leading ~ or $HOME: quotes removed, backslashes resolved, $'...'
// decoded. ok is false for any other expansion.
func (r wordReader) literal(w *syntax.Word) (string, bool) {
	var sb strings.Builder
	for i, part := range w.Parts {
		switch part := part.(type) {
		case *syntax.Lit:
			v := part.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				home, rest, ok := r.tilde(v, len(w.Parts) > 1)
				if !ok {
					return "", false
				}
				sb.WriteString(home)
				v = rest
			}
			sb.WriteString(unescapeBare(v))
		case *syntax.SglQuoted:
			if part.Dollar {
				sb.WriteString(decodeANSIC(part.Value))
			} else {
				sb.WriteString(part.Value)
			}
		case *syntax.DblQuoted:
			for _, in := range part.Parts {
				switch in := in.(type) {
				case *syntax.Lit:
					sb.WriteString(unescapeDouble(in.Value))
				case *syntax.ParamExp:
					if !isHomeParam(in) {
						return "", false
					}
					sb.WriteString(r.home)
				default:
					return "", false
				}
			}
		case *syntax.ParamExp:
			if !isHomeParam(part) {
				return "", false
			}
			sb.WriteString(r.home)
		default:
			return "", false
		}
	}
	return sb.String(), true
}

// tilde expands the tilde prefix of lit, a word's first literal part: "~"
// and "~/x" are the home directory. Bash leaves the tilde alone when the
// prefix holds a quoted character (~"x", ~\x); ~user, ~+ and ~- depend on
// the system, so they are not known.
func (r wordReader) tilde(lit string, moreParts bool) (home, rest string, ok bool) {
	prefix, _, slash := strings.Cut(lit, "/")
	switch {
	case !slash && moreParts, strings.Contains(prefix, `\`):
		return "", lit, true
	case prefix == "~":
		return r.home, lit[1:], true
	}
	return "", "", false
}

// isHomeParam reports whether pe is exactly $HOME or ${HOME}.
func isHomeParam(pe *syntax.ParamExp) bool {
	var sb strings.Builder
	if err := syntax.NewPrinter().Print(&sb, pe); err != nil {
		return false
	}
	return sb.String() == "$HOME" || sb.String() == "${HOME}"
}

// unescapeBare removes the backslashes of an unquoted literal: \x is x.
// (The parser already dropped backslash-newline.)
func unescapeBare(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// unescapeDouble removes the backslashes that quote a character inside
// double quotes: before $, `, ", \ and newline. Others stay.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		sb.WriteByte(s[i])
	}
	return sb.String()
}

// ansiEscapes are the one-letter escapes of bash's $'...' strings.
var ansiEscapes = map[byte]string{
	'a': "\a", 'b': "\b", 'e': "\x1b", 'E': "\x1b", 'f': "\f", 'n': "\n", 'r': "\r",
	't': "\t", 'v': "\v", '\\': `\`, '\'': "'", '"': `"`, '?': "?",
}

// decodeANSIC decodes the body of a $'...' string as bash does: \n, \xHH,
// octal \NNN, \uHHHH, \UHHHHHHHH and \cX; a NUL ends the string; an
// unknown escape keeps its backslash.
func decodeANSIC(s string) string {
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			sb.WriteByte(c)
			continue
		}
		i++
		e := s[i]
		if lit, ok := ansiEscapes[e]; ok {
			sb.WriteString(lit)
			continue
		}
		var r rune
		var n int
		switch {
		case e >= '0' && e <= '7':
			r, n = numberPrefix(s[i:], 8, 3)
			i += n - 1
		case e == 'x' || e == 'u' || e == 'U':
			width := map[byte]int{'x': 2, 'u': 4, 'U': 8}[e]
			r, n = numberPrefix(s[i+1:], 16, width)
			if n == 0 {
				sb.WriteString(`\` + string(e))
				continue
			}
			i += n
		case e == 'c' && i+1 < len(s):
			i++
			r = rune(s[i] & 0x1f)
		default:
			sb.WriteString(`\` + string(e))
			continue
		}
		if r == 0 {
			break
		}
		if e == 'u' || e == 'U' {
			if !utf8.ValidRune(r) {
				r = utf8.RuneError
			}
			sb.WriteRune(r)
		} else {
			sb.WriteByte(byte(r))
		}
	}
	s = sb.String()
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	return s
}

// numberPrefix reads up to max digits of base at the start of s.
func numberPrefix(s string, base, max int) (rune, int) {
	n := 0
	for n < len(s) && n < max {
		if _, err := strconv.ParseUint(s[n:n+1], base, 8); err != nil {
			break
		}
		n++
	}
	if n == 0 {
		return 0, 0
	}
	v, _ := strconv.ParseUint(s[:n], base, 32)
	return rune(v), n
}
