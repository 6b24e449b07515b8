// Package sandbox runs the commands of a coding agent so that nothing they
// do outlives them or reaches outside the workspace.
package sandbox
