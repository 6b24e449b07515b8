package repair_test

import (
	"fmt"

	"github.com/loopagent/loop/agent/callformat"

	"github.com/loopagent/loop/agent/validate"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/repair"
)

func ExampleFixer() {
	tools, _ := chat.ParseTools([]byte(`[{"type": "function", "function": {"name": "read_file",
		"parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]`))
	v, _ := validate.New(tools)
	format, _ := callformat.New("hermes", tools)
	raw := "I will read it.\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\",}}\n```"
	parsed, fixes := repair.Fixer{Format: format, Check: repair.Validates(v)}.Fix(raw, format.Parse(raw))
	fmt.Printf("%q %v\n", parsed.Content, parsed.Calls[0].Function)
	fmt.Println(fixes[0].Kind, fixes[0].Repairs)
	// Output:
	// "I will read it." {read_file {"path":"pom.xml"}}
	// fenced [trailing comma]
}
