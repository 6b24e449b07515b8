package mcp

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The SDK decodes a tool's input schema into a map, which loses the order
// of its keys; but the order of "properties" is the order the model reads
// them in and, past a few optional ones, the order the call grammar takes
// them in. So the transport keeps each listed tool's schema as the server
// wrote it.

// schemaCapture holds the input schemas of the tools a server listed, as
// written, by tool name. It is safe for concurrent use.
type schemaCapture struct {
	mu      sync.Mutex
	schemas map[string]json.RawMessage
}

// note reads a response's result as a page of tools/list, if it is one.
func (c *schemaCapture) note(result json.RawMessage) {
	var page struct {
		Tools []struct {
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"inputSchema"`
		} `json:"tools"`
	}
	if json.Unmarshal(result, &page) != nil || len(page.Tools) == 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.schemas == nil {
		c.schemas = map[string]json.RawMessage{}
	}
	for _, t := range page.Tools {
		if t.Name != "" && len(t.InputSchema) > 0 {
			c.schemas[t.Name] = t.InputSchema
		}
	}
}

// schema is the schema of the named tool as the server wrote it, or, when
// none was seen, the SDK's decoded one encoded again.
func (c *schemaCapture) schema(t *sdk.Tool) json.RawMessage {
	c.mu.Lock()
	raw, ok := c.schemas[t.Name]
	c.mu.Unlock()
	if ok {
		return raw
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil || string(b) == "null" {
		return json.RawMessage(`{"type": "object"}`)
	}
	return b
}

// captureTransport is a transport whose connection shows every response
// to a schemaCapture.
type captureTransport struct {
	sdk.Transport
	seen *schemaCapture
}

func (t *captureTransport) Connect(ctx context.Context) (sdk.Connection, error) {
	conn, err := t.Transport.Connect(ctx)
	if err != nil {
		return nil, err
	}
	return captureConn{conn, t.seen}, nil
}

type captureConn struct {
	sdk.Connection
	seen *schemaCapture
}

func (c captureConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if r, ok := msg.(*jsonrpc.Response); ok && len(r.Result) > 0 {
		c.seen.note(r.Result)
	}
	return msg, err
}
