package local

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/loopagent/loop/agent/model"
)

var _ model.StateKeeper = (*Client)(nil)

// StateKey is the key of the client's KV states: the model file's
// fingerprint, and a hash of the templates and the call format.
func (c *Client) StateKey() (model.StateKey, error) {
	fp, err := fingerprint(c.model.Path())
	if err != nil {
		return model.StateKey{}, err
	}
	h := sha256.New()
	for _, s := range []string{c.tmpl.Source(), c.toolTmpl.Source(), c.detection.Format} {
		binary.Write(h, binary.LittleEndian, uint64(len(s)))
		io.WriteString(h, s)
	}
	return model.StateKey{Model: fp, Template: hex.EncodeToString(h.Sum(nil))}, nil
}

// SaveState returns the state of the client's sequence: the tokens of the
// last prompt and reply, and their KV cache.
func (c *Client) SaveState() (model.KVState, error) {
	key, err := c.StateKey()
	if err != nil {
		return model.KVState{}, err
	}
	if c.inSub {
		return model.KVState{}, errors.New("local: save state: a subagent holds the cache")
	}
	data, toks, err := c.slot.SaveState()
	if err != nil {
		return model.KVState{}, fmt.Errorf("local: save state: %w", err)
	}
	return model.KVState{Key: key, Tokens: toks, Data: data}, nil
}

// RestoreState puts a saved state in the client's sequence, so that the
// next request reuses the prefix it shares with the state's tokens. A
// state of another model or template is refused before the engine sees
// it; one the engine refuses leaves the sequence empty.
func (c *Client) RestoreState(st model.KVState) error {
	key, err := c.StateKey()
	if err != nil {
		return err
	}
	switch {
	case st.Key.Model != key.Model:
		return fmt.Errorf("local: restore state: made by another model file (fingerprint %.12s, this one %.12s)", st.Key.Model, key.Model)
	case st.Key.Template != key.Template:
		return fmt.Errorf("local: restore state: made with another chat template or call format")
	case c.inSub:
		return errors.New("local: restore state: a subagent holds the cache")
	}
	if err := c.slot.RestoreState(st.Data, st.Tokens); err != nil {
		return fmt.Errorf("local: restore state: %w", err)
	}
	return nil
}

// fingerprints caches fingerprint by path, size and modification time.
var fingerprints sync.Map

// fingerprint identifies a model file without reading all of it: a
// SHA-256 of its size, its first 4 MiB (the GGUF header, metadata and
// tensor list) and 64 blocks of 64 KiB spread over the rest, the last one
// ending the file. Another model, another quantization or another
// finetune of the same base differs in the header or in the sampled
// weights; reading the whole file would take seconds per gigabyte.
func fingerprint(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("local: model fingerprint: %w", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("local: model fingerprint: %w", err)
	}
	type id struct {
		path string
		size int64
		mod  int64
	}
	k := id{path, info.Size(), info.ModTime().UnixNano()}
	if v, ok := fingerprints.Load(k); ok {
		return v.(string), nil
	}
	const head, block, blocks = 4 << 20, 64 << 10, 64
	h := sha256.New()
	size := info.Size()
	binary.Write(h, binary.LittleEndian, size)
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, min(size, head))); err != nil {
		return "", fmt.Errorf("local: model fingerprint: %s: %w", path, err)
	}
	if rest := size - head; rest > 0 {
		for i := int64(1); i <= blocks; i++ {
			end := head + rest*i/blocks
			start := max(end-block, head)
			if _, err := io.Copy(h, io.NewSectionReader(f, start, end-start)); err != nil {
				return "", fmt.Errorf("local: model fingerprint: %s: %w", path, err)
			}
		}
	}
	fp := hex.EncodeToString(h.Sum(nil))
	fingerprints.Store(k, fp)
	return fp, nil
}
