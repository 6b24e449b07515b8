package repair_test

import (
	"fmt"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/repair"
)

func ExampleFixer() {
	tools, _ := chat.ParseTools([]byte(`[{"type": "function", "function": {"name": "read_file",
		"parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]}}}]`))
	v, _ := chat.NewValidator(tools)
	format, _ := chat.NewFormat("hermes", tools)
	raw := "I will read it.\n```json\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"pom.xml\",}}\n```"
	parsed, fixes := repair.Fixer{Format: format, Check: repair.Validates(v)}.Fix(raw, format.Parse(raw))
	fmt.Printf("%q %v\n", parsed.Content, parsed.Calls[0].Function)
	fmt.Println(fixes[0].Kind, fixes[0].Repairs)
	// Output:
	// "I will read it." {read_file {"path":"pom.xml"}}
	// fenced [trailing comma]
}
