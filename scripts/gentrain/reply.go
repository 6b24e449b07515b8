package main

import (
	"bytes"
	"encoding/json"
	"strings"
)

// arg is one argument of a call, in the order the model writes it.
type arg struct {
	key string
	val any // string or int
}

// call is the Hermes text of one tool call, as the Qwen 2.5 template
// renders a call of the history:
//
//	<tool_call>
//	{"name": "read_file", "arguments": {"path": "calc.go"}}
//	</tool_call>
//
// The arguments are written as the template's tojson writes them (keys in
// order, ", " and ": " separators, no HTML escaping), so that the rendered
// training text is the text the model is asked to write.
func call(name string, args ...arg) string {
	var b strings.Builder
	b.WriteString("<tool_call>\n{\"name\": ")
	b.WriteString(jsonText(name))
	b.WriteString(", \"arguments\": {")
	for i, a := range args {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(jsonText(a.key))
		b.WriteString(": ")
		b.WriteString(jsonText(a.val))
	}
	b.WriteString("}}\n</tool_call>")
	return b.String()
}

// jsonText is v as JSON without HTML escaping.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // strings and ints always encode
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// The calls of the default tools, with the arguments the ideal model
// gives.
func readFile(path string) string { return call("read_file", arg{"path", path}) }

// readRange reads limit lines of path from line offset.
func readRange(path string, offset, limit int) string {
	return call("read_file", arg{"path", path}, arg{"offset", offset}, arg{"limit", limit})
}

func writeFile(path, content string) string {
	return call("write_file", arg{"path", path}, arg{"content", content})
}

func editFile(path, old, new string) string {
	return call("edit_file", arg{"path", path}, arg{"old_string", old}, arg{"new_string", new})
}

func shell(command string) string     { return call("shell", arg{"command", command}) }
func listFiles(pattern string) string { return call("list_files", arg{"pattern", pattern}) }
func grep(pattern string) string      { return call("grep", arg{"pattern", pattern}) }

// goTest is the check command of a Go module, as gate.DetectCheck finds
// it and as users run it.
const goTest = "go test ./..."

// toolOf is the name of the tool a reply calls.
func toolOf(reply string) string {
	name, _, _ := strings.Cut(strings.TrimPrefix(reply, "<tool_call>\n{\"name\": \""), "\"")
	return name
}

// firstLine is the first line of s, without indentation.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}
