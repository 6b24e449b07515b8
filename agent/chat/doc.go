// Package chat holds the conversation and turns it into a model's prompt:
// what llama-server's --jinja does, in process.
//
// Message, ToolCall and Tool are the OpenAI Chat Completions shapes, and
// their JSON keeps what the caller wrote (content as a string, typed parts
// or null; arguments as text, with their key order and numbers).
//
// A Template runs the GGUF's own Jinja chat template (or its tool_use
// variant) with github.com/ardanlabs/jinja. Its Caps are probed by
// rendering small conversations, not read from the model's name: whether
// it renders tools, calls, results, a system role, parallel calls, object
// arguments. RenderPrompt is what loop sends a model:
//
//	p, err := tmpl.RenderPrompt(chat.PromptInput{Messages: msgs, Tools: tools, Format: "hermes", AddGenerationPrompt: true})
//	// p.Text is the prompt; p.Rewrites says what RewriteHistory changed
//
// RewriteHistory first turns a history the template cannot render (calls,
// tool results, a system role, parallel calls, roles that must alternate)
// into one it can, as llama.cpp's template engine does. With the
// prompt-based format the tools are described in the system message
// (WithPromptTools) instead.
//
// The model's text goes the other way in agent/callformat (call formats:
// detection, grammars, parsers) and agent/validate (the checks before a
// call runs). The package is pure Go: it may use grammar/, and never
// llama/.
package chat
