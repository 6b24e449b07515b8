package engine_test

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/loopagent/loop/grammar"
)

// realTools returns n tool definitions of real size: several KB of schema
// each, with long descriptions, enums, nested objects, arrays, bounded
// strings, patterns and integer ranges, like the 60-tool request of
// llama.cpp #30056.
func realTools(n int) []grammar.Tool {
	tools := make([]grammar.Tool, n)
	desc := func(i, j int) string {
		return fmt.Sprintf("Parameter %d of tool %d. %s", j, i, strings.Repeat("It is described at length, as MCP servers describe their tools, with examples and caveats. ", 3))
	}
	for i := range tools {
		props := map[string]any{
			"path":      map[string]any{"type": "string", "description": desc(i, 0), "maxLength": 4096},
			"mode":      map[string]any{"type": "string", "enum": []string{"read", "write", "append", "truncate"}, "description": desc(i, 1)},
			"offset":    map[string]any{"type": "integer", "minimum": 0, "maximum": 1000000, "description": desc(i, 2)},
			"recursive": map[string]any{"type": "boolean", "description": desc(i, 3)},
			"tags":      map[string]any{"type": "array", "items": map[string]any{"type": "string", "maxLength": 64}, "maxItems": 8, "description": desc(i, 4)},
			"options": map[string]any{"type": "object", "description": desc(i, 5), "properties": map[string]any{
				"encoding": map[string]any{"type": "string", "enum": []string{"utf-8", "latin-1"}},
				"timeout":  map[string]any{"type": "number"},
			}, "required": []string{"encoding"}},
			"pattern": map[string]any{"type": "string", "pattern": "^[a-z0-9_./-]+$", "description": desc(i, 6)},
			"when":    map[string]any{"type": "string", "format": "date-time", "description": desc(i, 7)},
		}
		params, _ := json.Marshal(map[string]any{"type": "object", "properties": props, "required": []string{"path", "mode"}})
		tools[i] = grammar.Tool{Name: fmt.Sprintf("tool_%03d", i), Parameters: params}
	}
	return tools
}
