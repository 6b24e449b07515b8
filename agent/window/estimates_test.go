package window

import (
	"fmt"
	"strings"
	"testing"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/internal/golden"
)

// seedJSON is seed 002 Example 2's JSON tool result: 95 characters, 33
// tokens with the Llama 3 vocabulary and 34 with Qwen2 (llama's
// TestSeedTokenCounts counts them with the test models' tokenizers).
const seedJSON = `{"path":"src/main/java/app/OrderService.java","line":42,"status":"modified","sha":"9f2c4e1a7b"}`

// TestSeedEstimates prints seed 002 Example 2's table from the counts its
// program holds (its llama-tokenize measurements; only the JSON line's
// text is in the seed, and `loop tokenize --estimate` measures that one
// again) and compares it with the seed's printed table, verbatim.
func TestSeedEstimates(t *testing.T) {
	samples := []EstimateSample{
		{"prose", 96, []int{21, 21}},
		{"java", 203, []int{42, 42}},
		NewEstimateSample("json", seedJSON, 33, 34),
		{"maven log", 228, []int{66, 69}},
		{"git hash", 40, []int{38, 40}},
	}
	var b strings.Builder
	if err := WriteEstimates(&b, []string{"llama3", "qwen2"}, CompareEstimate(Estimate{}, samples)); err != nil {
		t.Fatal(err)
	}
	golden.Seed(t, "seed002_example02.txt", b.String())
}

// TestCorrected: where no tokenizer is at hand, the prompt_tokens of the
// last request correct the estimate. A scripted server counts each of the
// seed's JSON results as 34 tokens plus 4 for the template; the estimate
// at four characters per token counts 24 plus 4. After 20 results the
// plain estimate is 200 tokens short; measured from the last request's
// prompt_tokens, only the newest result is estimated, 10 short.
func TestCorrected(t *testing.T) {
	four := Estimate{CharsPerToken: 4, ToolCharsPerToken: 4}
	const fixed, perResult = 300, 34 + 4
	msgs := []chat.Message{{Role: "system", Content: "You are a coding agent."}}
	server := fixed + MessageTokens(four, 4, msgs[0]) // the system prompt, estimated right
	for i := range 20 {
		id := fmt.Sprint("call-", i)
		call := chat.Message{Role: "assistant", ToolCalls: []chat.ToolCall{{ID: id, Type: "function",
			Function: chat.FunctionCall{Name: "read_file", Arguments: `{"path":"x.json"}`}}}}
		msgs = append(msgs, call, chat.Message{Role: "tool", ToolCallID: id, Content: seedJSON})
		server += MessageTokens(four, 4, call) + perResult
	}
	c := &Corrected{Counter: four, Fixed: fixed}
	if got, want := c.Measure(msgs), server-20*10; got != want {
		t.Errorf("Measure before any request = %d, want the plain estimate %d (real %d)", got, want, server)
	}
	c.Observe(msgs, server)
	call := chat.Message{Role: "assistant", ToolCalls: []chat.ToolCall{{ID: "call-20", Type: "function",
		Function: chat.FunctionCall{Name: "read_file", Arguments: `{"path":"y.json"}`}}}}
	next := append(msgs, call, chat.Message{Role: "tool", ToolCallID: "call-20", Content: seedJSON})
	server2 := server + MessageTokens(four, 4, call) + perResult
	if got, want := c.Measure(next), server2-10; got != want {
		t.Errorf("Measure after a request = %d, want %d: the server's %d and the new result estimated", got, want, server)
	}
	// A compaction rewrites the history: the observed count no longer
	// applies, and the whole history is estimated again.
	compacted := append([]chat.Message{msgs[0], {Role: "user", Content: "summary"}}, next[37:]...)
	want := fixed
	for _, m := range compacted {
		want += MessageTokens(four, 4, m)
	}
	if got := c.Measure(compacted); got != want {
		t.Errorf("Measure after a compaction = %d, want the whole estimate %d", got, want)
	}
	// As the manager's Measure, the correction decides the trigger.
	m := New(Config{Window: 8192, System: msgs[0], Measure: c.Measure, Fixed: fixed})
	for _, msg := range next[1:] {
		m.Append(msg)
	}
	r, err := m.Request(t.Context())
	if err != nil || r.Tokens != server2-10 {
		t.Errorf("Manager.Request with Corrected.Measure = %d tokens, %v; want %d", r.Tokens, err, server2-10)
	}
}
