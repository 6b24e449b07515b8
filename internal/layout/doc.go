// Package layout has no code of its own: its tests check the repository's
// structure, as the house style asks. Every package has a doc comment, only
// llama/ uses cgo, every package that does not need llama/ builds with
// CGO_ENABLED=0, and the agent's tools never import the model packages.
package layout
