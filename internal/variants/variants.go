// Package variants carries several builds of loop in one file and starts
// the best one the CPU can run: the portable binary of `make dist`.
//
// llama.cpp's GGML_CPU_ALL_VARIANTS builds carry ggml's CPU backend several
// times, as shared libraries, and load the best one at start. loop links
// ggml statically through cgo, where one binary can hold one build of it, so
// the unit here is the whole loop binary: a small launcher (cmd/launch, pure
// Go) is followed by gzip-compressed builds, one per CPU level, an index
// (JSON) and a footer. At start the launcher reads the CPU's flags, picks
// the first build whose flags the CPU has, and executes it from memory
// (memfd_create), with LOOP_EXE naming the file it came from.
//
// The layout, from the end of the file: the footer's last 8 bytes are
// Magic; before them the index's size and offset (little-endian uint64
// each). A `loop pack` model may follow the whole of it (internal/pack):
// Read looks past that.
package variants

import (
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/loopagent/loop/internal/pack"
)

// Magic ends the launcher's part of the file.
const Magic = "LOOPVARS"

// EnvExe names the file a build was started from: the launcher, which
// holds a packed model after it, and next to which lib/ lies.
const EnvExe = "LOOP_EXE"

const footerSize = 24 // index offset 8, index size 8, magic 8

// Build is one build of loop to append: its name, the CPU flags it needs
// (as /proc/cpuinfo names them) and its file.
type Build struct {
	Name     string
	Requires []string
	Path     string
}

// Variant is one build in a file.
type Variant struct {
	Name     string   `json:"name"`
	Requires []string `json:"requires"`
	Offset   int64    `json:"offset"` // of its gzip stream
	Size     int64    `json:"size"`   // of its gzip stream
	RawSize  int64    `json:"raw_size"`
	Sum      string   `json:"sha256"` // of the build itself
}

// Index lists the builds of a file, best first.
type Index struct {
	Variants []Variant `json:"variants"`
}

// Error is a failure on a file.
type Error struct {
	Op, Path string
	Err      error
}

func (e *Error) Error() string { return e.Op + " " + e.Path + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ErrNone is a file that carries no builds.
var ErrNone = errors.New("carries no loop builds (make dist appends them to the launcher)")

// Write writes the launcher, then the builds (best first), the index and
// the footer to out, executable.
func Write(out, launcher string, builds []Build) error {
	if len(builds) == 0 {
		return &Error{"write", out, errors.New("no builds")}
	}
	if err := writeExecutable(out, func(w *os.File) error { return writeAll(w, launcher, builds) }); err != nil {
		return &Error{"write", out, err}
	}
	return nil
}

// writeExecutable writes out through a temporary file in its directory,
// renamed into place executable once fill succeeded.
func writeExecutable(out string, fill func(*os.File) error) error {
	tmp, err := os.CreateTemp(filepath.Dir(out), ".loop-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	err = fill(tmp)
	if err == nil {
		err = tmp.Chmod(0o755)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), out)
	}
	return err
}

func writeAll(w *os.File, launcher string, builds []Build) error {
	pos, err := copyFile(w, launcher)
	if err != nil {
		return err
	}
	var idx Index
	for _, b := range builds {
		v := Variant{Name: b.Name, Requires: b.Requires, Offset: pos}
		if err := appendBuild(w, b.Path, &v); err != nil {
			return err
		}
		pos += v.Size
		idx.Variants = append(idx.Variants, v)
	}
	js, err := json.Marshal(idx)
	if err != nil {
		return err
	}
	var f [footerSize]byte
	binary.LittleEndian.PutUint64(f[0:], uint64(pos))
	binary.LittleEndian.PutUint64(f[8:], uint64(len(js)))
	copy(f[16:], Magic)
	_, err = w.Write(append(js, f[:]...))
	return err
}

func copyFile(w io.Writer, path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	return io.Copy(w, f)
}

// countWriter counts what goes through it.
type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// appendBuild writes the build at path, compressed, and fills in v.
func appendBuild(w io.Writer, path string, v *Variant) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	cw := &countWriter{w: w}
	z, err := gzip.NewWriterLevel(cw, gzip.BestCompression)
	if err != nil {
		return err
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(z, h), f)
	if err != nil {
		return err
	}
	if err := z.Close(); err != nil {
		return err
	}
	v.Size, v.RawSize, v.Sum = cw.n, n, hex.EncodeToString(h.Sum(nil))
	return nil
}

// Read returns the index of the file at path. A file without builds is
// ErrNone.
func Read(path string) (*Index, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, &Error{"read", path, err}
	}
	defer f.Close()
	idx, err := readIndex(f, path)
	if err != nil {
		return nil, &Error{"read", path, err}
	}
	return idx, nil
}

func readIndex(f *os.File, path string) (*Index, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	end := st.Size()
	if info, ok, err := pack.Find(path); err != nil {
		return nil, err
	} else if ok {
		if end, err = skipPadding(f, info.Offset); err != nil {
			return nil, err
		}
	}
	if end < footerSize {
		return nil, ErrNone
	}
	var b [footerSize]byte
	if _, err := f.ReadAt(b[:], end-footerSize); err != nil {
		return nil, err
	}
	if string(b[16:]) != Magic {
		return nil, ErrNone
	}
	off, size := int64(binary.LittleEndian.Uint64(b[0:])), int64(binary.LittleEndian.Uint64(b[8:]))
	if off < 0 || size <= 0 || off+size != end-footerSize {
		return nil, fmt.Errorf("footer: index at %d, %d bytes, before %d", off, size, end-footerSize)
	}
	js := make([]byte, size)
	if _, err := f.ReadAt(js, off); err != nil {
		return nil, err
	}
	var idx Index
	if err := json.Unmarshal(js, &idx); err != nil {
		return nil, fmt.Errorf("index: %w", err)
	}
	for _, v := range idx.Variants {
		if v.Offset < 0 || v.Size <= 0 || v.Offset+v.Size > off {
			return nil, fmt.Errorf("index: build %s at %d, %d bytes, past the index at %d", v.Name, v.Offset, v.Size, off)
		}
	}
	return &idx, nil
}

// skipPadding returns where the data before a packed model ends: pack
// pads it with zeros to a page, and the footer's magic is not zero.
func skipPadding(f *os.File, modelAt int64) (int64, error) {
	n := min(modelAt, 4096)
	buf := make([]byte, n)
	if _, err := f.ReadAt(buf, modelAt-n); err != nil {
		return 0, err
	}
	return modelAt - n + int64(len(bytes.TrimRight(buf, "\x00"))), nil
}

// Pick returns the first variant whose flags the CPU has. When none fits,
// the error names what the last (most portable) one lacks.
func Pick(idx *Index, flags map[string]bool) (*Variant, error) {
	var missing []string
	for i := range idx.Variants {
		v := &idx.Variants[i]
		missing = missing[:0]
		for _, r := range v.Requires {
			if !flags[r] {
				missing = append(missing, r)
			}
		}
		if len(missing) == 0 {
			return v, nil
		}
	}
	if len(idx.Variants) == 0 {
		return nil, ErrNone
	}
	last := idx.Variants[len(idx.Variants)-1]
	return nil, fmt.Errorf("this CPU cannot run any build in this file: the most portable, %s, needs %s; build loop from source with make", last.Name, strings.Join(missing, ", "))
}

// Extract writes variant v of the file at path to w and checks its hash.
func Extract(w io.Writer, path string, v *Variant) error {
	f, err := os.Open(path)
	if err != nil {
		return &Error{"extract", path, err}
	}
	defer f.Close()
	z, err := gzip.NewReader(io.NewSectionReader(f, v.Offset, v.Size))
	if err != nil {
		return &Error{"extract " + v.Name + " from", path, err}
	}
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(w, h), z)
	if err != nil {
		return &Error{"extract " + v.Name + " from", path, err}
	}
	if sum := hex.EncodeToString(h.Sum(nil)); n != v.RawSize || sum != v.Sum {
		return &Error{"extract " + v.Name + " from", path, fmt.Errorf("got %d bytes with sha256 %.16s, the index says %d and %.16s", n, sum, v.RawSize, v.Sum)}
	}
	return nil
}
