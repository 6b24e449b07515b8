// Command growmodel deepens a trained F32 model by appending blocks that
// compute nothing yet, so that training can go on from what the model
// learnt with more layers to learn with:
//
//	go run ./scripts/growmodel -m small.gguf -o deeper.gguf --layers 4
//
// Each new block has the tensors of block 0, with its query, key, value,
// gate and up matrices drawn from N(0, --std) (seeded), its norms at 1 and
// its biases at 0, and its two output matrices (attn_output, ffn_down) at 0.
// A pre-norm block adds its attention's and its feed-forward's outputs to
// the residual stream through those two matrices, so at zero the block
// passes the stream on unchanged: the grown model's logits are the small
// model's. Their gradients are not zero (the attention's and the
// feed-forward's outputs are not), so the first optimizer step starts to
// use the block.
//
// Only F32 tensors are grown: loop train trains F32 models.
package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"strings"

	"github.com/ollama/ollama/fs/ggml"
	"github.com/spf13/pflag"
)

type options struct {
	in, out string
	layers  int
	seed    uint64
	std     float64
}

func main() {
	var o options
	fs := pflag.NewFlagSet("growmodel", pflag.ContinueOnError)
	fs.StringVarP(&o.in, "model", "m", "", "the trained F32 GGUF model to grow")
	fs.StringVarP(&o.out, "output", "o", "", "the grown model's GGUF file")
	fs.IntVar(&o.layers, "layers", 0, "blocks of the grown model (more than the model has)")
	fs.Uint64Var(&o.seed, "seed", 1, "seed of the new blocks' random matrices")
	fs.Float64Var(&o.std, "std", 0.02, "standard deviation of the new blocks' random matrices")
	if err := fs.Parse(os.Args[1:]); err != nil {
		os.Exit(2)
	}
	if err := grow(o); err != nil {
		fmt.Fprintln(os.Stderr, "growmodel:", err)
		os.Exit(1)
	}
}

func grow(o options) error {
	switch {
	case o.in == "" || o.out == "":
		return errors.New("-m and -o are required")
	case o.std < 0 || math.IsNaN(o.std):
		return fmt.Errorf("--std %v: want 0 or more", o.std)
	}
	f, err := os.Open(o.in)
	if err != nil {
		return err
	}
	defer f.Close()
	g, err := ggml.Decode(f, -1)
	if err != nil {
		return fmt.Errorf("%s: %w", o.in, err)
	}
	kv := g.KV()
	arch := kv.Architecture()
	blocks := int(kv.BlockCount())
	if arch == "" || blocks == 0 {
		return fmt.Errorf("%s: no general.architecture or %s.block_count", o.in, arch)
	}
	if o.layers <= blocks {
		return fmt.Errorf("--layers %d: %s has %d blocks already; want more", o.layers, o.in, blocks)
	}
	data := g.Tensors().Offset
	var out, first []*ggml.Tensor
	for _, t := range g.Tensors().Items() {
		if t.Kind != 0 {
			return fmt.Errorf("%s: tensor %s is not F32 (type %d); growmodel grows F32 models", o.in, t.Name, t.Kind)
		}
		out = append(out, &ggml.Tensor{Name: t.Name, Kind: t.Kind, Shape: t.Shape,
			WriterTo: section{io.NewSectionReader(f, int64(data+t.Offset), int64(t.Size()))}})
		if strings.HasPrefix(t.Name, "blk.0.") {
			first = append(first, t)
		}
	}
	if len(first) == 0 {
		return fmt.Errorf("%s: no tensors of block 0", o.in)
	}
	added, err := newBlocks(first, blocks, o)
	if err != nil {
		return err
	}
	grown := maps.Clone(kv)
	grown[arch+".block_count"] = uint32(o.layers)
	if err := write(o.out, grown, append(out, added...)); err != nil {
		return err
	}
	fmt.Printf("wrote %s: %d blocks, %d of them new (seed %d, std %g)\n", o.out, o.layers, o.layers-blocks, o.seed, o.std)
	return nil
}

// newBlocks returns the tensors of blocks from to o.layers-1, shaped and
// named as first, the tensors of block 0.
func newBlocks(first []*ggml.Tensor, from int, o options) ([]*ggml.Tensor, error) {
	var out []*ggml.Tensor
	for b := from; b < o.layers; b++ {
		// One stream per block, so that its matrices differ from each
		// other and from other blocks'.
		r := rand.New(rand.NewPCG(o.seed, uint64(b)))
		for _, t := range first {
			name := fmt.Sprintf("blk.%d.%s", b, strings.TrimPrefix(t.Name, "blk.0."))
			v, err := newValues(t, o.std, r)
			if err != nil {
				return nil, err
			}
			out = append(out, &ggml.Tensor{Name: name, Kind: 0, Shape: t.Shape, WriterTo: f32s(v)})
		}
	}
	return out, nil
}

// write writes the model to path through a temporary file, so that a
// failed write leaves no model behind.
func write(path string, kv ggml.KV, ts []*ggml.Tensor) error {
	tmp := path + ".tmp"
	w, err := os.Create(tmp)
	if err != nil {
		return err
	}
	err = ggml.WriteGGUF(w, kv, ts)
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("%s: %w", path, err)
	}
	return os.Rename(tmp, path)
}

// newValues returns the values of a new block's tensor shaped as t, a
// tensor of block 0: see the package doc.
func newValues(t *ggml.Tensor, std float64, r *rand.Rand) ([]float32, error) {
	n := 1
	for _, d := range t.Shape {
		n *= int(d)
	}
	v := make([]float32, n)
	suffix := strings.TrimPrefix(t.Name, "blk.0.")
	switch {
	case strings.HasSuffix(suffix, "_norm.weight"):
		for i := range v {
			v[i] = 1
		}
	case strings.HasSuffix(suffix, ".bias"), suffix == "attn_output.weight", suffix == "ffn_down.weight":
	case suffix == "attn_q.weight", suffix == "attn_k.weight", suffix == "attn_v.weight",
		suffix == "ffn_gate.weight", suffix == "ffn_up.weight":
		for i := range v {
			v[i] = float32(r.NormFloat64() * std)
		}
	default:
		return nil, fmt.Errorf("tensor %s: growmodel does not know how to start it", t.Name)
	}
	return v, nil
}

// section writes a tensor's bytes as the input file holds them.
type section struct{ r *io.SectionReader }

func (s section) WriteTo(w io.Writer) (int64, error) { return io.Copy(w, s.r) }

type f32s []float32

func (v f32s) WriteTo(w io.Writer) (int64, error) {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	n, err := w.Write(b)
	return int64(n), err
}
