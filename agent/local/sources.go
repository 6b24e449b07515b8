package local

import (
	"github.com/loopagent/loop/agent/callformat"
	"github.com/loopagent/loop/llama"
)

// maxSourceCache bounds the texts whose tokens a client keeps between
// requests: a run reads a few files, and reads them again.
const maxSourceCache = 32

// DraftSources tokenizes texts a reply may copy as a call of format f
// writes them (Format.StringText: a JSON string's escapes), for
// engine.Request.Sources; a nil f tokenizes them as they are, as an
// answer quotes them (engine.Request.AnswerSources). Special-token text
// stays plain text.
func DraftSources(m *llama.Model, f callformat.Format, texts []string) ([][]llama.Token, error) {
	var out [][]llama.Token
	for _, t := range texts {
		if f != nil {
			t = f.StringText(t)
		}
		toks, err := m.Tokenize(t, false, false)
		if err != nil {
			return nil, err
		}
		out = append(out, toks)
	}
	return out, nil
}

// sources is DraftSources with the client's cache: a file read at one
// step is tokenized once for the steps after it.
func (c *Client) sources(f callformat.Format, texts []string) [][]llama.Token {
	if c.draftMax <= 0 || len(texts) == 0 {
		return nil
	}
	if c.sourceCache == nil || len(c.sourceCache) > maxSourceCache {
		c.sourceCache = map[string][]llama.Token{}
	}
	var out [][]llama.Token
	for _, t := range texts {
		key := "\x00" + t
		if f != nil {
			key = f.Name() + key
		}
		toks, ok := c.sourceCache[key]
		if !ok {
			one, err := DraftSources(c.model, f, []string{t})
			if err != nil {
				continue // a text that does not tokenize is no source
			}
			toks = one[0]
			c.sourceCache[key] = toks
		}
		out = append(out, toks)
	}
	return out
}
