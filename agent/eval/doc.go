// Package eval measures the agent: it runs scenarios against
// configurations of the reliability layer and reports pass rates with
// their uncertainty, as seed 000 Examples 9 and 13 do.
package eval
