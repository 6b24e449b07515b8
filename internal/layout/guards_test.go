package layout

import (
	"slices"
	"testing"
)

// guards are the agent's reliability guards: pure Go over agent/chat, agent/callformat and
// grammar, replayable without a model.
var guards = []string{"agent/repair", "agent/classify", "agent/loopguard", "agent/lint", "agent/fewshot", "agent/retry"}

// modelPackages are what a guard never imports.
var modelPackages = []string{module + "/llama", module + "/engine", module + "/agent/local"}

func TestGuardsDoNotImportTheModel(t *testing.T) {
	found := 0
	for _, p := range listPackages(t) {
		if !slices.Contains(guards, p.ImportPath[min(len(module)+1, len(p.ImportPath)):]) {
			continue
		}
		found++
		for _, m := range modelPackages {
			if slices.Contains(p.Deps, m) {
				t.Errorf("guard %s depends on %s; guards check text and schemas, never the model", p.ImportPath, m)
			}
		}
	}
	if found != len(guards) {
		t.Errorf("found %d of the %d guard packages %v", found, len(guards), guards)
	}
}
