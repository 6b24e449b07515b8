package main

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Show writes what the manifest recorded: the losses and the evaluation.
func Show(w io.Writer, m *Manifest) error {
	stages, err := m.stages()
	if err != nil {
		return err
	}
	showStages(w, stages, m.Growths)
	if m.EvalNote != "" {
		fmt.Fprintf(w, "evaluation measured again: %s\n", m.EvalNote)
	}
	for _, e := range m.Eval {
		fmt.Fprintf(w, "%s: %d tasks x %d seeds, pass rate with its 95%% Wilson interval:\n", e.Name, e.Scenarios, e.Seeds)
		var configs []string
		for _, g := range e.Groups {
			if !slices.Contains(configs, g.Config) {
				configs = append(configs, g.Config)
			}
		}
		fmt.Fprintf(w, "  %-26s", "")
		for _, c := range configs {
			fmt.Fprintf(w, "  %-30s", c)
		}
		fmt.Fprintln(w)
		var groups []string
		for _, g := range e.Groups {
			if !slices.Contains(groups, g.Group) {
				groups = append(groups, g.Group)
			}
		}
		for _, name := range groups {
			fmt.Fprintf(w, "  %-26s", name)
			for _, c := range configs {
				for _, g := range e.Groups {
					if g.Group == name && g.Config == c {
						fmt.Fprintf(w, "  %-7s %-22s", g.Pass.Fraction(), g.Pass)
					}
				}
			}
			fmt.Fprintln(w)
		}
		for _, s := range e.Summaries {
			fmt.Fprintf(w, "  %s: replies that parse as a call or an answer %s %s\n", s.Config, s.Usable.Fraction(), s.Usable)
		}
		for _, c := range e.Comparisons {
			fmt.Fprintf(w, "  %s\n", c)
		}
	}
	return nil
}

// showStages writes each training stage's losses, and the growths
// between stages.
func showStages(w io.Writer, stages []training, growths []Growth) {
	for i, tr := range stages {
		for _, g := range growths {
			if i > 0 && g.From.SHA256 == stages[i-1].Model.SHA256 && g.To.SHA256 == tr.Base.SHA256 {
				fmt.Fprintf(w, "grown by scripts/growmodel: %s (%d bytes) into %s (%d bytes)\n", g.From.Path, g.From.Size, g.To.Path, g.To.Size)
			}
		}
		if len(stages) > 1 {
			fmt.Fprintf(w, "stage %d: ", i+1)
		}
		fmt.Fprintf(w, "trained %d epochs on %d chats (%d held out) from %s: held-out loss %.4f before,",
			tr.Epoch, tr.Report.Chats, tr.Report.HeldOut, tr.Base.Path, tr.Report.Before)
		secs := 0.0
		for _, e := range tr.Report.Epochs {
			fmt.Fprintf(w, " %.4f", e.EvalLoss)
			secs += e.Seconds
		}
		fmt.Fprintf(w, " by epoch (%.0f s of training)\n", secs)
	}
}

// Check reads dir's manifest and checks that the model file and the suite
// are those it describes.
func Check(dir string) (*Manifest, error) {
	m, err := checkModel(dir)
	if err != nil {
		return nil, err
	}
	suite, err := hashTree(filepath.Join(dir, SuiteDir))
	if err != nil {
		return nil, err
	}
	if suite != m.Suite {
		return nil, fmt.Errorf("%s: sha256 %s; %s says %s", filepath.Join(dir, SuiteDir), suite, filepath.Join(dir, ManifestFile), m.Suite)
	}
	return m, nil
}

// checkModel reads dir's manifest and compares the model file with it.
func checkModel(dir string) (*Manifest, error) {
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	got, err := fileOf(filepath.Join(dir, ModelFile))
	if err != nil {
		return nil, err
	}
	if got.Size != m.Model.Size || got.SHA256 != m.Model.SHA256 {
		return nil, fmt.Errorf("%s: %d bytes, sha256 %s; %s says %d bytes, sha256 %s",
			filepath.Join(dir, ModelFile), got.Size, got.SHA256, path, m.Model.Size, m.Model.SHA256)
	}
	return &m, nil
}

// fileOf is path's size and SHA-256, named by its base name.
func fileOf(path string) (File, error) {
	f, err := os.Open(path)
	if err != nil {
		return File{}, err
	}
	defer f.Close()
	h := sha256.New()
	n, err := io.Copy(h, f)
	if err != nil {
		return File{}, fmt.Errorf("%s: %w", path, err)
	}
	return File{Path: filepath.Base(path), Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// hashTree is the SHA-256 of the regular files under dir: each file's
// slash-separated path relative to dir, a NUL, its SHA-256, a newline, in
// the order of the paths. Anything but a directory or a regular file is
// refused.
func hashTree(dir string) (string, error) {
	var lines []string
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			return nil
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s: not a regular file", path)
		}
		f, err := fileOf(path)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		lines = append(lines, filepath.ToSlash(rel)+"\x00"+f.SHA256+"\n")
		return nil
	})
	if err != nil {
		return "", err
	}
	slices.Sort(lines)
	h := sha256.Sum256([]byte(strings.Join(lines, "")))
	return hex.EncodeToString(h[:]), nil
}
