package testmodels

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// GGUF value types (gguf.h).
const (
	ggufUint8 = iota
	ggufInt8
	ggufUint16
	ggufInt16
	ggufUint32
	ggufInt32
	ggufFloat32
	ggufBool
	ggufString
	ggufArray
	ggufUint64
	ggufInt64
	ggufFloat64
)

// WithMetadata copies the generated model name into a temporary file
// with more metadata: string, float32 and int32 values under new keys (a
// key the model has already is an error). The tensors and their data are
// copied unchanged. It is how a test gets a model whose GGUF carries, say,
// general.sampling.temp.
func WithMetadata(tb testing.TB, name string, kv map[string]any) string {
	tb.Helper()
	out := filepath.Join(tb.TempDir(), name)
	if err := withMetadata(Path(tb, name), out, kv); err != nil {
		tb.Fatalf("testmodels: adding metadata to %s: %v", name, err)
	}
	return out
}

func withMetadata(src, dst string, kv map[string]any) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	r := &countReader{r: bufio.NewReaderSize(in, 1<<20)}
	var head struct {
		Magic   [4]byte
		Version uint32
		Tensors uint64
		KVs     uint64
	}
	if err := binary.Read(r, binary.LittleEndian, &head); err != nil {
		return err
	}
	if string(head.Magic[:]) != "GGUF" || head.Version < 2 {
		return fmt.Errorf("%s: not a GGUF v2+ file", src)
	}
	f, err := os.Create(dst)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriterSize(f, 1<<20)
	out := head
	out.KVs += uint64(len(kv))
	if err := binary.Write(w, binary.LittleEndian, out); err != nil {
		return err
	}
	alignment, err := copyKV(w, r, head.KVs, kv, src)
	if err != nil {
		return err
	}
	if err := writeKV(w, kv); err != nil {
		return err
	}
	// The tensor infos are copied as they are: their offsets count from
	// the start of the data, which moves with the metadata.
	for range head.Tensors {
		name, err := readString(r)
		if err != nil {
			return err
		}
		var dims uint32
		if err := binary.Read(r, binary.LittleEndian, &dims); err != nil {
			return err
		}
		rest := make([]byte, 8*uint64(dims)+4+8)
		if _, err := io.ReadFull(r, rest); err != nil {
			return err
		}
		writeString(w, name)
		binary.Write(w, binary.LittleEndian, dims)
		w.Write(rest)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	pos, err := f.Seek(0, io.SeekCurrent)
	if err != nil {
		return err
	}
	written := uint64(pos)
	if _, err := r.Discard(pad(r.n, alignment)); err != nil {
		return err
	}
	w.Write(make([]byte, pad(written, alignment)))
	if _, err := io.Copy(w, r); err != nil {
		return err
	}
	return w.Flush()
}

// copyKV copies the n key-value pairs of the source, refusing a key of
// kv, and returns the file's alignment.
func copyKV(w io.Writer, r *countReader, n uint64, kv map[string]any, src string) (uint64, error) {
	alignment := uint64(32)
	for range n {
		key, err := readString(r)
		if err != nil {
			return 0, err
		}
		if _, dup := kv[key]; dup {
			return 0, fmt.Errorf("%s has %s already", src, key)
		}
		var typ uint32
		if err := binary.Read(r, binary.LittleEndian, &typ); err != nil {
			return 0, err
		}
		writeString(w, key)
		binary.Write(w, binary.LittleEndian, typ)
		if key == "general.alignment" && typ == ggufUint32 {
			var a uint32
			if err := binary.Read(r, binary.LittleEndian, &a); err != nil {
				return 0, err
			}
			binary.Write(w, binary.LittleEndian, a)
			alignment = uint64(a)
			continue
		}
		if err := copyValue(w, r, typ); err != nil {
			return 0, fmt.Errorf("key %s: %w", key, err)
		}
	}
	return alignment, nil
}

// writeKV writes the new metadata.
func writeKV(w io.Writer, kv map[string]any) error {
	for key, v := range kv {
		writeString(w, key)
		switch v := v.(type) {
		case string:
			binary.Write(w, binary.LittleEndian, uint32(ggufString))
			writeString(w, v)
		case float32:
			binary.Write(w, binary.LittleEndian, uint32(ggufFloat32))
			binary.Write(w, binary.LittleEndian, math.Float32bits(v))
		case int32:
			binary.Write(w, binary.LittleEndian, uint32(ggufInt32))
			binary.Write(w, binary.LittleEndian, v)
		default:
			return fmt.Errorf("key %s: a %T value", key, v)
		}
	}
	return nil
}

// pad is how many bytes bring n to a multiple of align.
func pad(n, align uint64) uint64 { return (align - n%align) % align }

// copyValue copies one value of type typ.
func copyValue(w io.Writer, r *countReader, typ uint32) error {
	sizes := map[uint32]int{ggufUint8: 1, ggufInt8: 1, ggufBool: 1, ggufUint16: 2, ggufInt16: 2,
		ggufUint32: 4, ggufInt32: 4, ggufFloat32: 4, ggufUint64: 8, ggufInt64: 8, ggufFloat64: 8}
	switch typ {
	case ggufString:
		s, err := readString(r)
		if err != nil {
			return err
		}
		writeString(w, s)
		return nil
	case ggufArray:
		var head struct {
			Type uint32
			N    uint64
		}
		if err := binary.Read(r, binary.LittleEndian, &head); err != nil {
			return err
		}
		binary.Write(w, binary.LittleEndian, head)
		for range head.N {
			if err := copyValue(w, r, head.Type); err != nil {
				return err
			}
		}
		return nil
	}
	n, ok := sizes[typ]
	if !ok {
		return fmt.Errorf("unknown GGUF type %d", typ)
	}
	buf := make([]byte, n)
	if _, err := io.ReadFull(r, buf); err != nil {
		return err
	}
	_, err := w.Write(buf)
	return err
}

func readString(r io.Reader) (string, error) {
	var n uint64
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return "", err
	}
	if n > 1<<24 {
		return "", fmt.Errorf("a string of %d bytes", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(r, b)
	return string(b), err
}

func writeString(w io.Writer, s string) {
	binary.Write(w, binary.LittleEndian, uint64(len(s)))
	io.WriteString(w, s)
}

// countReader counts the bytes read.
type countReader struct {
	r *bufio.Reader
	n uint64
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += uint64(n)
	return n, err
}

func (c *countReader) Discard(n uint64) (int, error) {
	d, err := c.r.Discard(int(n))
	c.n += uint64(d)
	return d, err
}
