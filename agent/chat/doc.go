// Package chat turns messages and tools into a model's prompt, and the
// model's text back into structured tool calls: what llama-server's --jinja
// and its tool-call parsing do, in process.
//
// Rendering runs the GGUF's own Jinja chat template (or its tool_use
// variant) with github.com/ardanlabs/jinja, keeping the JSON key order the
// caller wrote and the numbers of call arguments as the model wrote them.
// RenderPrompt is what loop sends a model: RewriteHistory first turns a
// history the template cannot render (calls, tool results, a system role,
// parallel calls, alternating roles) into one it can, as llama.cpp's
// template engine did, driven by the template's capabilities.
//
// A Format (Hermes/Qwen, Qwen3-Coder XML, Llama 3.x, Mistral, Harmony,
// Functionary v3.1, FireFunction v2, Nemotron v2, DeepSeek R1 and V3.1,
// Kimi K2, prompt-based JSON; see FormatNames) is detected from the
// template by rendering probe conversations, not from the model's name, and
// confirmed by reading the template's own probe call back; it gives the
// trigger and grammar of its calls, a parser that reports content,
// reasoning, calls and errors without panicking, and a streaming parser.
// Validate checks a reply before any call runs.
//
// The package is pure Go: it may use grammar/, and never llama/.
package chat
