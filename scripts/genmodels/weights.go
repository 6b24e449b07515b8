package main

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"math/rand/v2"

	"github.com/ollama/ollama/fs/ggml"
	"github.com/x448/float16"
)

// ggml tensor types and llama file types used by the generator.
const (
	ggmlF32  = 0
	ggmlF16  = 1
	ggmlQ8_0 = 8

	q8Block = 32 // elements per Q8_0 block
)

// tensorType maps a -type value to the ggml type of 2-D weights and the
// general.file_type value (llama_ftype).
func tensorType(name string) (ggmlType, fileType uint32, err error) {
	switch name {
	case "f32":
		return ggmlF32, 0, nil
	case "f16":
		return ggmlF16, 1, nil
	case "q8_0":
		return ggmlQ8_0, 7, nil
	}
	return 0, 0, fmt.Errorf("unknown tensor type %q (want f32, f16 or q8_0)", name)
}

// randomTensor writes seeded N(mean, std) values, row by row, so that even the
// bench model's embedding matrix never has to sit in memory as float32.
type randomTensor struct {
	name      string
	kind      uint32
	cols      int // ne[0], the contiguous dimension
	rows      int // ne[1] (1 for vectors)
	mean, std float64
	seed      uint64
}

func (t *randomTensor) tensor() *ggml.Tensor {
	shape := []uint64{uint64(t.cols)}
	if t.rows > 1 {
		shape = append(shape, uint64(t.rows))
	}
	return &ggml.Tensor{Name: t.name, Kind: t.kind, Shape: shape, WriterTo: t}
}

// WriteTo implements io.WriterTo for ggml.WriteGGUF.
func (t *randomTensor) WriteTo(w io.Writer) (int64, error) {
	h := fnv.New64a()
	h.Write([]byte(t.name))
	rng := rand.New(rand.NewPCG(t.seed, h.Sum64()))
	bw := bufio.NewWriterSize(w, 1<<20)
	row := make([]float32, t.cols)
	var buf []byte
	var n int64
	for range t.rows {
		for i := range row {
			row[i] = float32(t.mean + t.std*rng.NormFloat64())
		}
		buf = encodeRow(buf[:0], t.kind, row)
		m, err := bw.Write(buf)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	return n, bw.Flush()
}

func encodeRow(dst []byte, kind uint32, row []float32) []byte {
	switch kind {
	case ggmlF32:
		for _, x := range row {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(x))
		}
	case ggmlF16:
		for _, x := range row {
			dst = binary.LittleEndian.AppendUint16(dst, float16.Fromfloat32(x).Bits())
		}
	case ggmlQ8_0:
		for b := 0; b < len(row); b += q8Block {
			dst = appendQ8Block(dst, row[b:b+q8Block])
		}
	default:
		panic(fmt.Sprintf("encodeRow: unsupported ggml type %d", kind))
	}
	return dst
}

// appendQ8Block quantizes 32 values like ggml's quantize_row_q8_0_ref: an f16
// scale d = max|x| / 127 followed by 32 int8 values round(x / d).
func appendQ8Block(dst []byte, x []float32) []byte {
	var amax float32
	for _, v := range x {
		amax = max(amax, float32(math.Abs(float64(v))))
	}
	d := amax / 127
	var id float32
	if d != 0 {
		id = 1 / d
	}
	dst = binary.LittleEndian.AppendUint16(dst, float16.Fromfloat32(d).Bits())
	for _, v := range x {
		dst = append(dst, byte(int8(math.Round(float64(v*id)))))
	}
	return dst
}
