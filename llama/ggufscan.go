package llama

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// scanGGUFHeader walks the metadata and tensor infos of a GGUF file and
// checks every count and length against the file's size. llama.cpp's reader
// resizes a string or array to whatever length the file claims before
// reading it, so a corrupt length of 21 GB makes it allocate and zero 21 GB
// (found by FuzzLoadModel); this check refuses such a file first.
func scanGGUFHeader(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	s := &ggufScanner{r: bufio.NewReader(f), size: st.Size()}
	return s.scan()
}

type ggufScanner struct {
	r    *bufio.Reader
	pos  int64
	size int64
	err  error
}

func (s *ggufScanner) fail(format string, args ...any) error {
	if s.err == nil {
		s.err = detail(ErrNotGGUF, "header at byte %d: %s", s.pos, fmt.Sprintf(format, args...))
	}
	return s.err
}

func (s *ggufScanner) u32() uint32 {
	var b [4]byte
	s.read(b[:])
	return binary.LittleEndian.Uint32(b[:])
}

func (s *ggufScanner) u64() uint64 {
	var b [8]byte
	s.read(b[:])
	return binary.LittleEndian.Uint64(b[:])
}

func (s *ggufScanner) read(b []byte) {
	if s.err != nil {
		return
	}
	if _, err := io.ReadFull(s.r, b); err != nil {
		s.fail("the file ends inside the header")
		return
	}
	s.pos += int64(len(b))
}

// skip passes n bytes, which must lie inside the file.
func (s *ggufScanner) skip(n uint64, what string) {
	if s.err != nil {
		return
	}
	if n > uint64(s.size-s.pos) {
		s.fail("%s of %d bytes runs past the end of the file (%d bytes)", what, n, s.size)
		return
	}
	if _, err := s.r.Discard(int(n)); err != nil {
		s.fail("the file ends inside the header")
		return
	}
	s.pos += int64(n)
}

func (s *ggufScanner) str(what string) { s.skip(s.u64(), what) }

// ggufScalarSize is the size of a scalar GGUF type, 0 for string, array or
// an unknown type.
func ggufScalarSize(t uint32) uint64 {
	switch t {
	case 0, 1, 7: // u8, i8, bool
		return 1
	case 2, 3: // u16, i16
		return 2
	case 4, 5, 6: // u32, i32, f32
		return 4
	case 10, 11, 12: // u64, i64, f64
		return 8
	}
	return 0
}

func (s *ggufScanner) scan() error {
	var magic [4]byte
	s.read(magic[:])
	s.u32() // version: llama.cpp reports a wrong one itself
	nTensors, nKV := s.u64(), s.u64()
	if s.err == nil && (nKV > uint64(s.size/12) || nTensors > uint64(s.size/32)) {
		return s.fail("%d keys and %d tensors cannot fit in %d bytes", nKV, nTensors, s.size)
	}
	for i := uint64(0); i < nKV && s.err == nil; i++ {
		n := s.u64()
		if n == 0 && s.err == nil {
			return s.fail("key %d is empty", i) // llama.cpp asserts on it
		}
		s.skip(n, fmt.Sprintf("key %d", i))
		s.value(s.u32(), fmt.Sprintf("value of key %d", i))
	}
	for i := uint64(0); i < nTensors && s.err == nil; i++ {
		s.str(fmt.Sprintf("name of tensor %d", i))
		if n := s.u32(); n > 4 {
			return s.fail("tensor %d has %d dimensions", i, n)
		} else {
			s.skip(uint64(n)*8, "dimensions")
		}
		s.skip(4+8, "type and offset")
	}
	return s.err
}

func (s *ggufScanner) value(t uint32, what string) {
	switch {
	case t == 8: // string
		s.str(what)
	case t == 9: // array
		et, n := s.u32(), s.u64()
		if et == 8 {
			if n > uint64(s.size-s.pos)/8 {
				s.fail("%s: %d strings cannot fit in the file", what, n)
				return
			}
			for j := uint64(0); j < n && s.err == nil; j++ {
				s.str(what)
			}
			return
		}
		size := ggufScalarSize(et)
		if size == 0 {
			s.fail("%s: arrays of type %d are not supported", what, et)
			return
		}
		if n > uint64(s.size-s.pos)/size {
			s.fail("%s: %d elements cannot fit in the file", what, n)
			return
		}
		s.skip(n*size, what)
	default:
		size := ggufScalarSize(t)
		if size == 0 {
			s.fail("%s has unknown type %d", what, t)
			return
		}
		s.skip(size, what)
	}
}
