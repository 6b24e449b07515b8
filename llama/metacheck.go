package llama

import (
	"fmt"
	"slices"
)

// checkMeta refuses GGUF metadata that llama.cpp's loader asserts on, which
// would abort the whole process instead of failing the load. llama.cpp
// throws (a clean error) when a scalar key has the wrong type or a value is
// merely wrong, but it aborts with GGML_ASSERT in a few places:
//
//   - expert counts that do not fit together (load_hparams);
//   - an unknown rope scaling type (load_hparams);
//   - dense feature sizes other than the embedding size (load_hparams);
//   - an array whose element type differs from the one the reader expects
//     (llama_model_loader::get_arr, gguf_get_arr_str, gguf_get_arr_data);
//
// and it reads the tokenizer's score and type arrays as long as the token
// list, out of bounds when they are shorter. Each rule below names the
// llama.cpp check it stands in for; FuzzLoadModelMeta looks for more.
func checkMeta(meta []MetaKV) error {
	m := metaMap(meta)
	arch, _ := m["general.architecture"].Value.(string)
	for _, check := range []func(map[string]MetaValue, string) error{checkLayers, checkExperts, checkRope, checkDense, checkArrays, checkVocabArrays} {
		if err := check(m, arch); err != nil {
			return detail(ErrNotGGUF, "%v", err)
		}
	}
	return nil
}

func metaMap(meta []MetaKV) map[string]MetaValue {
	m := make(map[string]MetaValue, len(meta))
	for _, kv := range meta {
		m[kv.Key] = kv.Value
	}
	return m
}

// u32 returns a uint32 key the way llama_model_loader::get_key reads it:
// only a u32 value counts (another type makes llama.cpp throw).
func u32(m map[string]MetaValue, key string) (uint64, bool) {
	v, ok := m[key]
	if !ok || v.Type != "u32" {
		return 0, false
	}
	x, ok := v.Value.(uint64)
	return x, ok
}

// maxLayers is LLAMA_MAX_LAYERS, the size of llama.cpp's per-layer arrays.
const maxLayers = 512

// checkLayers requires 1..maxLayers layers: llama_hparams::n_head(0)
// aborts on a model without layers, and the per-layer arrays hold 512.
func checkLayers(m map[string]MetaValue, arch string) error {
	if n, ok := u32(m, arch+".block_count"); ok && (n == 0 || n > maxLayers) {
		return fmt.Errorf("%s.block_count %d is outside 1..%d", arch, n, maxLayers)
	}
	return nil
}

// maxExperts is LLAMA_MAX_EXPERTS.
const maxExperts = 512

// checkExperts makes the expert-count checks of load_hparams.
func checkExperts(m map[string]MetaValue, arch string) error {
	e, _ := u32(m, arch+".expert_count")
	used, _ := u32(m, arch+".expert_used_count")
	groups, _ := u32(m, arch+".expert_group_count")
	groupUsed, _ := u32(m, arch+".expert_group_used_count")
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%s.expert_count %d, expert_used_count %d, expert_group_count %d, expert_group_used_count %d: %s",
			arch, e, used, groups, groupUsed, fmt.Sprintf(format, args...))
	}
	switch {
	case e > maxExperts:
		return bad("more than %d experts", maxExperts)
	case used > e:
		return bad("more experts used than there are")
	case e == 0 && (used != 0 || groups != 0):
		return bad("expert counts without experts")
	case e > 0 && used == 0:
		return bad("no expert is used")
	case e > 0 && groups >= e:
		return bad("as many expert groups as experts")
	case groups > 1 && (e%groups != 0 || groupUsed == 0 || groupUsed >= groups):
		return bad("the expert groups do not divide the experts, or use none or all of them")
	}
	return nil
}

// ropeScalingTypes are LLAMA_ROPE_SCALING_TYPES.
var ropeScalingTypes = []string{"none", "linear", "yarn", "longrope"}

func checkRope(m map[string]MetaValue, arch string) error {
	key := arch + ".rope.scaling.type"
	v, ok := m[key]
	if !ok || v.Type != "str" {
		return nil
	}
	if s, _ := v.Value.(string); !slices.Contains(ropeScalingTypes, s) {
		return fmt.Errorf("%s %q is not one of %v", key, s, ropeScalingTypes)
	}
	return nil
}

// checkDense makes the dense-layer checks of the sentence-embedding
// architectures: dense_2_feat_in and dense_3_feat_out are 0 or n_embd.
func checkDense(m map[string]MetaValue, arch string) error {
	embd, _ := u32(m, arch+".embedding_length")
	for _, k := range []string{".dense_2_feat_in", ".dense_3_feat_out"} {
		if v, ok := u32(m, arch+k); ok && v != 0 && v != embd {
			return fmt.Errorf("%s%s is %d, not the embedding length %d", arch, k, v, embd)
		}
	}
	return nil
}

// arrayKeys are the keys llama.cpp reads as arrays, with the element type
// its reader asserts on ("int": u32 or i32).
func arrayKeys(arch string) map[string]string {
	a := arch + "."
	return map[string]string{
		a + "feed_forward_length":               "int", // get_key_or_arr<uint32_t>
		a + "attention.head_count":              "int",
		a + "attention.head_count_kv":           "int",
		a + "rope.dimension_sections":           "int", // get_key_or_arr<int>
		a + "attention.block_skip_connection.0": "int",
		a + "attention.block_skip_connection.1": "int",
		a + "attention.block_skip_connection.2": "int",
		a + "attention.block_skip_connection.3": "int",
		a + "classifier.output_labels":          "str", // get_arr<std::string>
		"xielu.alpha_n":                         "f32", // get_key_or_arr<float>
		"xielu.alpha_p":                         "f32",
		"xielu.beta":                            "f32",
		"xielu.eps":                             "f32",
		"tokenizer.ggml.tokens":                 "str", // gguf_get_arr_str
		"tokenizer.ggml.merges":                 "str",
		"tokenizer.ggml.scores":                 "f32", // read as float *
		"tokenizer.ggml.token_type":             "int", // read as int *
		"tokenizer.ggml.precompiled_charsmap":   "byte",
	}
}

func elemMatches(want, elem string) bool {
	switch want {
	case elem:
		return true
	case "int":
		return elem == "u32" || elem == "i32"
	case "byte":
		return elem == "u8" || elem == "i8"
	}
	return false
}

// checkArrays requires the element type that llama.cpp's reader of a key
// asserts on, when the key holds an array.
func checkArrays(m map[string]MetaValue, arch string) error {
	for key, want := range arrayKeys(arch) {
		v, ok := m[key]
		if !ok || v.Type != "arr" || elemMatches(want, v.Elem) {
			continue
		}
		return fmt.Errorf("%s is an array of %s; llama.cpp reads it as %s", key, v.Elem, want)
	}
	return nil
}

// checkVocabArrays requires the token list to be an array, and the score
// and type arrays, which llama.cpp indexes by token, to be as long as it.
func checkVocabArrays(m map[string]MetaValue, _ string) error {
	tokens, ok := m["tokenizer.ggml.tokens"]
	if !ok {
		return nil
	}
	if tokens.Type != "arr" {
		return fmt.Errorf("tokenizer.ggml.tokens is a %s, not an array of strings", tokens.Type)
	}
	for _, key := range []string{"tokenizer.ggml.scores", "tokenizer.ggml.token_type"} {
		v, ok := m[key]
		if !ok {
			continue
		}
		if v.Type != "arr" || v.Len < tokens.Len {
			return fmt.Errorf("%s has %d entries for %d tokens", key, v.Len, tokens.Len)
		}
	}
	for _, key := range []string{"tokenizer.ggml.merges", "tokenizer.ggml.precompiled_charsmap"} {
		if v, ok := m[key]; ok && v.Type != "arr" {
			return fmt.Errorf("%s is a %s, not an array", key, v.Type)
		}
	}
	model, _ := m["tokenizer.ggml.model"].Value.(string)
	if d := defaultSpecialIDs[model]; d.maxID >= tokens.Len {
		return fmt.Errorf("a %q vocabulary of %d tokens cannot hold its default special token %d (%s)", model, tokens.Len, d.maxID, d.name)
	}
	return nil
}

// defaultSpecialIDs are the largest default special-token ids of each
// tokenizer model (llama_vocab::impl::load). llama.cpp checks the ids a
// file sets, but uses these defaults unchecked: it looks the token up to
// log it, out of bounds in a smaller vocabulary.
var defaultSpecialIDs = map[string]struct {
	maxID int
	name  string
}{
	"llama":  {2, "EOS"},
	"bert":   {103, "MASK"},
	"gpt2":   {11, "BOS and EOS"},
	"t5":     {2, "UNK"},
	"plamo2": {3, "PAD"},
}
