// Package grammar builds GBNF grammars, llama.cpp's grammar format, in Go:
// a parser and printer for GBNF that round-trip, a JSON Schema to GBNF
// converter, and the tool-call grammars an agent constrains a model with.
//
// Every grammar it emits also parses with llama.cpp's own parser; the
// engine package's tests check each golden grammar there.
package grammar
