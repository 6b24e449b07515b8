package llama

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"unsafe"
)

// Token is a vocabulary id.
type Token = int32

// TokenAttr is a bit set of llama_token_attr flags.
type TokenAttr uint32

// Token attributes (llama_token_attr).
const (
	AttrUnknown     TokenAttr = 1 << 0
	AttrUnused      TokenAttr = 1 << 1
	AttrNormal      TokenAttr = 1 << 2
	AttrControl     TokenAttr = 1 << 3
	AttrUserDefined TokenAttr = 1 << 4
	AttrByte        TokenAttr = 1 << 5
	AttrNormalized  TokenAttr = 1 << 6
	AttrLStrip      TokenAttr = 1 << 7
	AttrRStrip      TokenAttr = 1 << 8
	AttrSingleWord  TokenAttr = 1 << 9
)

// NoToken is LLAMA_TOKEN_NULL, returned when a model has no such token.
const NoToken Token = -1

// Tokenize converts text into tokens. addSpecial adds BOS (and EOS) when the
// model is configured to; parseSpecial turns special-token text such as
// <|im_start|> into its token instead of tokenizing the characters.
func (m *Model) Tokenize(text string, addSpecial, parseSpecial bool) ([]Token, error) {
	const op = "tokenize"
	var out []Token
	err := m.useVocab(op, func() error {
		if len(text) > 1<<30 {
			return newError(op, "", detail(ErrInvalidArgument, "text of %d bytes is too long", len(text)))
		}
		if addSpecial {
			// llama.cpp asserts that the tokens it is told to add exist.
			if bool(C.llama_vocab_get_add_bos(m.vocab)) && C.llama_vocab_bos(m.vocab) == C.LLAMA_TOKEN_NULL {
				return newError(op, m.path, detail(ErrInvalidArgument, "the vocabulary adds a BOS token it does not have"))
			}
			if bool(C.llama_vocab_get_add_eos(m.vocab)) && C.llama_vocab_eos(m.vocab) == C.LLAMA_TOKEN_NULL {
				return newError(op, m.path, detail(ErrInvalidArgument, "the vocabulary adds an EOS token it does not have"))
			}
		}
		ctext := C.CString(text)
		defer C.free(unsafe.Pointer(ctext))
		// Byte-level BPE never yields more tokens than bytes, plus BOS/EOS.
		capacity := len(text) + 2
		out = make([]Token, capacity)
		var errbuf [256]C.char
		n := C.loop_tokenize(m.vocab, ctext, C.int32_t(len(text)), (*C.llama_token)(unsafe.Pointer(&out[0])),
			C.int32_t(capacity), C.bool(addSpecial), C.bool(parseSpecial), &errbuf[0], C.size_t(len(errbuf)))
		if errbuf[0] != 0 {
			return newError(op, "", errors.New(C.GoString(&errbuf[0])))
		}
		if n == C.INT32_MIN {
			return newError(op, "", detail(ErrInvalidArgument, "token count overflows int32"))
		}
		if n < 0 { // buffer too small: -n is the size needed
			out = make([]Token, -n)
			n = C.loop_tokenize(m.vocab, ctext, C.int32_t(len(text)), (*C.llama_token)(unsafe.Pointer(&out[0])),
				C.int32_t(len(out)), C.bool(addSpecial), C.bool(parseSpecial), &errbuf[0], C.size_t(len(errbuf)))
			if n < 0 || errbuf[0] != 0 {
				return newError(op, "", fmt.Errorf("llama_tokenize failed (%d)", n))
			}
		}
		out = out[:n]
		return nil
	})
	return out, err
}

// Detokenize converts tokens back into text. With renderSpecial, special
// tokens are written out (<|im_end|>); without it they are dropped.
func (m *Model) Detokenize(tokens []Token, renderSpecial bool) (string, error) {
	const op = "detokenize"
	var out string
	err := m.useVocab(op, func() error {
		if err := m.checkTokens(tokens); err != nil {
			return newError(op, "", err)
		}
		if len(tokens) == 0 {
			return nil
		}
		buf := make([]byte, len(tokens)*8+16)
		for {
			n := C.llama_detokenize(m.vocab, (*C.llama_token)(unsafe.Pointer(&tokens[0])), C.int32_t(len(tokens)),
				(*C.char)(unsafe.Pointer(&buf[0])), C.int32_t(len(buf)), C.bool(false), C.bool(renderSpecial))
			if n >= 0 {
				out = string(buf[:n])
				return nil
			}
			if int(-n) <= len(buf) {
				return newError(op, "", fmt.Errorf("llama_detokenize failed (%d)", n))
			}
			buf = make([]byte, -n)
		}
	})
	return out, err
}

// TokenPiece returns the text of one token as it appears in generated
// output: the bytes it decodes to, which may be part of a UTF-8 character.
// With renderSpecial, control tokens give their text; otherwise "".
func (m *Model) TokenPiece(t Token, renderSpecial bool) (string, error) {
	var out string
	err := m.useVocab("token piece", func() error {
		if err := m.checkTokens([]Token{t}); err != nil {
			return newError("token piece", "", err)
		}
		out = m.piece(t, renderSpecial)
		return nil
	})
	return out, err
}

// piece is TokenPiece without the lock; m must be open and t valid.
func (m *Model) piece(t Token, renderSpecial bool) string {
	var buf [128]byte
	n := C.llama_token_to_piece(m.vocab, C.llama_token(t), (*C.char)(unsafe.Pointer(&buf[0])), C.int32_t(len(buf)), 0, C.bool(renderSpecial))
	if n >= 0 {
		return string(buf[:n])
	}
	big := make([]byte, -n)
	n = C.llama_token_to_piece(m.vocab, C.llama_token(t), (*C.char)(unsafe.Pointer(&big[0])), C.int32_t(len(big)), 0, C.bool(renderSpecial))
	if n < 0 {
		return ""
	}
	return string(big[:n])
}

// TokenAttr returns the attributes of a token.
func (m *Model) TokenAttr(t Token) TokenAttr {
	var a TokenAttr
	m.useVocab("token attr", func() error {
		if m.checkTokens([]Token{t}) == nil {
			a = TokenAttr(C.llama_vocab_get_attr(m.vocab, C.llama_token(t)))
		}
		return nil
	})
	return a
}

// VocabSize returns the number of tokens in the vocabulary.
func (m *Model) VocabSize() int { return m.nVocab }

// BOS, EOS and EOT return the special tokens, or NoToken.
func (m *Model) BOS() Token {
	return m.special(func() C.llama_token { return C.llama_vocab_bos(m.vocab) })
}

// EOS returns the end-of-sequence token, or NoToken.
func (m *Model) EOS() Token {
	return m.special(func() C.llama_token { return C.llama_vocab_eos(m.vocab) })
}

// EOT returns the end-of-turn token, or NoToken.
func (m *Model) EOT() Token {
	return m.special(func() C.llama_token { return C.llama_vocab_eot(m.vocab) })
}

func (m *Model) special(f func() C.llama_token) Token {
	t := NoToken
	m.use("special token", func() error { t = Token(f()); return nil })
	return t
}

// AddBOS reports whether tokenizing with addSpecial adds a BOS token.
func (m *Model) AddBOS() bool {
	var b bool
	m.use("add bos", func() error { b = bool(C.llama_vocab_get_add_bos(m.vocab)); return nil })
	return b
}

// AddEOS reports whether tokenizing with addSpecial adds an EOS token.
func (m *Model) AddEOS() bool {
	var b bool
	m.use("add eos", func() error { b = bool(C.llama_vocab_get_add_eos(m.vocab)); return nil })
	return b
}

// IsEOG reports whether t ends generation (EOS, EOT, <|im_end|>, ...).
func (m *Model) IsEOG(t Token) bool {
	var b bool
	m.use("is eog", func() error {
		b = m.checkTokens([]Token{t}) == nil && bool(C.llama_vocab_is_eog(m.vocab, C.llama_token(t)))
		return nil
	})
	return b
}

// useVocab is use for the calls that need a tokenizer: llama.cpp asserts
// on them when the file has none (tokenizer.ggml.model "no_vocab").
func (m *Model) useVocab(op string, f func() error) error {
	return m.use(op, func() error {
		if m.noVocab {
			return newError(op, m.path, detail(ErrInvalidArgument, "the model has no tokenizer (tokenizer.ggml.model is no_vocab)"))
		}
		return f()
	})
}

// checkTokens rejects ids outside the vocabulary, which llama.cpp would read
// out of bounds.
func (m *Model) checkTokens(tokens []Token) error {
	for i, t := range tokens {
		if t < 0 || int(t) >= m.nVocab {
			return detail(ErrInvalidArgument, "token %d at index %d is outside the vocabulary of %d", t, i, m.nVocab)
		}
	}
	return nil
}
