// Package local runs OpenAI-style chat completions on a GGUF model in
// process: what llama-server's /v1/chat/completions does, without a server.
//
// A Client renders the messages and tools with the model's own chat
// template, constrains tool calls with the grammar of the template's call
// format (tool_choice auto, required, none or a named function), generates
// with the KV cache of the previous request reused, parses the output as it
// streams, and validates the calls before anyone runs them:
//
//	c, _ := local.New(model, local.Options{ContextSize: 8192})
//	defer c.Close()
//	resp, err := c.Complete(ctx, local.Request{Messages: msgs, Tools: tools,
//		ToolChoice: grammar.Choice{Mode: grammar.ChoiceRequired}, Sampling: cfg, MaxTokens: 256})
//	// resp.Message.ToolCalls, resp.FinishReason, resp.Violations
//
// A final assistant message is continued (a prefill), as llama-server does:
// the prompt ends with its content, and the grammar is fed that content
// before the first token is sampled.
package local
