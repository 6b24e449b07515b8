package eval

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/loopagent/loop/agent/tools"
)

// seedTool is one tool of SuiteSeed13's fake workspace: total() returns
// 27 until an edit replaces "27", and the tests pass only after it.
// Nothing touches the disk.
type seedTool struct {
	name, params string
	ws           *seedWorkspace
}

// seedWorkspace is the fake workspace's one bit of state.
type seedWorkspace struct{ edited bool }

func (t seedTool) Name() string        { return t.name }
func (t seedTool) Description() string { return "The seed's " + t.name + ", on a fake workspace." }
func (t seedTool) ReadOnly() bool      { return t.name == "read_file" }
func (t seedTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type": "object", "properties": {` + t.params + `}, "required": [` + required(t.params) + `]}`)
}

// required lists the names of a properties list.
func required(params string) string {
	var names []string
	for _, p := range strings.Split(params, "},") {
		name, _, _ := strings.Cut(strings.TrimSpace(p), ":")
		names = append(names, name)
	}
	return strings.Join(names, ", ")
}

func (t seedTool) Run(_ context.Context, _ *tools.Workspace, args json.RawMessage) (tools.Result, error) {
	var a map[string]string
	json.Unmarshal(args, &a)
	switch t.name {
	case "read_file":
		return tools.Result{Content: "int total() { return 27; }", Read: []string{a["path"]}}, nil
	case "edit_file":
		t.ws.edited = t.ws.edited || a["old_string"] == "27"
		return tools.Result{Content: "edited", Changed: []string{a["path"]}}, nil
	}
	if t.ws.edited {
		return tools.Result{Content: "exit 0", Command: a["command"], Ran: true}, nil
	}
	return tools.Result{Content: "exit 1, expected 30 but was 27", ExitCode: 1, Command: a["command"], Ran: true}, nil
}

// seedTools returns a fresh fake workspace's tools: read_file, edit_file
// and shell with required string arguments.
func seedTools() *tools.Set {
	ws := &seedWorkspace{}
	str := `{"type": "string"}`
	set, err := tools.NewSet(
		seedTool{"read_file", `"path": ` + str, ws},
		seedTool{"edit_file", `"path": ` + str + `, "old_string": ` + str + `, "new_string": ` + str, ws},
		seedTool{"shell", `"command": ` + str, ws})
	if err != nil {
		panic(err) // three distinct names
	}
	return set
}
