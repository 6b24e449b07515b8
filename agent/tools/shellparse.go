package tools

import (
	"strings"
)

// A shell command as the policy reads it: the simple commands it runs, each
// as its words with the quotes removed, and whether it does anything the
// words do not show. This is not a shell parser; it reads enough of bash
// (quotes, escapes, ; && || | & newlines, ( ) { }, $( ) and backticks,
// redirections) to judge a command a model wrote, and when in doubt it
// reports the command as not plain, so that it is never allowed without
// asking.

// simpleCommand is one command of a list or pipeline.
type simpleCommand struct {
	words    []string
	pipeNext bool // its output goes to the next command through |
}

// parsedCommand is a command line split into simple commands.
type parsedCommand struct {
	cmds []simpleCommand
	// substitution is set by $( ), backticks, <( ) and >( ): commands
	// whose text the words do not show plainly.
	substitution bool
	// redirect is set by output to a file (> or >>), other than /dev/null
	// or another descriptor (2>&1).
	redirect bool
}

// commandParser holds the state of one parse.
type commandParser struct {
	src     []rune
	i       int
	out     parsedCommand
	words   []string
	word    strings.Builder
	inWord  bool
	target  bool // the next word is a redirection's target
	outFile bool // ... of an output redirection
}

func parseCommand(command string) parsedCommand {
	p := &commandParser{src: []rune(command)}
	p.run()
	p.endCommand(false)
	return p.out
}

func (p *commandParser) run() {
	for p.i < len(p.src) {
		c := p.src[p.i]
		next := p.peek(1)
		switch {
		case c == '\\':
			if p.i+1 < len(p.src) && next != '\n' {
				p.add(next)
			}
			p.i += 2
			continue
		case c == '\'':
			p.single()
		case c == '"':
			p.double()
		case c == ' ' || c == '\t':
			p.endWord()
		case c == '\n' || c == ';' || c == '(' || c == ')':
			p.endCommand(false)
		case c == '`' || (c == '$' && next == '('):
			p.out.substitution = true
			p.endCommand(false)
			if c == '$' {
				p.i++
			}
		case c == '|':
			p.endCommand(next != '|')
			if next == '|' || next == '&' {
				p.i++
			}
		case c == '&':
			if next == '>' {
				p.i++
				p.redirect(true)
				break
			}
			p.endCommand(false)
			if next == '&' {
				p.i++
			}
		case c == '>' || c == '<':
			p.redirect(c == '>')
		default:
			p.add(c)
		}
		p.i++
	}
}

func (p *commandParser) peek(k int) rune {
	if p.i+k < len(p.src) {
		return p.src[p.i+k]
	}
	return 0
}

func (p *commandParser) add(c rune) {
	p.word.WriteRune(c)
	p.inWord = true
}

// single reads a single-quoted string; p.i is at its opening quote.
func (p *commandParser) single() {
	p.inWord = true
	for p.i++; p.i < len(p.src) && p.src[p.i] != '\''; p.i++ {
		p.word.WriteRune(p.src[p.i])
	}
}

// double reads a double-quoted string; a $( ) inside is parsed as
// commands of its own.
func (p *commandParser) double() {
	p.inWord = true
	for p.i++; p.i < len(p.src) && p.src[p.i] != '"'; p.i++ {
		c := p.src[p.i]
		switch {
		case c == '\\' && p.i+1 < len(p.src):
			p.i++
			p.word.WriteRune(p.src[p.i])
		case c == '`':
			p.out.substitution = true
		case c == '$' && p.peek(1) == '(':
			p.out.substitution = true
			start, depth := p.i+2, 1
			for p.i += 2; p.i < len(p.src) && depth > 0; p.i++ {
				switch p.src[p.i] {
				case '(':
					depth++
				case ')':
					depth--
				}
			}
			inner := parseCommand(string(p.src[start:max(start, p.i-1)]))
			p.out.cmds = append(p.out.cmds, inner.cmds...)
			p.i--
		default:
			p.word.WriteRune(c)
		}
	}
}

// redirect reads a redirection operator at p.i: > >> >& >| < << <<< <( >(.
func (p *commandParser) redirect(output bool) {
	if p.inWord && isDigits(p.word.String()) {
		p.word.Reset() // the descriptor in 2>file
		p.inWord = false
	}
	p.endWord()
	switch p.peek(1) {
	case '(':
		p.out.substitution = true
		p.endCommand(false)
		p.i++
		return
	case '&':
		p.i++ // >&2 or <&0: another descriptor
		for isDigits(string(p.peek(1))) || p.peek(1) == '-' {
			p.i++
		}
		return
	case '>', '|', '<':
		p.i++
		if p.peek(1) == '<' {
			p.i++ // <<<
		}
	}
	p.target, p.outFile = true, output
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

func (p *commandParser) endWord() {
	if !p.inWord {
		return
	}
	w := p.word.String()
	p.word.Reset()
	p.inWord = false
	if p.target {
		p.target = false
		if p.outFile && w != "/dev/null" {
			p.out.redirect = true
		}
		return
	}
	if len(p.words) == 0 && (w == "{" || w == "}" || w == "!") {
		return
	}
	p.words = append(p.words, w)
}

func (p *commandParser) endCommand(pipe bool) {
	p.endWord()
	if p.target {
		p.target = false // a redirection without a target: bash rejects it
	}
	if len(p.words) > 0 {
		p.out.cmds = append(p.out.cmds, simpleCommand{words: p.words, pipeNext: pipe})
	} else if pipe && len(p.out.cmds) > 0 {
		p.out.cmds[len(p.out.cmds)-1].pipeNext = true
	}
	p.words = nil
}
