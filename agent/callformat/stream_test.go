package callformat

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/loopagent/loop/agent/chat"
)

// parseTools are the tools of the parser tests: read_file has a string
// parameter, head an integer and an array too (Qwen3-Coder's typed
// values).
var parseTools = mustParseTools(`[
 {"type": "function", "function": {"name": "read_file", "parameters": {"type": "object",
   "properties": {"path": {"type": "string"}}, "required": ["path"]}}},
 {"type": "function", "function": {"name": "head", "parameters": {"type": "object",
   "properties": {"path": {"type": "string"}, "lines": {"type": "integer"}, "flags": {"type": "array", "items": {"type": "string"}}},
   "required": ["path"]}}}]`)

func mustParseTools(s string) []chat.Tool {
	tools, err := chat.ParseTools([]byte(s))
	if err != nil {
		panic(err)
	}
	return tools
}

// testFormat returns the named format with parseTools and ids from a
// fixed seed.
func testFormat(t testing.TB, name string) Format {
	t.Helper()
	f, err := NewWithOptions(name, parseTools, Options{Rand: rand.New(rand.NewPCG(1, 2))})
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// streamed is what a stream parser emitted, joined.
type streamed struct {
	content, reasoning string
	calls              []CallDelta // by Index, arguments joined
	fin                Parsed
}

// runStream feeds chunks to a new stream of f and joins the deltas,
// checking that each call's first delta, and only it, has its id and name,
// and that indexes count up from 0.
func runStream(f Format, chunks []string) (streamed, error) {
	var r streamed
	p := f.Stream()
	for _, c := range chunks {
		for _, d := range p.Feed(c) {
			r.content += d.Content
			r.reasoning += d.Reasoning
			if d.Call == nil {
				continue
			}
			cd := *d.Call
			switch {
			case cd.Index == len(r.calls) && cd.ID != "" && cd.Name != "":
				r.calls = append(r.calls, cd)
			case cd.Index < len(r.calls) && cd.ID == "" && cd.Name == "":
				r.calls[cd.Index].Arguments += cd.Arguments
			default:
				return r, fmt.Errorf("call delta %+v after %d calls", cd, len(r.calls))
			}
		}
	}
	r.fin = p.Finish()
	return r, nil
}

// splitRandom cuts text at random bytes, runes and markers regardless.
func splitRandom(text string, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 7))
	var out []string
	for len(text) > 0 {
		n := 1 + r.IntN(min(len(text), 8))
		out = append(out, text[:n])
		text = text[n:]
	}
	return out
}

func splitBytes(text string) []string {
	out := make([]string, len(text))
	for i := 0; i < len(text); i++ {
		out[i] = text[i : i+1]
	}
	return out
}

// heldMax is the most non-space text of Content or Reasoning a stream of
// the format may still hold back at the end: a marker's proper prefix.
// Llama 3 and the prompt format hold back a whole undecided JSON object.
var heldMax = map[string]int{"hermes": 10, "qwen3-coder": 10, "mistral": 11, "harmony": 12, "command-r7b": 17}

// checkStream checks the stream properties of StreamParser's doc for text
// fed whole, byte by byte, and in random pieces:
//
//	(a) Finish() is Parse(text), except the ids Parse leaves empty;
//	(b) the joined content (reasoning) deltas are the same for every
//	    split, a prefix of Finish's Content (Reasoning), and what they miss
//	    is white space and at most heldMax bytes;
//	(c) each call of Finish was announced with its id and name, and its
//	    joined argument fragments compact to its Arguments.
func checkStream(t *testing.T, f func() Format, text string, seed uint64) {
	t.Helper()
	want := f().Parse(text)
	var first streamed
	for i, chunks := range [][]string{{text}, splitBytes(text), splitRandom(text, seed)} {
		got, err := runStream(f(), chunks)
		if err != nil {
			t.Fatalf("stream of %q in %q: %v", text, chunks, err)
		}
		if i == 0 {
			first = got
		} else if got.content != first.content || got.reasoning != first.reasoning {
			t.Errorf("stream of %q in %q: content %q reasoning %q, whole: %q %q", text, chunks, got.content, got.reasoning, first.content, first.reasoning)
		}
		checkFinish(t, f(), text, want, got)
	}
}

func checkFinish(t *testing.T, f Format, text string, want Parsed, got streamed) {
	t.Helper()
	fin := got.fin
	if len(fin.Calls) == len(want.Calls) {
		for i, c := range want.Calls {
			if c.ID != "" && fin.Calls[i].ID != c.ID {
				t.Errorf("Finish() of %q: call %d id %q, Parse id %q", text, i, fin.Calls[i].ID, c.ID)
			}
		}
	}
	noIDs := cmp.Transformer("noIDs", func(c chat.ToolCall) chat.ToolCall { c.ID = ""; return c })
	if diff := cmp.Diff(want, fin, noIDs, cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("Finish() of %q differs from Parse (-Parse +Finish):\n%s", text, diff)
	}
	checkHeld(t, f.Name(), text, "content", got.content, fin.Content)
	checkHeld(t, f.Name(), text, "reasoning", got.reasoning, fin.Reasoning)
	for i, c := range fin.Calls {
		if len(want.Calls) == len(fin.Calls) && want.Calls[i].ID == "" && !f.ValidID(c.ID) {
			t.Errorf("Finish() of %q: id %q does not fit %s", text, c.ID, f.Name())
		}
		d := findCall(got.calls, c.ID)
		if d == nil {
			t.Errorf("Finish() of %q: call %s %s was never announced in %+v", text, c.ID, c.Function.Name, got.calls)
			continue
		}
		args, err := compactJSON(d.Arguments)
		if d.Name != c.Function.Name || err != nil || args != c.Function.Arguments {
			t.Errorf("stream of %q: call %s %s(%s), Finish %s(%s)", text, c.ID, d.Name, d.Arguments, c.Function.Name, c.Function.Arguments)
		}
	}
}

func findCall(calls []CallDelta, id string) *CallDelta {
	for i := range calls {
		if calls[i].ID == id {
			return &calls[i]
		}
	}
	return nil
}

// checkHeld checks property (b) for one of content and reasoning.
func checkHeld(t *testing.T, format, text, what, streamed, final string) {
	t.Helper()
	rest, ok := strings.CutPrefix(final, streamed)
	if !ok {
		t.Errorf("stream of %q: %s deltas %q are not a prefix of %q", text, what, streamed, final)
		return
	}
	if max, bounded := heldMax[format]; bounded && len(strings.TrimLeft(rest, " \t\n\r\v\f")) > max {
		t.Errorf("stream of %q: %s held back %q of %q", text, what, rest, final)
	}
}

// streamSeeds are texts for every format's fuzz target.
var streamSeeds = []string{
	"",
	"plain text",
	"  \n text with spaces \n ",
	"a < b and c [d] {e} <|f|>",
	"héllo wörld ✓ 日本語",
}

// fuzzFormat is the fuzz target body for one format: Parse never panics
// and the stream properties hold.
func fuzzFormat(f *testing.F, name string, seeds []string) {
	for _, s := range append(streamSeeds, seeds...) {
		f.Add(s, uint64(1))
	}
	f.Fuzz(func(t *testing.T, text string, seed uint64) {
		if len(text) > 4096 {
			return
		}
		checkStream(t, func() Format { return testFormat(t, name) }, text, seed)
	})
}

// FuzzStream runs every format on the same texts.
func FuzzStream(f *testing.F) {
	byName := map[string][]string{"hermes": hermesSeeds, "qwen3-coder": qwen3CoderSeeds, "llama3": llama3Seeds,
		"mistral": mistralSeeds, "harmony": harmonySeeds, "prompt": promptSeeds, "command-r7b": texts(commandR7BTests)}
	for name, tests := range moreTables {
		byName[name] = texts(tests)
	}
	seeds := make([][]string, len(formatNames)) // in the order of formatNames
	for k, name := range formatNames {
		seeds[k] = byName[name]
	}
	for k, texts := range seeds {
		for i, s := range append(texts, streamSeeds...) {
			// Each text once with its own format, once with the next.
			f.Add(uint8(k), s, uint64(i))
			f.Add(uint8(k+1), s, uint64(i))
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, text string, seed uint64) {
		if len(text) > 4096 {
			return
		}
		name := formatNames[int(which)%len(formatNames)]
		checkStream(t, func() Format { return testFormat(t, name) }, text, seed)
	})
}

func TestStreamProperties(t *testing.T) {
	texts := append(append([]string{}, streamSeeds...), hermesSeeds...)
	texts = append(texts, qwen3CoderSeeds...)
	texts = append(texts, llama3Seeds...)
	texts = append(texts, mistralSeeds...)
	texts = append(texts, harmonySeeds...)
	texts = append(texts, promptSeeds...)
	for _, name := range formatNames {
		t.Run(name, func(t *testing.T) {
			for i, text := range texts {
				checkStream(t, func() Format { return testFormat(t, name) }, text, uint64(i))
			}
		})
	}
}

func TestStreamDeltas(t *testing.T) {
	text := "<think>Need the file.</think>\nLet me check.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}\n</tool_call>"
	f := testFormat(t, "hermes")
	p := f.Stream()
	var got []Delta
	for _, c := range []string{"<thi", "nk>Need the", " file.</think>\nLet me", " check.\n<tool_", "call>\n{\"name\": \"read_", "file\", \"arguments\": {\"pa", "th\": \"pom.xml\"}}\n</tool_call>"} {
		got = append(got, p.Feed(c)...)
	}
	fin := p.Finish()
	if diff := cmp.Diff(testFormat(t, "hermes").Parse(text), fin, cmpopts.IgnoreFields(chat.ToolCall{}, "ID")); diff != "" {
		t.Errorf("Finish() differs from Parse (-Parse +Finish):\n%s", diff)
	}
	id := fin.Calls[0].ID
	want := []Delta{
		{Reasoning: "Need the"},
		{Reasoning: " file."},
		{Content: "Let me"},
		{Content: " check."},
		{Call: &CallDelta{Index: 0, ID: id, Name: "read_file", Arguments: `{"pa`}},
		{Call: &CallDelta{Index: 0, Arguments: `th": "pom.xml"}`}},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Feed deltas (-want +got):\n%s", diff)
	}
	if len(id) != 32 || fin.Content != "Let me check." || fin.Reasoning != "Need the file." {
		t.Errorf("Finish() = %+v", fin)
	}
}

// TestStreamIDs: a stream's ids come from Options.Rand, and Finish
// returns the ids its deltas carried, every time.
func TestStreamIDs(t *testing.T) {
	text := "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {}}\n</tool_call>\n<tool_call>\n{\"name\": \"head\", \"arguments\": {}}\n</tool_call>"
	a, b := testFormat(t, "hermes").Stream(), testFormat(t, "hermes").Stream()
	da, db := a.Feed(text), b.Feed(text)
	if diff := cmp.Diff(da, db); diff != "" || len(da) != 2 {
		t.Fatalf("two streams with the same seed differ or miss calls:\n%s", diff)
	}
	for i := 0; i < 2; i++ {
		fin := a.Finish()
		for k, c := range fin.Calls {
			if c.ID != da[k].Call.ID {
				t.Errorf("Finish() #%d call %d id %q, delta id %q", i, k, c.ID, da[k].Call.ID)
			}
		}
	}
}

// TestStreamCallFails: a call announced and then cut off keeps its index;
// Finish reports it, and the next call takes the next index.
func TestStreamCallFails(t *testing.T) {
	f := testFormat(t, "mistral")
	p := f.Stream()
	var deltas []Delta
	for _, c := range splitBytes(`[TOOL_CALLS]read_file[ARGS]{"path": 1 2}`) {
		deltas = append(deltas, p.Feed(c)...)
	}
	fin := p.Finish()
	if len(deltas) == 0 || deltas[0].Call == nil || deltas[0].Call.Name != "read_file" {
		t.Fatalf("deltas = %+v, want read_file announced", deltas)
	}
	if len(fin.Calls) != 0 || len(fin.Problems) != 1 || fin.Problems[0].Kind != InvalidJSON {
		t.Errorf("Finish() = %+v, want no calls and one invalid_json problem", fin)
	}
}

func TestChunkRoundTrip(t *testing.T) {
	text := "Reading both.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\"}}\n</tool_call>\n<tool_call>\n{\"name\": \"head\", \"arguments\": {\"path\": \"README.md\", \"lines\": 3}}\n</tool_call>"
	f := testFormat(t, "hermes")
	p := f.Stream()
	var acc Accumulator
	for _, c := range splitRandom(text, 3) {
		for _, d := range p.Feed(c) {
			if err := acc.Add(ChunkJSON(d, "")); err != nil {
				t.Fatal(err)
			}
		}
	}
	fin := p.Finish()
	if err := acc.Add(ChunkJSON(Delta{}, "tool_calls")); err != nil {
		t.Fatal(err)
	}
	if err := acc.Add([]byte("[DONE]")); err != nil {
		t.Fatal(err)
	}
	got := acc.Done()
	if got.FinishReason != "tool_calls" || !got.Done || got.Content != fin.Content {
		t.Errorf("Done() = %+v, want finish_reason tool_calls, content %q", got, fin.Content)
	}
	calls := got.ToolCalls()
	for i := range calls {
		var err error
		if calls[i].Function.Arguments, err = compactJSON(calls[i].Function.Arguments); err != nil {
			t.Fatalf("call %d arguments %q: %v", i, got.Calls[i].Arguments, err)
		}
	}
	if diff := cmp.Diff(fin.Calls, calls); diff != "" {
		t.Errorf("accumulated calls differ from Finish (-Finish +accumulated):\n%s", diff)
	}
}

func TestChunkJSON(t *testing.T) {
	tests := []struct {
		name   string
		d      Delta
		finish string
		want   string
	}{
		{"content", Delta{Content: "a<b"}, "", `{"choices":[{"delta":{"content":"a<b"},"finish_reason":null,"index":0}]}`},
		{"reasoning", Delta{Reasoning: "hm"}, "", `{"choices":[{"delta":{"reasoning_content":"hm"},"finish_reason":null,"index":0}]}`},
		{"first piece", Delta{Call: &CallDelta{Index: 1, ID: "x", Name: "f", Arguments: "{"}}, "",
			`{"choices":[{"delta":{"tool_calls":[{"index":1,"id":"x","type":"function","function":{"name":"f","arguments":"{"}}]},"finish_reason":null,"index":0}]}`},
		{"later piece", Delta{Call: &CallDelta{Index: 1, Arguments: "}"}}, "",
			`{"choices":[{"delta":{"tool_calls":[{"index":1,"function":{"arguments":"}"}}]},"finish_reason":null,"index":0}]}`},
		{"finish", Delta{}, "stop", `{"choices":[{"delta":{},"finish_reason":"stop","index":0}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := string(ChunkJSON(tt.d, tt.finish)); got != tt.want {
				t.Errorf("ChunkJSON(%+v, %q) = %s, want %s", tt.d, tt.finish, got, tt.want)
			}
			if !json.Valid([]byte(tt.want)) {
				t.Errorf("want is not JSON")
			}
		})
	}
}

// BenchmarkStream streams a reply that writes a 20 KB file in each format
// family, 4 bytes a piece (as a model writes it) and in one piece.
func BenchmarkStream(b *testing.B) {
	for _, r := range bigReplies(20 << 10) {
		for _, piece := range []int{4, len(r.text)} {
			what := "pieces4"
			if piece > 4 {
				what = "whole"
			}
			b.Run(r.name+"/"+what, func(b *testing.B) {
				f := testFormat(b, r.format)
				b.SetBytes(int64(len(r.text)))
				for b.Loop() {
					p := f.Stream()
					for i := 0; i < len(r.text); i += piece {
						p.Feed(r.text[i:min(i+piece, len(r.text))])
					}
					if fin := p.Finish(); len(fin.Calls) != r.calls || len(fin.Problems) > 0 {
						b.Fatalf("Finish() = %.200v", fin)
					}
				}
			})
		}
	}
}
