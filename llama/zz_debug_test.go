package llama_test
import ("testing";"context";"os";"encoding/hex";"path/filepath";"github.com/loopagent/loop/llama")
func TestZZDebug(t *testing.T){
	prog, _ := hex.DecodeString(os.Getenv("PROG"))
	p := filepath.Join(t.TempDir(), "meta.gguf")
	os.WriteFile(p, ggufFile(fuzzMeta(prog)...), 0o644)
	for _, kv := range fuzzMeta(prog) { t.Logf("%s = %+v", kv.key, kv.val) }
	_, err := llama.LoadModel(context.Background(), p, llama.ModelParams{})
	t.Log("full", err)
	m, err := llama.LoadModel(context.Background(), p, llama.ModelParams{VocabOnly: true})
	t.Log("vocab", err)
	if err == nil { toks, err := m.Tokenize("a b\nab", true, true); t.Log(toks, err); m.Detokenize(toks, true) }
}
