package callformat

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/loopagent/loop/agent/chat"
)

func TestAccumulator(t *testing.T) {
	chunks := []string{
		`{"choices":[{"index":0,"finish_reason":null,"delta":{"role":"assistant","reasoning_content":"Two files."}}]}`,
		`{"choices":[{"index":0,"finish_reason":null,"delta":{"content":"Reading "}}]}`,
		`{"choices":[{"index":0,"finish_reason":null,"delta":{"content":"both."}}]}`,
		`{"choices":[{"index":0,"finish_reason":null,"delta":{"tool_calls":[{"index":1,"id":"b","type":"function","function":{"name":"g","arguments":"{\"y\""}}]}}]}`,
		`{"choices":[{"index":0,"finish_reason":null,"delta":{"tool_calls":[{"index":0,"id":"a","type":"function","function":{"name":"f","arguments":""}}]}}]}`,
		`{"choices":[{"index":0,"finish_reason":null,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{}"}},{"index":1,"function":{"arguments":":2}"}}]}}]}`,
		`{"choices":[{"index":0,"finish_reason":"tool_calls","delta":{}}]}`,
		`[DONE]`,
	}
	var a Accumulator
	for _, c := range chunks {
		if err := a.Add([]byte(c)); err != nil {
			t.Fatalf("Add(%s) = %v", c, err)
		}
	}
	want := Accumulated{Chunks: 7, FinishReason: "tool_calls", Done: true, Content: "Reading both.", Reasoning: "Two files.",
		Calls: []StreamedCall{
			{Index: 0, ID: "a", Type: "function", Name: "f", Pieces: 2, Arguments: "{}"},
			{Index: 1, ID: "b", Type: "function", Name: "g", Pieces: 2, Arguments: `{"y":2}`},
		}}
	if diff := cmp.Diff(want, a.Done()); diff != "" {
		t.Errorf("Done() (-want +got):\n%s", diff)
	}
	wantCalls := []chat.ToolCall{call("a", "f", "{}"), call("b", "g", `{"y":2}`)}
	if diff := cmp.Diff(wantCalls, a.Done().ToolCalls()); diff != "" {
		t.Errorf("ToolCalls() (-want +got):\n%s", diff)
	}
}

func TestAccumulatorErrors(t *testing.T) {
	tests := []struct {
		name, chunk string
	}{
		{"not JSON", `{"choices": [`},
		{"second choice", `{"choices":[{"index":1,"delta":{"content":"x"}}]}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var a Accumulator
			if err := a.Add([]byte(tt.chunk)); err == nil {
				t.Errorf("Add(%s) = nil, want an error", tt.chunk)
			}
		})
	}
}
