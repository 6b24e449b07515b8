package session

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/loopagent/loop/agent/model"
)

// StateFile is the name of a session's KV state.
const StateFile = "state.kv"

// stateMagic is the first line of a state file.
const stateMagic = "loop kv state 1\n"

// maxHeader bounds the header line read back.
const maxHeader = 4096

// maxTokens bounds the tokens a state may claim: more than any context.
const maxTokens = 1 << 24

// StateHeader describes a state file's contents.
type StateHeader struct {
	model.StateKey
	Tokens int       `json:"tokens"` // how many tokens the state holds
	Bytes  int64     `json:"bytes"`  // the size of llama.cpp's blob
	SHA256 string    `json:"sha256"` // of the tokens (int32, little-endian) and the blob
	Step   int       `json:"step"`   // the step whose end it holds
	Time   time.Time `json:"time"`
}

// StatePath is the path of the session's KV state.
func (s *Session) StatePath() string { return filepath.Join(s.Dir, StateFile) }

// SaveState writes st as the session's KV state, through a temporary file
// renamed over the last one. A state larger than the store's cap is not
// written: ErrTooLarge.
func (s *Session) SaveState(st model.KVState, step int) error {
	path := s.StatePath()
	tokens := tokenBytes(st.Tokens)
	h := StateHeader{StateKey: st.Key, Tokens: len(st.Tokens), Bytes: int64(len(st.Data)), Step: step, Time: time.Now().UTC()}
	h.SHA256 = hashOf(tokens, st.Data)
	head, err := json.Marshal(h)
	if err != nil {
		return &Error{"save state", path, err}
	}
	size := int64(len(stateMagic)+len(head)+1+len(tokens)) + int64(len(st.Data))
	if c := s.store.cap(); size > c {
		return &Error{"save state", path, fmt.Errorf("%w: %d bytes, the cap is %d", ErrTooLarge, size, c)}
	}
	var suffix [4]byte
	rand.Read(suffix[:])
	tmp := path + ".tmp-" + hex.EncodeToString(suffix[:])
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return &Error{"save state", path, err}
	}
	w := bufio.NewWriterSize(f, 1<<20)
	for _, b := range [][]byte{[]byte(stateMagic), head, {'\n'}, tokens, st.Data} {
		w.Write(b)
	}
	err = errors.Join(w.Flush(), f.Sync(), f.Close())
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return &Error{"save state", path, err}
	}
	return nil
}

// LoadState reads the session's KV state back, for a model whose states
// have key. The file is untrusted: it must be a regular file no larger
// than the cap, its header must parse and give key and sizes that add up
// to the file's, and its hash must match; otherwise the error says
// which (ErrOtherModel, ErrOtherTemplate, ErrCorrupt, ErrTooLarge).
func (s *Session) LoadState(key model.StateKey) (model.KVState, StateHeader, error) {
	path := s.StatePath()
	fail := func(err error) (model.KVState, StateHeader, error) {
		return model.KVState{}, StateHeader{}, &Error{"load state", path, err}
	}
	info, err := os.Lstat(path)
	if err != nil {
		return fail(err)
	}
	if !info.Mode().IsRegular() {
		return fail(fmt.Errorf("%w: not a regular file (%v)", ErrCorrupt, info.Mode().Type()))
	}
	if c := s.store.cap(); info.Size() > c {
		return fail(fmt.Errorf("%w: %d bytes, the cap is %d", ErrTooLarge, info.Size(), c))
	}
	f, err := os.Open(path)
	if err != nil {
		return fail(err)
	}
	defer f.Close()
	if opened, err := f.Stat(); err != nil || !os.SameFile(info, opened) {
		return fail(fmt.Errorf("%w: the file changed while it was opened", ErrCorrupt))
	}
	r := bufio.NewReaderSize(f, 1<<20)
	h, headLen, err := readHeader(r)
	if err != nil {
		return fail(err)
	}
	switch {
	case h.Model != key.Model:
		return fail(fmt.Errorf("%w (model fingerprint %.12s, this one %.12s)", ErrOtherModel, h.Model, key.Model))
	case h.Template != key.Template:
		return fail(ErrOtherTemplate)
	case h.Tokens < 1 || h.Tokens > maxTokens || h.Bytes < 1:
		return fail(fmt.Errorf("%w: the header claims %d tokens and %d bytes", ErrCorrupt, h.Tokens, h.Bytes))
	case int64(headLen)+4*int64(h.Tokens)+h.Bytes != info.Size():
		return fail(fmt.Errorf("%w: the header claims %d tokens and %d bytes, the file has %d bytes", ErrCorrupt, h.Tokens, h.Bytes, info.Size()))
	}
	tokens := make([]byte, 4*h.Tokens)
	data := make([]byte, h.Bytes)
	if _, err := io.ReadFull(r, tokens); err != nil {
		return fail(fmt.Errorf("%w: %w", ErrCorrupt, err))
	}
	if _, err := io.ReadFull(r, data); err != nil {
		return fail(fmt.Errorf("%w: %w", ErrCorrupt, err))
	}
	if got := hashOf(tokens, data); got != h.SHA256 {
		return fail(fmt.Errorf("%w: SHA-256 %.12s, the header says %.12s", ErrCorrupt, got, h.SHA256))
	}
	toks := make([]int32, h.Tokens)
	for i := range toks {
		toks[i] = int32(binary.LittleEndian.Uint32(tokens[4*i:]))
	}
	return model.KVState{Key: h.StateKey, Tokens: toks, Data: data}, h, nil
}

// readHeader reads the magic line and the header, and returns the bytes
// they take.
func readHeader(r *bufio.Reader) (StateHeader, int, error) {
	var h StateHeader
	magic := make([]byte, len(stateMagic))
	if _, err := io.ReadFull(r, magic); err != nil || string(magic) != stateMagic {
		return h, 0, fmt.Errorf("%w: no %q line", ErrCorrupt, stateMagic[:len(stateMagic)-1])
	}
	line, err := r.ReadSlice('\n')
	if err != nil || len(line) > maxHeader {
		return h, 0, fmt.Errorf("%w: no header line", ErrCorrupt)
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&h); err != nil {
		return h, 0, fmt.Errorf("%w: header: %w", ErrCorrupt, err)
	}
	return h, len(magic) + len(line), nil
}

func tokenBytes(toks []int32) []byte {
	b := make([]byte, 4*len(toks))
	for i, t := range toks {
		binary.LittleEndian.PutUint32(b[4*i:], uint32(t))
	}
	return b
}

func hashOf(tokens, data []byte) string {
	h := sha256.New()
	h.Write(tokens)
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}
