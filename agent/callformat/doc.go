// Package callformat reads tool calls out of a model's text, in the
// format the model was trained to write them, and gives the grammar that
// keeps the model inside that format.
//
// A Format is one of fifteen (Hermes/Qwen, Qwen3-Coder XML, Llama 3.x,
// Mistral, Harmony, Functionary v3.1 and v3.2, FireFunction v2, Nemotron
// v2, DeepSeek R1 and V3.1, Kimi K2, Seed-OSS, Command R7B, prompt-based
// JSON; see Names). Each lives in its own parse_*.go file with a drawing
// of its text at the top. Detect finds the format of a chat.Template by
// rendering a probe call, not from the model's name, and confirms it by
// reading the template's own call back with the format's parser:
//
//	d := callformat.Detect(tmpl)      // d.Format, d.Reason
//	f, err := callformat.New(d.Format, tools)
//	p := f.Parse(text)                // p.Content, p.Reasoning, p.Calls, p.Problems

// A parser never panics: what it cannot read is a Problem (Unterminated,
// InvalidJSON, NoName, ArgsNotObject, OutsideFormat, Malformed) with the
// text left as content. A StreamParser reads the same text piece by piece
// and reports Deltas that add up to what Parse returns for the whole;
// UniqueIDs gives each call an id no call of the conversation has, and
// FitIDs maps ids to what a template accepts (Mistral's nine characters).
//
// Validation of the calls against the tools' schemas is agent/validate;
// rendering is agent/chat. The package is pure Go.
package callformat
