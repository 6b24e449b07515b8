// Package chat turns messages and tools into a model's prompt, and the
// model's text back into structured tool calls: what llama-server's --jinja
// and its tool-call parsing do, in process.
//
// Rendering runs the GGUF's own Jinja chat template (or its tool_use
// variant) with github.com/ardanlabs/jinja, keeping the JSON key order the
// caller wrote. A Format (Hermes/Qwen, Qwen3-Coder XML, Llama 3.x, Mistral,
// Harmony, prompt-based JSON) is detected from the template by rendering
// probe conversations, not from the model's name; it gives the trigger and
// grammar of its calls, a parser that reports content, reasoning, calls and
// errors without panicking, and a streaming parser. Validate checks a reply
// before any call runs.
//
// The package is pure Go: it may use grammar/, and never llama/.
package chat
