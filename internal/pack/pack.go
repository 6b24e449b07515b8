// Package pack puts a GGUF model inside an executable, the llamafile idea
// for loop: `loop pack -m model.gguf -o mytool` writes a copy of the loop
// binary with the model appended, page-aligned, and a footer that says
// where it is. At start the packed binary finds the model in itself.
//
// llama.cpp loads a model from a path and reads it from its first byte;
// the pinned version has no way to start at an offset. So the model is
// extracted once into a cache directory, under its SHA-256, and mapped
// from there on every later start (no copy, no download).
package pack

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// Magic ends every packed executable.
const Magic = "LOOPPACK"

const (
	version    = 1
	footerSize = 64 // magic 8, version 4, reserved 4, offset 8, size 8, sha256 32
	align      = 4096
	ggufMagic  = "GGUF"
)

// Info locates a packed model.
type Info struct {
	Offset, Size int64
	Sum          [32]byte // SHA-256 of the model's bytes
}

// Name is the cache file name of the model: its hash.
func (i Info) Name() string { return hex.EncodeToString(i.Sum[:]) + ".gguf" }

// Error is a failure of a pack operation on a file.
type Error struct {
	Op, Path string
	Err      error
}

func (e *Error) Error() string { return e.Op + " " + e.Path + ": " + e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// ErrNotGGUF is a model file without the GGUF magic.
var ErrNotGGUF = errors.New("not a GGUF file")

// Write writes exe, zero padding to a page boundary, the model and the
// footer to out.
func Write(out, exe, model string) error {
	src, err := os.Open(exe)
	if err != nil {
		return &Error{"pack", exe, err}
	}
	defer src.Close()
	m, err := os.Open(model)
	if err != nil {
		return &Error{"pack", model, err}
	}
	defer m.Close()
	var head [4]byte
	if _, err := io.ReadFull(m, head[:]); err != nil || string(head[:]) != ggufMagic {
		return &Error{"pack", model, fmt.Errorf("%w (magic %q)", ErrNotGGUF, head[:])}
	}
	if _, err := m.Seek(0, io.SeekStart); err != nil {
		return &Error{"pack", model, err}
	}
	tmp, err := os.CreateTemp(filepath.Dir(out), ".pack-*")
	if err != nil {
		return &Error{"pack", out, err}
	}
	defer os.Remove(tmp.Name())
	if err := writeAll(tmp, src, m); err != nil {
		tmp.Close()
		return &Error{"pack", out, err}
	}
	if err := tmp.Chmod(0o755); err != nil {
		tmp.Close()
		return &Error{"pack", out, err}
	}
	if err := tmp.Close(); err != nil {
		return &Error{"pack", out, err}
	}
	if err := os.Rename(tmp.Name(), out); err != nil {
		return &Error{"pack", out, err}
	}
	return nil
}

func writeAll(w *os.File, exe, model io.Reader) error {
	n, err := io.Copy(w, exe)
	if err != nil {
		return err
	}
	pad := (align - n%align) % align
	if _, err := w.Write(make([]byte, pad)); err != nil {
		return err
	}
	h := sha256.New()
	size, err := io.Copy(io.MultiWriter(w, h), model)
	if err != nil {
		return err
	}
	var f [footerSize]byte
	copy(f[:8], Magic)
	binary.LittleEndian.PutUint32(f[8:], version)
	binary.LittleEndian.PutUint64(f[16:], uint64(n+pad))
	binary.LittleEndian.PutUint64(f[24:], uint64(size))
	copy(f[32:], h.Sum(nil))
	_, err = w.Write(f[:])
	return err
}

// Find reads the footer of the file at path. ok is false for a file that
// carries no model.
func Find(path string) (info Info, ok bool, err error) {
	f, err := os.Open(path)
	if err != nil {
		return info, false, &Error{"find packed model", path, err}
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return info, false, &Error{"find packed model", path, err}
	}
	if st.Size() < footerSize {
		return info, false, nil
	}
	var b [footerSize]byte
	if _, err := f.ReadAt(b[:], st.Size()-footerSize); err != nil {
		return info, false, &Error{"find packed model", path, err}
	}
	if string(b[:8]) != Magic {
		return info, false, nil
	}
	if v := binary.LittleEndian.Uint32(b[8:]); v != version {
		return info, false, &Error{"find packed model", path, fmt.Errorf("pack version %d, this loop reads %d", v, version)}
	}
	info.Offset = int64(binary.LittleEndian.Uint64(b[16:]))
	info.Size = int64(binary.LittleEndian.Uint64(b[24:]))
	copy(info.Sum[:], b[32:])
	if info.Offset < 0 || info.Size <= 0 || info.Offset+info.Size != st.Size()-footerSize {
		return info, false, &Error{"find packed model", path, fmt.Errorf("footer: model at %d, %d bytes, in a file of %d", info.Offset, info.Size, st.Size())}
	}
	return info, true, nil
}

// Extract returns the path of the packed model in dir, copying it there
// first unless a file of its name and size is there already. The copy is
// checked against the footer's hash and renamed into place only then.
func Extract(path string, info Info, dir string) (string, error) {
	dst := filepath.Join(dir, info.Name())
	if st, err := os.Stat(dst); err == nil && st.Size() == info.Size {
		return dst, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", &Error{"extract packed model", dir, err}
	}
	src, err := os.Open(path)
	if err != nil {
		return "", &Error{"extract packed model", path, err}
	}
	defer src.Close()
	tmp, err := os.CreateTemp(dir, ".extract-*")
	if err != nil {
		return "", &Error{"extract packed model", dir, err}
	}
	defer os.Remove(tmp.Name())
	h := sha256.New()
	_, err = io.Copy(io.MultiWriter(tmp, h), io.NewSectionReader(src, info.Offset, info.Size))
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", &Error{"extract packed model", path, err}
	}
	if [32]byte(h.Sum(nil)) != info.Sum {
		return "", &Error{"extract packed model", path, errors.New("the model's bytes do not match the footer's hash")}
	}
	if err := os.Rename(tmp.Name(), dst); err != nil {
		return "", &Error{"extract packed model", dst, err}
	}
	return dst, nil
}

// CacheDir is where packed models are extracted: loop/packed in the
// user's cache directory.
func CacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(dir, "loop", "packed"), nil
}
