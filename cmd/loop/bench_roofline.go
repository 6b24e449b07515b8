package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/loopagent/loop/llama"
	"github.com/ollama/ollama/fs/ggml"
)

// roofline relates the measured speeds to the machine's bounds: decoding
// reads every weight once per token, so its bound is the memory bandwidth
// over the weights' bytes; prefill does about 2 × parameters FLOP per
// token, so its bound is the matmul peak.
type roofline struct {
	Threads      int     `json:"threads"`
	BandwidthGBs float64 `json:"copy_bandwidth_gbs"` // bytes read + written per second, in GB
	MatmulGFLOPS float64 `json:"matmul_gflops"`      // 2048×2048 weights by 2048×2048 F32, ggml's CPU kernels
	MatmulType   string  `json:"matmul_weight_type"` // the weights' type: most of the model's layer weights
	WeightBytes  uint64  `json:"bytes_per_token"`    // weights read per decoded token
	Params       uint64  `json:"matmul_params"`      // parameters of the matrix products
	TG, PP       float64 `json:"-"`
	TGBound      float64 `json:"tg_bound_ts"`
	PPBound      float64 `json:"pp_bound_ts"`
}

func measureRoofline(m *llama.Model, threads int, results []benchResult) (*roofline, error) {
	bytesPerToken, flopParams, kind, err := perToken(m.Path())
	if err != nil {
		return nil, err
	}
	bw, err := llama.CopyBandwidth(512<<20, threads, 3)
	if err != nil {
		return nil, err
	}
	gf, err := llama.MatmulGFLOPS(2048, int(kind), threads, 3)
	if err != nil {
		return nil, err
	}
	r := &roofline{Threads: threads, BandwidthGBs: bw, MatmulGFLOPS: gf, MatmulType: ggml.TensorType(kind).String(),
		WeightBytes: bytesPerToken, Params: flopParams}
	r.TGBound = bw * 1e9 / float64(bytesPerToken)
	r.PPBound = gf * 1e9 / (2 * float64(flopParams))
	for _, res := range results {
		switch {
		case strings.HasPrefix(res.Test, "tg"):
			r.TG = res.AvgTS
		case strings.HasPrefix(res.Test, "pp"):
			r.PP = res.AvgTS
		}
	}
	return r, nil
}

// perToken reads the model's tensors: the bytes a decoded token reads
// (every weight but the token embeddings, of which one row is read,
// unless the output reuses them) and the parameters of the matrix
// products a prompt token goes through (all layers; the output layer runs
// for the last token only), and the type that holds most of those
// parameters' bytes.
func perToken(path string) (bytes, params uint64, kind uint32, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, 0, err
	}
	defer f.Close()
	g, err := ggml.Decode(f, 0)
	if err != nil {
		return 0, 0, 0, fmt.Errorf("%s: %w", path, err)
	}
	byKind := map[uint32]uint64{}
	tied := true
	for _, t := range g.Tensors().Items() {
		if t.Name == "output.weight" {
			tied = false
		}
	}
	for _, t := range g.Tensors().Items() {
		if t.Name == "token_embd.weight" && !tied {
			continue
		}
		bytes += t.Size()
		// Prefill computes the output layer for its last token only.
		if len(t.Shape) == 2 && t.Name != "output.weight" && t.Name != "token_embd.weight" {
			params += t.Elements()
			byKind[t.Kind] += t.Size()
		}
	}
	for k, n := range byKind {
		if n > byKind[kind] || (n == byKind[kind] && k < kind) {
			kind = k
		}
	}
	return bytes, params, kind, nil
}

func (r *roofline) print(w io.Writer) {
	fmt.Fprintf(w, "\nroofline, %d threads: copy %.1f GB/s (read + written), %s × F32 matmul 2048³ %.1f GFLOP/s (ggml's kernels)\n",
		r.Threads, r.BandwidthGBs, r.MatmulType, r.MatmulGFLOPS)
	if r.TG > 0 {
		fmt.Fprintf(w, "  tg %.2f t/s = %.0f%% of the bandwidth bound %.2f t/s (%s of weights read per token)\n",
			r.TG, 100*r.TG/r.TGBound, r.TGBound, humanBytes(r.WeightBytes))
	}
	if r.PP > 0 {
		fmt.Fprintf(w, "  pp %.2f t/s = %.0f%% of the matmul bound %.2f t/s (2 × %s layer matrix parameters FLOP per token; attention not counted)\n",
			r.PP, 100*r.PP/r.PPBound, r.PPBound, humanCount(float64(r.Params)))
	}
}
