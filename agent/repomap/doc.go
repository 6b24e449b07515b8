// Package repomap builds a repository map: a short listing of a
// repository's files and their declarations that the agent puts in the
// prompt, so that the model knows where to look without reading
// directories and whole files to find out, which costs steps and context.
// It works like a book's table of contents.
//
//	m, err := repomap.Scan(root, repomap.Options{Tokens: 1024, Counter: tok, Mentioned: []string{"order/total.go"}})
//	prompt += m.Text
//
// Extraction: Go is parsed with go/parser (functions, methods with their
// receivers, types, exported constants and variables); Java, Python,
// JavaScript, TypeScript, Rust and C are read with regular expressions,
// a documented fallback for the tree-sitter grammars that a pure-Go
// package cannot use (see regex.go). Java's patterns are ported from the
// Java regular expressions of the project's specification
// (../shared/seeds), so that its map of a Java repository matches the one
// printed there; the tests compare them.
//
// Ranking: once a repository is larger than the budget, which files the
// map lists matters more than how they are read. Rank builds a graph with
// an edge from each file that uses an identifier to each file that
// defines it and ranks files with PageRank, as Aider does, with weight on
// the files and identifiers of the conversation.
//
// Budget: Build takes files in rank order while their rendered entries
// fit the token budget (the window strategy's repo-map setting: none below
// 16K, 1,024 tokens above), and lists them in path order.
package repomap
