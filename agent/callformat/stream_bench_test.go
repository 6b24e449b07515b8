package callformat

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopagent/loop/agent/chat"
)

// bigReply is a reply of one format that writes a file of about n bytes
// in one call (or, for the content cases, in its text).
type bigReply struct {
	name   string // the case
	format string
	text   string
	calls  int // the calls Parse finds
}

// bigReplies returns a reply per format family that carries a file of
// about n bytes: as raw JSON arguments, as arguments encoded twice, as an
// XML parameter, or as content and reasoning; and replies of about n bytes
// of small calls.
func bigReplies(n int) []bigReply {
	const line = "func main() {\n\tprintln(\"hello, world\")\n}\n"
	file := strings.Repeat(line, n/len(line)+1)[:n]
	args, _ := json.Marshal(map[string]string{"path": "main.go", "content": file})
	a := string(args)
	quoted := chat.QuoteJSON(a)
	xml := "<function=write_file>\n<parameter=path>\nmain.go\n</parameter>\n<parameter=content>\n" + file + "\n</parameter>\n</function>"
	var many, manyXML, manyArray, manyLlama, manyHarmony, manyFn, manyDS, manyKimi strings.Builder
	calls := max(n/160, 1)
	manyArray.WriteString("[TOOL_CALLS][")
	manyDS.WriteString("<｜tool▁calls▁begin｜>")
	manyKimi.WriteString("<|tool_calls_section_begin|>")
	for i := range calls {
		path := fmt.Sprintf("src/pkg%d/file%d.go", i, i)
		args := fmt.Sprintf("{\"path\": %q, \"offset\": %d, \"limit\": 200}", path, i*10)
		if i > 0 {
			manyLlama.WriteString("; ")
			manyFn.WriteString(">>>")
		}
		manyLlama.WriteString(`{"name": "read_file", "parameters": ` + args + `}`)
		manyHarmony.WriteString("<|start|>assistant<|channel|>commentary to=functions.read_file <|constrain|>json<|message|>" + args + "<|call|>")
		manyFn.WriteString("read_file\n" + args)
		manyDS.WriteString("<｜tool▁call▁begin｜>read_file<｜tool▁sep｜>" + args + "<｜tool▁call▁end｜>")
		fmt.Fprintf(&manyKimi, "<|tool_call_begin|>functions.read_file:%d<|tool_call_argument_begin|>%s<|tool_call_end|>", i, args)
		fmt.Fprintf(&many, "Reading %d.\n<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": %q, \"offset\": %d, \"limit\": 200}}\n</tool_call>\n", i, path, i*10)
		manyXML.WriteString("<tool_call>\n<function=read_file>\n<parameter=path>\n" + path + "\n</parameter>\n</function>\n</tool_call>\n")
		if i > 0 {
			manyArray.WriteString(", ")
		}
		fmt.Fprintf(&manyArray, "{\"name\": \"read_file\", \"arguments\": {\"path\": %q, \"offset\": %d, \"limit\": 200}}", path, i*10)
	}
	manyArray.WriteString("]")
	manyDS.WriteString("<｜tool▁calls▁end｜>")
	manyKimi.WriteString("<|tool_calls_section_end|>")
	return []bigReply{
		{"hermes-many", "hermes", many.String(), calls},
		{"qwen3-coder-many", "qwen3-coder", manyXML.String(), calls},
		{"mistral-many", "mistral", manyArray.String(), calls},
		{"llama3-many", "llama3", manyLlama.String(), calls},
		{"harmony-many", "harmony", manyHarmony.String(), calls},
		{"functionary-v3.2-many", "functionary-v3.2", manyFn.String(), calls},
		{"deepseek-v3.1-many", "deepseek-v3.1", manyDS.String(), calls},
		{"kimi-k2-many", "kimi-k2", manyKimi.String(), calls},
		{"hermes", "hermes", "Writing it.\n<tool_call>\n{\"name\": \"write_file\", \"arguments\": " + a + "}\n</tool_call>", 1},
		{"hermes-content", "hermes", "<think>" + file + "</think>\n" + file, 0},
		{"qwen3-coder", "qwen3-coder", "Writing it.\n<tool_call>\n" + xml + "\n</tool_call>", 1},
		{"seed-oss", "seed-oss", "<seed:tool_call>\n" + xml + "\n</seed:tool_call>", 1},
		{"llama3", "llama3", `{"name": "write_file", "parameters": ` + a + `}`, 1},
		{"llama3-encoded", "llama3", `{"name": "write_file", "parameters": ` + quoted + `}`, 1},
		{"mistral", "mistral", `[TOOL_CALLS][{"name": "write_file", "arguments": ` + a + `, "id": "a1B2c3D4e"}]`, 1},
		{"mistral-args", "mistral", `[TOOL_CALLS]write_file[ARGS]` + a, 1},
		{"harmony", "harmony", "<|channel|>commentary to=functions.write_file <|constrain|>json<|message|>" + a + "<|call|>", 1},
		{"harmony-content", "harmony", "<|channel|>analysis<|message|>" + file + "<|end|><|start|>assistant<|channel|>final<|message|>" + file, 0},
		{"functionary-v3.1", "functionary-v3.1", "<function=write_file>" + a + "</function>", 1},
		{"functionary-v3.2", "functionary-v3.2", "write_file\n" + a, 1},
		{"firefunction-v2", "firefunction-v2", ` functools[{"name": "write_file", "arguments": ` + a + `}]`, 1},
		{"nemotron-v2", "nemotron-v2", `<TOOLCALL>[{"name": "write_file", "arguments": ` + a + `}]</TOOLCALL>`, 1},
		{"deepseek-r1", "deepseek-r1", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>write_file\n```json\n" + a + "\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>", 1},
		{"deepseek-v3.1", "deepseek-v3.1", "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>write_file<｜tool▁sep｜>" + a + "<｜tool▁call▁end｜><｜tool▁calls▁end｜>", 1},
		{"kimi-k2", "kimi-k2", "<|tool_calls_section_begin|><|tool_call_begin|>functions.write_file:0<|tool_call_argument_begin|>" + a + "<|tool_call_end|><|tool_calls_section_end|>", 1},
		{"prompt", "prompt", `{"tool": "write_file", "arguments": ` + a + `}`, 1},
		{"prompt-answer", "prompt", `{"answer": ` + chat.QuoteJSON(file) + `}`, 0},
	}
}
