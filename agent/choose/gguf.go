package choose

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/chat"
	"github.com/ollama/ollama/fs/ggml"
)

// Error is a candidate file that could not be read.
type Error struct {
	Op   string // "read gguf"
	Path string
	Err  error
}

func (e *Error) Error() string { return "choose: " + e.Op + ": " + e.Path + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// ErrMetadata is wrapped when a file lacks a key the estimate needs.
var ErrMetadata = errors.New("missing metadata")

// ReadGGUF reads a candidate's facts from a GGUF file's metadata and
// tensor table, without loading the weights and without cgo: the layer
// count, KV heads and head sizes ({arch}.block_count,
// {arch}.attention.head_count_kv, .key_length and .value_length, or the
// embedding length over the heads), the trained context
// ({arch}.context_length), the weights' count and size (the tensors'),
// the license (general.license, general.license.name and
// general.license.link), and the chat template's tool support and call
// format (agent/chat).
func ReadGGUF(path string) (Candidate, error) {
	f, err := os.Open(path)
	if err != nil {
		return Candidate{}, &Error{Op: "read gguf", Path: path, Err: err}
	}
	defer f.Close()
	g, err := ggml.Decode(f, 0)
	if err != nil {
		return Candidate{}, &Error{Op: "read gguf", Path: path, Err: err}
	}
	kv := g.KV()
	c := Candidate{
		Name:           filepath.Base(path),
		Layers:         int(kv.BlockCount()),
		KVHeads:        int(kv.HeadCountKVMax()),
		HeadDimK:       int(kv.EmbeddingHeadCountK()),
		HeadDimV:       int(kv.EmbeddingHeadCountV()),
		TrainedContext: int(kv.ContextLength()),
		License:        kv.String("general.license"),
		LicenseName:    kv.String("general.license.name"),
		LicenseLink:    kv.String("general.license.link"),
	}
	for _, t := range g.Tensors().Items() {
		c.Params += float64(t.Elements())
		c.WeightBytes += float64(t.Size())
	}
	if c.Layers == 0 || c.KVHeads == 0 || c.HeadDimK == 0 {
		return c, &Error{Op: "read gguf", Path: path, Err: fmt.Errorf("%w: %s.block_count, head_count_kv or head size", ErrMetadata, kv.Architecture())}
	}
	if src := kv.ChatTemplate(); src != "" {
		if t, err := chat.NewTemplate(src, "", ""); err == nil {
			caps := t.Caps()
			c.Tools = caps.SupportsTools && caps.SupportsToolCalls
			c.Format = callformat.Detect(t).Format
		}
	}
	return c, nil
}
