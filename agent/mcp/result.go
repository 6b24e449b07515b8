package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/loopagent/loop/agent/tools"
)

// result turns a server's answer into what the model reads: the text of
// each content block, one after another; a note for an image, audio or a
// resource without text (the model reads text only); the structured
// content as JSON when there is no other. It is cut to the workspace's
// ResultChars by whole lines from the start, as read_file's output is: a
// tool's answer is a document or a list, read from its top, and the
// marker says how much was cut.
func (t *Tool) result(ws *tools.Workspace, res *sdk.CallToolResult) tools.Result {
	var parts []string
	for _, c := range res.Content {
		if s := contentText(c); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 && res.StructuredContent != nil {
		if b, err := json.Marshal(res.StructuredContent); err == nil {
			parts = append(parts, string(b))
		}
	}
	text := strings.Join(parts, "\n")
	if res.IsError {
		if text == "" {
			text = "the tool failed and said nothing"
		}
		text = t.name + " failed: " + text
	} else if text == "" {
		text = "(the tool returned nothing)"
	}
	limit := tools.ToolCapForWindow(8192)
	if ws != nil {
		limit = ws.Config().ResultChars
	}
	text = tools.TruncateHeadTail(text, 1<<30, 0, limit)
	return tools.Result{Content: text, IsError: res.IsError}
}

// contentText is one content block as text.
func contentText(c sdk.Content) string {
	switch c := c.(type) {
	case *sdk.TextContent:
		return c.Text
	case *sdk.ImageContent:
		return fmt.Sprintf("[an image, %s, %d bytes, not shown]", c.MIMEType, len(c.Data))
	case *sdk.AudioContent:
		return fmt.Sprintf("[audio, %s, %d bytes, not shown]", c.MIMEType, len(c.Data))
	case *sdk.ResourceLink:
		return fmt.Sprintf("[resource %s: %s]", c.Name, c.URI)
	case *sdk.EmbeddedResource:
		if c.Resource == nil {
			return ""
		}
		if c.Resource.Text != "" {
			return c.Resource.Text
		}
		return fmt.Sprintf("[resource %s, %s, %d bytes, not shown]", c.Resource.URI, c.Resource.MIMEType, len(c.Resource.Blob))
	}
	return ""
}
