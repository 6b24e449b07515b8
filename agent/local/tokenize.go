package local

import (
	"strings"

	"github.com/loopagent/loop/llama"
)

// Tokenize turns a rendered prompt into the tokens Complete sends. A
// template that writes the BOS token itself would get a second one from a
// vocabulary that adds BOS: as llama.cpp's chat code does, the rendered
// BOS (and a final EOS the vocabulary adds) is removed first, so the prompt
// starts with exactly one. `loop template` counts with it too.
func Tokenize(m *llama.Model, prompt string) ([]llama.Token, error) {
	return m.Tokenize(trimAdded(m, prompt), true, true)
}

// trimAdded removes from the prompt the BOS and EOS texts that the
// tokenizer adds as tokens itself.
func trimAdded(m *llama.Model, prompt string) string {
	if m.AddBOS() {
		if bos, err := m.TokenPiece(m.BOS(), true); err == nil && bos != "" {
			prompt = strings.TrimPrefix(prompt, bos)
		}
	}
	if m.AddEOS() {
		if eos, err := m.TokenPiece(m.EOS(), true); err == nil && eos != "" {
			prompt = strings.TrimSuffix(prompt, eos)
		}
	}
	return prompt
}

// promptTokens are the last prompt's tokens, with where each ends in its
// text, for the next prompt.
type promptTokens struct {
	text   string        // the prompt, BOS and EOS texts trimmed
	tokens []llama.Token // Tokenize's result
	ends   []int         // byte offset in text after each token; nil when unknown
}

// tokenize is Tokenize, made incremental for an agent's prompts, each of
// which extends the last as the conversation grows at its end. llama.cpp
// splits a prompt at its special tokens before it runs BPE on the pieces
// between them, so the tokens up to the last special token that the new
// prompt shares with the last one are the same; only the text after it is
// tokenized. An identical prompt (counted by PromptTokens just before
// Complete) costs nothing. Tokenizing the whole prompt of an agent step
// would cost time that grows with the conversation
// (BenchmarkTokenizePrompt measures it).
func (c *Client) tokenize(prompt string) ([]llama.Token, error) {
	text := trimAdded(c.model, prompt)
	last := &c.last
	if last.tokens != nil && last.text == text {
		return last.tokens, nil
	}
	if toks, ends, ok := c.extend(text); ok {
		c.last = promptTokens{text: text, tokens: toks, ends: ends}
		return toks, nil
	}
	toks, err := c.model.Tokenize(text, true, true)
	if err != nil {
		return nil, err
	}
	c.last = promptTokens{text: text, tokens: toks}
	return toks, nil
}

// extend tokenizes text from the last special token it shares with the
// last prompt.
func (c *Client) extend(text string) ([]llama.Token, []int, bool) {
	last := &c.last
	if last.tokens == nil {
		return nil, nil, false
	}
	if last.ends == nil {
		ends, ok := c.tokenEnds(last.tokens, 0, last.text)
		if !ok {
			return nil, nil, false
		}
		last.ends = ends
	}
	shared := commonPrefix(last.text, text)
	k := -1 // the last shared special token
	for i := len(last.tokens) - 1; i >= 0; i-- {
		if last.ends[i] <= shared && c.splits(last.tokens[i]) {
			k = i
			break
		}
	}
	if k < 0 {
		return nil, nil, false
	}
	at := last.ends[k]
	rest, err := c.model.Tokenize(text[at:], false, true)
	if err != nil {
		return nil, nil, false
	}
	ends, ok := c.tokenEnds(rest, at, text)
	if !ok {
		return nil, nil, false
	}
	toks := append(append(make([]llama.Token, 0, k+1+len(rest)), last.tokens[:k+1]...), rest...)
	return toks, append(append(make([]int, 0, len(toks)), last.ends[:k+1]...), ends...), true
}

// splits reports whether the tokenizer splits the text after token t: a
// special token (control or user-defined) that does not strip the
// whitespace after it.
func (c *Client) splits(t llama.Token) bool {
	a := c.model.TokenAttr(t)
	return a&(llama.AttrControl|llama.AttrUserDefined) != 0 && a&llama.AttrRStrip == 0
}

// tokenEnds returns where each token ends in text, starting at offset
// from: the pieces must spell the text exactly, or ok is false. An added
// BOS at offset 0 spells nothing.
func (c *Client) tokenEnds(toks []llama.Token, from int, text string) ([]int, bool) {
	ends := make([]int, len(toks))
	at := from
	for i, t := range toks {
		if i == 0 && from == 0 && c.model.AddBOS() && t == c.model.BOS() {
			ends[i] = 0
			continue
		}
		p, err := c.model.TokenPiece(t, true)
		if err != nil || !strings.HasPrefix(text[at:], p) {
			return nil, false
		}
		at += len(p)
		ends[i] = at
	}
	return ends, at == len(text)
}

// commonPrefix is the length of the longest common byte prefix.
func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
