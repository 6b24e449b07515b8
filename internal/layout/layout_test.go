package layout

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

const module = "github.com/loopagent/loop"

// cgoAllowed are the packages that may depend on llama/ and so on cgo.
// scripts/growmodel is pure Go; its test loads the grown model to compare
// its logits with the source's.
var cgoAllowed = []string{module + "/llama", module + "/engine", module + "/agent/local", module + "/agent/train", module + "/cmd/loop",
	module + "/scripts/growmodel"}

type pkg struct {
	ImportPath string
	Doc        string
	Dir        string
	CgoFiles   []string
	Deps       []string
}

func listPackages(t *testing.T) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-json", "./...")
	cmd.Dir = filepath.Join("..", "..")
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, errb.String())
	}
	var pkgs []pkg
	dec := json.NewDecoder(&out)
	for dec.More() {
		var p pkg
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 3 {
		t.Fatalf("go list found %d packages", len(pkgs))
	}
	return pkgs
}

func TestEveryPackageHasDoc(t *testing.T) {
	for _, p := range listPackages(t) {
		if strings.TrimSpace(p.Doc) == "" {
			t.Errorf("package %s has no doc comment", p.ImportPath)
		}
	}
}

func TestOnlyLlamaUsesCgo(t *testing.T) {
	for _, p := range listPackages(t) {
		if len(p.CgoFiles) > 0 && p.ImportPath != module+"/llama" {
			t.Errorf("package %s imports \"C\" in %v; only llama/ may", p.ImportPath, p.CgoFiles)
		}
		if slices.Contains(p.Deps, module+"/llama") && !slices.Contains(cgoAllowed, p.ImportPath) {
			t.Errorf("package %s depends on llama/; keep it pure Go or add it to cgoAllowed on purpose", p.ImportPath)
		}
	}
}

func TestPureGoPackagesBuildWithoutCgo(t *testing.T) {
	var pure []string
	for _, p := range listPackages(t) {
		if !slices.Contains(cgoAllowed, p.ImportPath) {
			pure = append(pure, p.ImportPath)
		}
	}
	cmd := exec.Command("go", append([]string{"vet"}, pure...)...)
	cmd.Dir = filepath.Join("..", "..")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("CGO_ENABLED=0 go vet %v: %v\n%s", pure, err, out)
	}
}

// toolForbidden are the packages that know about models, templates and
// call formats. The agent's tools work on a workspace and must not.
var toolForbidden = []string{module + "/llama", module + "/engine", module + "/agent/local", module + "/agent/chat", module + "/agent/callformat", module + "/agent/validate"}

func TestToolsNeverImportModelPackages(t *testing.T) {
	found := false
	for _, p := range listPackages(t) {
		if p.ImportPath != module+"/agent/tools" && !strings.HasPrefix(p.ImportPath, module+"/agent/tools/") {
			continue
		}
		found = true
		for _, m := range toolForbidden {
			if slices.Contains(p.Deps, m) {
				t.Errorf("package %s depends on %s; tools must not know about the model", p.ImportPath, m)
			}
		}
	}
	if !found {
		t.Errorf("no package %s/agent/tools", module)
	}
}

// TestContextPackagesKnowNoModel: the context packages (budget, history,
// instructions, repository map, todos) work on messages and text; the
// agent gives them a token counter and a summarizer. They never reach a
// model, an engine or the tools.
func TestContextPackagesKnowNoModel(t *testing.T) {
	pure := []string{module + "/agent/window", module + "/agent/instructions", module + "/agent/repomap", module + "/agent/todo"}
	banned := []string{module + "/llama", module + "/engine", module + "/agent/local", module + "/agent/model", module + "/agent/tools"}
	found := 0
	for _, p := range listPackages(t) {
		if !slices.Contains(pure, p.ImportPath) {
			continue
		}
		found++
		for _, b := range banned {
			if slices.Contains(p.Deps, b) {
				t.Errorf("package %s depends on %s", p.ImportPath, b)
			}
		}
	}
	if found != len(pure) {
		t.Errorf("found %d of the context packages %v", found, pure)
	}
}

// TestMeasurementSitsOnTop: the measurement packages (agent/eval,
// agent/choose) drive the agent from above. No agent package depends on
// them, only the commands (cmd/loop, scripts/demomodel, which records the
// demo model's evaluation) and each other, so that measuring never
// changes what is measured.
func TestMeasurementSitsOnTop(t *testing.T) {
	top := []string{module + "/agent/eval", module + "/agent/choose"}
	found := 0
	for _, p := range listPackages(t) {
		if slices.Contains(top, p.ImportPath) {
			found++
		}
		if slices.Contains(top, p.ImportPath) || p.ImportPath == module+"/cmd/loop" || p.ImportPath == module+"/scripts/demomodel" {
			continue
		}
		for _, m := range top {
			if slices.Contains(p.Deps, m) {
				t.Errorf("package %s depends on %s; only cmd/loop may", p.ImportPath, m)
			}
		}
	}
	if found != len(top) {
		t.Errorf("found %d of the packages %v", found, top)
	}
}

// TestSessionsKnowNoEngine: agent/session keeps files (transcripts, KV
// states as bytes with their key) and reaches the model only through
// model.StateKeeper; the agent loop does not know sessions exist.
func TestSessionsKnowNoEngine(t *testing.T) {
	const sess = module + "/agent/session"
	banned := []string{module + "/llama", module + "/engine", module + "/agent/local", module + "/agent/loop"}
	found := false
	for _, p := range listPackages(t) {
		if p.ImportPath == module+"/agent/loop" && slices.Contains(p.Deps, sess) {
			t.Errorf("package %s depends on %s", p.ImportPath, sess)
		}
		if p.ImportPath != sess {
			continue
		}
		found = true
		for _, b := range banned {
			if slices.Contains(p.Deps, b) {
				t.Errorf("package %s depends on %s", p.ImportPath, b)
			}
		}
	}
	if !found {
		t.Errorf("no package %s", sess)
	}
}
