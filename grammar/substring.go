package grammar

import (
	"fmt"
	"slices"
	"strings"
)

// SubstringOf is loop's own schema keyword for a string that must occur
// in a given text: {"type": "string", "x-substring-of": "...the file..."}
// admits exactly the non-empty substrings of the text, each written as a
// JSON string writes it (the quote, the backslash and control characters
// escaped, nothing else). An edit's old_string narrowed to the file it
// edits (agent/paths) always matches. A validator ignores the keyword,
// as JSON Schema ignores unknown ones; only the grammar enforces it.
const SubstringOf = "x-substring-of"

// substringOf is the rule of a string schema with SubstringOf set to v.
func (c *converter) substringOf(v any, name, ptr string) (string, error) {
	text, ok := v.(string)
	if !ok {
		return "", c.fail(ptr+"/"+SubstringOf, "%s must be a string", SubstringOf)
	}
	return c.substring(text, name, ptr)
}

// substring writes the rules of a JSON string whose contents are a
// non-empty substring of text, and returns the value's rule.
//
// The rules are text's suffix automaton: at most 2n states and 3n
// transitions for n runes, each state a rule whose alternatives are its
// transitions; every state but the start may also end the string, since
// every path from the start spells a substring. A model at the start
// of the value has one live choice per distinct rune of the text, and
// each rune narrows them to the places that continue what it wrote.
func (c *converter) substring(text, name, ptr string) (string, error) {
	if text == "" {
		return "", c.fail(ptr+"/"+SubstringOf, "an empty text has no non-empty substring")
	}
	sa := buildSuffixAutomaton(text)
	base := strings.Trim(invalidRuleChars.ReplaceAllString(name, "-"), "-") // as Rule writes it
	names := make([]string, len(sa))
	for i := range sa {
		names[i] = fmt.Sprintf("%s-sub%d", base, i)
	}
	// Bodies first, then the rules in state order, so the names are fixed.
	for i := len(sa) - 1; i >= 0; i-- {
		st := sa[i]
		runes := make([]rune, 0, len(st.next))
		for r := range st.next {
			runes = append(runes, r)
		}
		slices.Sort(runes)
		alts := make([]string, 0, len(runes)+1)
		for _, r := range runes {
			alts = append(alts, Quote(jsonRune(r))+" "+names[st.next[r]])
		}
		if i > 0 {
			alts = append(alts, `""`)
		}
		if got := c.b.Rule(names[i], strings.Join(alts, " | ")); got != names[i] {
			return "", c.fail(ptr, "rule %s already names another rule", names[i])
		}
	}
	return c.b.Rule(name, `"\"" `+names[0]+` "\"" space`), nil
}

// jsonRune is r as a model writes it inside a JSON string: the quote, the
// backslash and control characters escaped, everything else as it is
// (<, > and & too, which Go's encoder would escape).
func jsonRune(r rune) string {
	switch r {
	case '"':
		return `\"`
	case '\\':
		return `\\`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	}
	if r < 0x20 {
		return fmt.Sprintf(`\u%04x`, r)
	}
	return string(r)
}

// saState is a state of a suffix automaton.
type saState struct {
	len, link int
	next      map[rune]int
}

// buildSuffixAutomaton returns the suffix automaton of text's runes, the
// start state first (the standard online construction).
func buildSuffixAutomaton(text string) []saState {
	sa := []saState{{link: -1, next: map[rune]int{}}}
	last := 0
	for _, r := range text {
		cur := len(sa)
		sa = append(sa, saState{len: sa[last].len + 1, next: map[rune]int{}})
		p := last
		for p != -1 {
			if _, ok := sa[p].next[r]; ok {
				break
			}
			sa[p].next[r] = cur
			p = sa[p].link
		}
		switch {
		case p == -1:
			sa[cur].link = 0
		case sa[sa[p].next[r]].len == sa[p].len+1:
			sa[cur].link = sa[p].next[r]
		default:
			q := sa[p].next[r]
			clone := len(sa)
			next := make(map[rune]int, len(sa[q].next))
			for k, v := range sa[q].next {
				next[k] = v
			}
			sa = append(sa, saState{len: sa[p].len + 1, link: sa[q].link, next: next})
			for p != -1 && sa[p].next[r] == q {
				sa[p].next[r] = clone
				p = sa[p].link
			}
			sa[q].link, sa[cur].link = clone, clone
		}
		last = cur
	}
	return sa
}
