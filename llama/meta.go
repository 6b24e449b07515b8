package llama

/*
#include <stdlib.h>
#include "bridge.h"
*/
import "C"

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"unsafe"
)

// MetaValue is one GGUF metadata value: a string, bool, int64, uint64 or
// float64, or for an array an []any of those. Arrays longer than
// maxMetaArray keep only their first elements; Len tells the full length.
type MetaValue struct {
	Type  string // GGUF type name: "u32", "str", "arr", ...
	Value any
	Len   int    // array length (0 for scalars)
	Elem  string // array element type
}

// MetaKV is a GGUF key and its value, in file order.
type MetaKV struct {
	Key   string
	Value MetaValue
}

// maxMetaArray bounds how many elements of an array value are kept in
// memory: tokenizer.ggml.tokens alone has 150,000 strings.
const maxMetaArray = 16

// String formats a value the way `loop info` prints it.
func (v MetaValue) String() string {
	if v.Type != "arr" {
		switch x := v.Value.(type) {
		case string:
			return fmt.Sprintf("%q", x)
		case float64:
			if v.Type == "f32" {
				return strconv.FormatFloat(x, 'g', -1, 32)
			}
		}
		return fmt.Sprint(v.Value)
	}
	items := v.Value.([]any)
	parts := make([]string, len(items))
	for i, it := range items {
		parts[i] = MetaValue{Type: v.Elem, Value: it}.String()
	}
	more := ""
	if v.Len > len(items) {
		more = fmt.Sprintf(", ... (%d more)", v.Len-len(items))
	}
	return fmt.Sprintf("[%s%s] (%d × %s)", strings.Join(parts, ", "), more, v.Len, v.Elem)
}

// ggufInfo is what readGGUF learns from a file before llama.cpp loads it.
type ggufInfo struct {
	meta    []MetaKV
	dataEnd int64 // offset just past the last tensor's data
}

// checkGGUF validates path as a readable, complete GGUF file and returns its
// metadata. It turns the failures llama.cpp would only log into errors that
// name the file and the problem.
func checkGGUF(path string) (*ggufInfo, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if st.IsDir() {
		return nil, errors.New("is a directory, not a GGUF file")
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	magic := make([]byte, 4)
	_, err = io.ReadFull(f, magic)
	f.Close()
	if err != nil || string(magic) != "GGUF" {
		return nil, detail(ErrNotGGUF, "magic %q", magic)
	}
	if err := scanGGUFHeader(path); err != nil {
		return nil, err
	}
	info, err := readGGUF(path)
	if err != nil {
		return nil, err
	}
	if info.dataEnd > st.Size() {
		return nil, detail(ErrNotGGUF, "truncated: tensor data ends at byte %d, the file has %d", info.dataEnd, st.Size())
	}
	return info, nil
}

func readGGUF(path string) (*ggufInfo, error) {
	cpath := C.CString(path)
	defer C.free(unsafe.Pointer(cpath))
	g := C.loop_gguf_open(cpath)
	if g == nil {
		return nil, detail(ErrNotGGUF, "header is truncated or corrupt")
	}
	defer C.gguf_free(g)
	info := &ggufInfo{}
	n := int64(C.gguf_get_n_kv(g))
	for i := range n {
		id := C.int64_t(i)
		kv := MetaKV{Key: C.GoString(C.gguf_get_key(g, id))}
		t := C.gguf_get_kv_type(g, id)
		if t == C.GGUF_TYPE_ARRAY {
			kv.Value = readArray(g, id)
		} else {
			kv.Value = MetaValue{Type: C.GoString(C.gguf_type_name(t))}
			if t == C.GGUF_TYPE_STRING {
				kv.Value.Value = C.GoString(C.gguf_get_val_str(g, id))
			} else {
				kv.Value.Value = scalar(t, unsafe.Pointer(C.gguf_get_val_data(g, id)))
			}
		}
		info.meta = append(info.meta, kv)
	}
	base := int64(C.gguf_get_data_offset(g))
	for i := range int64(C.gguf_get_n_tensors(g)) {
		end := base + int64(C.gguf_get_tensor_offset(g, C.int64_t(i))) + int64(C.gguf_get_tensor_size(g, C.int64_t(i)))
		info.dataEnd = max(info.dataEnd, end)
	}
	return info, nil
}

func readArray(g *C.struct_gguf_context, id C.int64_t) MetaValue {
	et := C.gguf_get_arr_type(g, id)
	n := int(C.gguf_get_arr_n(g, id))
	v := MetaValue{Type: "arr", Len: n, Elem: C.GoString(C.gguf_type_name(et))}
	keep := min(n, maxMetaArray)
	items := make([]any, 0, keep)
	switch et {
	case C.GGUF_TYPE_STRING:
		for i := range keep {
			items = append(items, C.GoString(C.gguf_get_arr_str(g, id, C.size_t(i))))
		}
	case C.GGUF_TYPE_ARRAY:
		// nested arrays do not occur in llama.cpp's files; report the count only
	default:
		data := unsafe.Pointer(C.gguf_get_arr_data(g, id))
		size := ggufTypeSize(et)
		for i := range keep {
			items = append(items, scalar(et, unsafe.Add(data, i*size)))
		}
	}
	v.Value = items
	return v
}

// ggufTypeSize is the byte size of a scalar GGUF type.
func ggufTypeSize(t C.enum_gguf_type) int {
	switch t {
	case C.GGUF_TYPE_UINT8, C.GGUF_TYPE_INT8, C.GGUF_TYPE_BOOL:
		return 1
	case C.GGUF_TYPE_UINT16, C.GGUF_TYPE_INT16:
		return 2
	case C.GGUF_TYPE_UINT32, C.GGUF_TYPE_INT32, C.GGUF_TYPE_FLOAT32:
		return 4
	}
	return 8
}

// scalar reads one value of type t at p.
func scalar(t C.enum_gguf_type, p unsafe.Pointer) any {
	switch t {
	case C.GGUF_TYPE_UINT8:
		return uint64(*(*uint8)(p))
	case C.GGUF_TYPE_INT8:
		return int64(*(*int8)(p))
	case C.GGUF_TYPE_UINT16:
		return uint64(*(*uint16)(p))
	case C.GGUF_TYPE_INT16:
		return int64(*(*int16)(p))
	case C.GGUF_TYPE_UINT32:
		return uint64(*(*uint32)(p))
	case C.GGUF_TYPE_INT32:
		return int64(*(*int32)(p))
	case C.GGUF_TYPE_FLOAT32:
		return float64(*(*float32)(p))
	case C.GGUF_TYPE_BOOL:
		return *(*uint8)(p) != 0
	case C.GGUF_TYPE_UINT64:
		return *(*uint64)(p)
	case C.GGUF_TYPE_INT64:
		return *(*int64)(p)
	case C.GGUF_TYPE_FLOAT64:
		return *(*float64)(p)
	}
	return nil
}

// pathErr normalises an os error into the package's error type.
func pathErr(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return newError(op, path, err)
}
