package llama_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
)

func TestModelInfo(t *testing.T) {
	tests := []struct {
		name  string
		model string
		want  llama.Info
		bos   llama.Token
		eos   llama.Token
	}{
		{"qwen15 vocab", testmodels.TinyQwen15F32, llama.Info{Arch: "qwen2", TrainContext: 32768, Embd: 64, Layers: 2,
			Heads: 4, HeadsKV: 2, HeadDimK: 16, HeadDimV: 16, VocabSize: 151646}, 151643, 151643},
		{"qwen3 vocab", testmodels.TinyQwen3F16, llama.Info{Arch: "qwen2", TrainContext: 32768, Embd: 64, Layers: 2,
			Heads: 4, HeadsKV: 2, HeadDimK: 16, HeadDimV: 16, VocabSize: 151669}, 151643, 151645},
		{"llama3 vocab", testmodels.TinyLlama3Q8, llama.Info{Arch: "llama", TrainContext: 32768, Embd: 64, Layers: 2,
			Heads: 4, HeadsKV: 2, HeadDimK: 16, HeadDimV: 16, VocabSize: 128256}, 128000, 128009},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := load(t, tt.model)
			in, err := m.Info()
			if err != nil {
				t.Fatal(err)
			}
			if in.Params == 0 || in.SizeBytes == 0 || in.Description == "" {
				t.Errorf("Info() = %+v: no parameters, size or description", in)
			}
			in.Params, in.SizeBytes, in.Description = 0, 0, ""
			if diff := cmp.Diff(tt.want, in); diff != "" {
				t.Errorf("Info() mismatch (-want +got):\n%s", diff)
			}
			if m.BOS() != tt.bos || m.EOS() != tt.eos || !m.IsEOG(tt.eos) || m.IsEOG(tt.bos+1000) {
				t.Errorf("BOS %d EOS %d EOG(eos) %v, want %d %d true", m.BOS(), m.EOS(), m.IsEOG(tt.eos), tt.bos, tt.eos)
			}
			tmpl, ok := m.ChatTemplate("")
			if !ok || !strings.Contains(tmpl, "tools") {
				t.Errorf("ChatTemplate(\"\") = %d bytes, %v; want the model's template", len(tmpl), ok)
			}
			v, ok := m.Meta("tokenizer.ggml.tokens")
			if !ok || v.Len != tt.want.VocabSize || len(v.Value.([]any)) == 0 {
				t.Errorf("Meta(tokenizer.ggml.tokens) = %v, want an array of %d", v, tt.want.VocabSize)
			}
			if len(m.Metadata()) < 20 {
				t.Errorf("Metadata() has %d keys, want every key of the file", len(m.Metadata()))
			}
		})
	}
}

func TestTokenize(t *testing.T) {
	qwen := load(t, testmodels.TinyQwen15F32)
	qwen3 := load(t, testmodels.TinyQwen3F16)
	llama3 := load(t, testmodels.TinyLlama3Q8)
	tests := []struct {
		name                string
		model               *llama.Model
		text                string
		addSpecial, special bool
		want                []llama.Token
	}{
		{"special token parsed", qwen, "<|im_start|>", false, true, []llama.Token{151644}},
		{"special token as text", qwen, "<|im_start|>", false, false, []llama.Token{27, 91, 318, 4906, 91, 29}},
		{"tool_call is text in the Qwen1.5 vocabulary", qwen, "<tool_call>", false, true, []llama.Token{27, 14172, 13429, 29}},
		{"tool_call is one token in the Qwen3 vocabulary", qwen3, "<tool_call>", false, true, []llama.Token{151657}},
		{"llama3 adds BOS", llama3, "hello", true, true, []llama.Token{128000, 15339}},
		{"qwen adds no BOS", qwen, "hello", true, true, []llama.Token{14990}},
		{"empty", qwen, "", false, true, []llama.Token{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.model.Tokenize(tt.text, tt.addSpecial, tt.special)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Tokenize(%q) mismatch (-want +got):\n%s", tt.text, diff)
			}
			text, err := tt.model.Detokenize(got, tt.special)
			if tt.addSpecial && tt.model == llama3 {
				text = strings.TrimPrefix(text, "<|begin_of_text|>")
			}
			if err != nil || text != tt.text {
				t.Errorf("Detokenize(Tokenize(%q)) = %q, %v", tt.text, text, err)
			}
		})
	}
	if p, _ := qwen.TokenPiece(151645, false); p != "" {
		t.Errorf("TokenPiece(<|im_end|>, false) = %q, want \"\" for a control token", p)
	}
	if p, _ := qwen.TokenPiece(151645, true); p != "<|im_end|>" {
		t.Errorf("TokenPiece(<|im_end|>, true) = %q", p)
	}
	if a := qwen.TokenAttr(151645); a&llama.AttrControl == 0 {
		t.Errorf("TokenAttr(<|im_end|>) = %b, want control", a)
	}
	if a := qwen3.TokenAttr(151657); a&llama.AttrUserDefined == 0 {
		t.Errorf("TokenAttr(<tool_call>) = %b, want user-defined, as convert_hf_to_gguf.py types it", a)
	}
}

// TestLogger checks that llama.cpp's log reaches the injected logger.
func TestLogger(t *testing.T) {
	var buf bytes.Buffer
	llama.SetLogger(slog.New(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug})))
	defer llama.SetLogger(nil)
	m, err := llama.LoadModel(context.Background(), testmodels.Path(t, testmodels.TinyQwen15F32), llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	m.Close()
	if !strings.Contains(buf.String(), "source=llama.cpp") || !strings.Contains(buf.String(), "qwen2") {
		t.Errorf("the logger got no llama.cpp records about the model:\n%.500s", buf.String())
	}
}

func TestSystemInfo(t *testing.T) {
	if s := llama.SystemInfo(); !strings.Contains(s, "CPU") {
		t.Errorf("SystemInfo() = %q", s)
	}
	devs := llama.Devices()
	if len(devs) == 0 || devs[0].Type != "cpu" {
		t.Errorf("Devices() = %+v, want the CPU first", devs)
	}
	if got, err := llama.LoadBackends(t.TempDir()); err != nil || len(got) != 0 {
		t.Errorf("LoadBackends(empty dir) = %v, %v", got, err)
	}
}
