package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/loopagent/loop/engine"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/internal/testmodels"
	"github.com/loopagent/loop/llama"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// readFileTool is seed 000 Example 2's tool: one required path from an enum.
var readFileTool = grammar.Tool{Name: "read_file", Parameters: json.RawMessage(
	`{"type": "object", "properties": {"path": {"type": "string", "enum": ["pom.xml", "src/Main.java"]}}, "required": ["path"]}`)}

func load(t testing.TB, name string) *llama.Model {
	t.Helper()
	m, err := llama.LoadModel(context.Background(), testmodels.Path(t, name), llama.ModelParams{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	return m
}

// newContext makes a one-thread context that closes when the test ends.
func newContext(t testing.TB, m *llama.Model, size int) *llama.Context {
	t.Helper()
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: size, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// defaultChain is llama-server's default chain at temperature 0.8.
func defaultChain(t testing.TB, seed uint32) *llama.Sampler {
	ch := llama.NewChain(true)
	for _, s := range []*llama.Sampler{llama.NewTopK(40), llama.NewTopP(0.95, 1), llama.NewMinP(0.05, 1), llama.NewTemp(0.8), llama.NewDist(seed)} {
		if err := ch.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	return ch
}

// callOutcome is one row of the table: how generation ended, how many calls
// the output holds, and whether they are valid.
type callOutcome struct {
	seed   int
	finish string
	calls  int
	valid  bool
	cut    bool
	detail string
}

// checkCalls parses Hermes calls out of text and validates their arguments.
func checkCalls(text string, schema *jsonschema.Schema) (calls int, valid bool, detail string) {
	valid = true
	rest := text
	for {
		i := strings.Index(rest, "<tool_call>\n")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "\n</tool_call>")
		if j < 0 {
			return calls, false, "unterminated call"
		}
		body := rest[i+len("<tool_call>\n") : i+j]
		rest = rest[i+j+len("\n</tool_call>"):]
		calls++
		var call struct {
			Name      string          `json:"name"`
			Arguments json.RawMessage `json:"arguments"`
		}
		if err := json.Unmarshal([]byte(body), &call); err != nil {
			return calls, false, "invalid JSON: " + err.Error()
		}
		args, err := jsonschema.UnmarshalJSON(strings.NewReader(string(call.Arguments)))
		if err != nil || call.Name != "read_file" {
			return calls, false, fmt.Sprintf("name %q, arguments %s", call.Name, call.Arguments)
		}
		if err := schema.Validate(args); err != nil {
			return calls, false, err.Error()
		}
		detail = string(call.Arguments)
	}
	if strings.TrimSpace(rest) != "" && calls > 0 {
		valid, detail = false, fmt.Sprintf("text after the call: %q", rest)
	}
	return calls, valid && calls > 0, detail
}

func compileSchema(t testing.TB, raw json.RawMessage) *jsonschema.Schema {
	doc, err := jsonschema.UnmarshalJSON(strings.NewReader(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("tool.json", doc); err != nil {
		t.Fatal(err)
	}
	s, err := c.Compile("tool.json")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRequiredSingleCall50Seeds generates from the tiny random model with a
// required single-call grammar: every output that ends with eos parses,
// matches the schema and holds exactly one call. With a small n_predict the
// calls are cut, reported as cut, and never counted as complete.
func TestRequiredSingleCall50Seeds(t *testing.T) {
	m := load(t, testmodels.TinyQwen15F32)
	c, err := llama.NewContext(m, llama.ContextParams{ContextSize: 1024, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	prompt, err := os.ReadFile(filepath.Join("testdata", "seed000-example2-prompt.txt"))
	if err != nil {
		t.Fatal(err)
	}
	toks, err := m.Tokenize(string(prompt), true, true)
	if err != nil {
		t.Fatal(err)
	}
	cg, err := grammar.ToolCalls(grammar.Hermes, []grammar.Tool{readFileTool}, grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceRequired}})
	if err != nil {
		t.Fatal(err)
	}
	schema := compileSchema(t, readFileTool.Parameters)
	slot, _ := llama.NewSlot(c, 0)
	for _, run := range []struct {
		seeds, nPredict int
	}{{50, 128}, {10, 24}} {
		var table strings.Builder
		complete, cut := 0, 0
		fmt.Fprintf(&table, "seed  finish  calls  valid  arguments\n")
		for seed := 1; seed <= run.seeds; seed++ {
			o := generateCall(t, m, slot, toks, cg, schema, seed, run.nPredict)
			if o.cut {
				cut++
			} else {
				complete++
			}
			fmt.Fprintf(&table, "%4d  %-6s  %5d  %-5v  %s\n", o.seed, finishName(o), o.calls, o.valid, o.detail)
		}
		t.Logf("required, parallel_tool_calls false, %d seeds, n_predict %d: %d complete and valid, %d cut\n%s",
			run.seeds, run.nPredict, complete, cut, table.String())
		if run.nPredict == 128 && complete != run.seeds {
			t.Errorf("n_predict 128: %d of %d calls complete, want all (each needs under 100 tokens)", complete, run.seeds)
		}
		if run.nPredict == 24 && cut == 0 {
			t.Errorf("n_predict 24 cut no call; the test no longer shows cut calls")
		}
	}
}

// generateCall runs one seed and checks its output.
func generateCall(t *testing.T, m *llama.Model, slot *llama.Slot, toks []llama.Token, cg *grammar.CallGrammar, schema *jsonschema.Schema, seed, nPredict int) callOutcome {
	g, err := engine.CompileCalls(m, cg)
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	ch := defaultChain(t, uint32(seed))
	defer ch.Close()
	res, err := engine.Generate(context.Background(), slot, engine.Request{Prompt: toks, Chain: ch, Grammar: g, NPredict: nPredict})
	if err != nil {
		t.Fatalf("seed %d: %v", seed, err)
	}
	o := callOutcome{seed: seed, finish: res.StopType}
	o.calls, o.valid, o.detail = checkCalls(res.Text, schema)
	switch res.StopType {
	case engine.StopEOS:
		if o.calls != 1 || !o.valid {
			t.Errorf("seed %d: finished with eos but %d calls, valid %v: %q (%s)", seed, o.calls, o.valid, res.Text, o.detail)
		}
	case engine.StopLimit:
		o.cut, o.valid = true, false // a cut call never counts, even if its text looks whole
		if !strings.HasPrefix(res.Text, "<tool_call>\n") && !strings.HasPrefix("<tool_call>\n", res.Text) {
			t.Errorf("seed %d: cut output %q does not start a call", seed, res.Text)
		}
	default:
		t.Errorf("seed %d: stop type %q", seed, res.StopType)
	}
	return o
}

func finishName(o callOutcome) string {
	if o.cut {
		return "cut"
	}
	return o.finish
}
