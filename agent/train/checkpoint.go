package train

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"

	"github.com/loopagent/loop/llama"
)

// A checkpoint is a folder that holds what a stopped run needs to go on
// exactly as if it had not stopped:
//
//	manifest.json           the Manifest: epochs done, recipe, hashes, losses
//	epoch-0003-model.gguf   the weights after epoch 3 (llama.Trainer.SaveFile), a model to run
//	epoch-0003-adamw.gguf   AdamW's state (llama.Trainer.SaveOptimizer)
//
// Each file is written under a temporary name, synced and renamed. The
// manifest goes last and names its epoch's files, and the files of the
// epochs before are removed only after it, so a run killed at any moment
// leaves a whole checkpoint: the old manifest and files, or the new.
//
// The rest of what decides the next step is recomputed: each step's
// learning rate from the schedule, the epoch and the number of windows,
// and the order of the windows by replaying every epoch's shuffle from the
// seed (the manifest records the shuffle's state, and Resume checks that
// the replay reaches it). Resume refuses, with ErrCheckpoint and the
// file's name, a checkpoint of another base model (the file's SHA-256),
// other chats (hashChats) or another recipe (the Config less Threads and
// Checkpoint), and a file whose size or SHA-256 is not the manifest's.
// Threads may differ: ggml sums the loss by thread, so the losses
// reported may then differ in their last bits.

// ManifestFile is the name of a checkpoint's manifest in its folder.
const ManifestFile = "manifest.json"

// manifestFormat is the version of Manifest that Resume reads.
const manifestFormat = 1

// Manifest is a checkpoint's manifest.json.
type Manifest struct {
	Format    int    `json:"format"`        // 1
	Epoch     int    `json:"epoch"`         // the epochs done, from 1
	Steps     int    `json:"steps"`         // the optimizer steps done
	Recipe    Config `json:"recipe"`        // the Config, with its defaults
	Base      File   `json:"base"`          // the base model
	Data      string `json:"data_sha256"`   // hashChats of the chats
	Shuffle   []byte `json:"shuffle_state"` // the window shuffle's state after the epoch's shuffle
	Report    Report `json:"report"`        // the counts and the losses of the epochs done
	Model     File   `json:"model"`         // the weights, in the folder
	Optimizer File   `json:"optimizer"`     // AdamW's state, in the folder
}

// File is a file of a checkpoint, or its base, as it was written.
type File struct {
	Path   string `json:"path"` // a name in the folder; for the base, its path as the Trainer was given it
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}

// save writes the checkpoint of epoch e, whose report is rep, into the
// Config's folder.
func (p *Plan) save(ctx context.Context, tr *llama.Trainer, rep Report, e int) error {
	dir := p.cfg.Checkpoint
	fail := func(path string, err error) error { return &Error{Op: "checkpoint", Path: path, Err: err} }
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fail(dir, err)
	}
	m := Manifest{Format: manifestFormat, Epoch: e, Steps: tr.Steps(), Recipe: p.cfg, Data: p.data, Report: rep}
	var err error
	if m.Base, err = p.baseFile(tr); err != nil {
		return fail(tr.Base(), err)
	}
	if m.Shuffle, err = p.src.MarshalBinary(); err != nil {
		return fail(dir, err)
	}
	name := fmt.Sprintf("epoch-%04d", e)
	m.Model.Path, m.Optimizer.Path = name+"-model.gguf", name+"-adamw.gguf"
	if err := tr.SaveFile(ctx, filepath.Join(dir, m.Model.Path)); err != nil {
		return err
	}
	if err := tr.SaveOptimizer(ctx, filepath.Join(dir, m.Optimizer.Path)); err != nil {
		return err
	}
	for _, f := range []*File{&m.Model, &m.Optimizer} {
		name := f.Path
		if *f, err = hashFile(filepath.Join(dir, name)); err != nil {
			return fail(filepath.Join(dir, name), err)
		}
		f.Path = name
	}
	if err := writeManifest(dir, m); err != nil {
		return fail(filepath.Join(dir, ManifestFile), err)
	}
	prune(dir, m)
	return nil
}

// baseFile returns the hash of tr's base, computed once.
func (p *Plan) baseFile(tr *llama.Trainer) (File, error) {
	if p.base.Path != tr.Base() {
		f, err := hashFile(tr.Base())
		if err != nil {
			return File{}, err
		}
		p.base = f
	}
	return p.base, nil
}

// hashFile returns the size and SHA-256 of the file at path.
func hashFile(path string) (File, error) {
	r, err := os.Open(path)
	if err != nil {
		return File{}, err
	}
	defer r.Close()
	h := sha256.New()
	n, err := io.Copy(h, r)
	if err != nil {
		return File{}, err
	}
	return File{Path: path, Size: n, SHA256: hex.EncodeToString(h.Sum(nil))}, nil
}

// writeManifest writes m into dir under a temporary name, syncs it, and
// renames it over the manifest.
func writeManifest(dir string, m Manifest) error {
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+ManifestFile+".tmp-*")
	if err != nil {
		return err
	}
	_, err = f.Write(append(b, '\n'))
	if err == nil {
		err = f.Chmod(0o644)
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), filepath.Join(dir, ManifestFile))
	}
	if err != nil {
		os.Remove(f.Name())
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync() // the rename itself
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// prune removes the files of other epochs and the temporary files a
// killed run left. It is best effort: a file left behind takes room but
// is never read, since only the manifest names files.
func prune(dir string, m Manifest) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		n := e.Name()
		if n == m.Model.Path || n == m.Optimizer.Path {
			continue
		}
		for _, pat := range []string{"epoch-*-model.gguf", "epoch-*-adamw.gguf", ".epoch-*.tmp-*", "." + ManifestFile + ".tmp-*"} {
			if ok, _ := filepath.Match(pat, n); ok {
				os.Remove(filepath.Join(dir, n))
				break
			}
		}
	}
}

// claim refuses a checkpoint folder that holds the checkpoint of another
// run: one that p did not resume from.
func (p *Plan) claim() error {
	dir := p.cfg.Checkpoint
	if dir == "" {
		return nil
	}
	m, err := readManifest(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case p.resumed != "" && sameFile(p.resumed, dir):
		return nil
	case err != nil:
		return err
	}
	msg := fmt.Sprintf("holds the checkpoint of another run (epoch %d of %d): resume it, or checkpoint into another folder", m.Epoch, m.Recipe.Epochs)
	return &Error{Op: "checkpoint", Path: dir, Err: &described{msg, ErrCheckpoint}}
}

func sameFile(a, b string) bool {
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// readManifest reads and checks the manifest of the checkpoint in dir.
func readManifest(dir string) (Manifest, error) {
	var m Manifest
	path := filepath.Join(dir, ManifestFile)
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		msg := "no checkpoint here (no " + ManifestFile + ")"
		if st, serr := os.Stat(dir); serr != nil || !st.IsDir() {
			msg = "no such folder"
		}
		return m, &Error{Op: "resume", Path: dir, Err: &described{msg, fs.ErrNotExist}}
	}
	if err != nil {
		return m, &Error{Op: "resume", Path: path, Err: err}
	}
	bad := func(msg string) (Manifest, error) {
		return m, &Error{Op: "resume", Path: path, Err: &described{msg, ErrCheckpoint}}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return bad("not a checkpoint's manifest: " + err.Error())
	}
	switch {
	case m.Format != manifestFormat:
		return bad(fmt.Sprintf("manifest format %d, want %d", m.Format, manifestFormat))
	case m.Epoch < 1 || m.Epoch > m.Recipe.Epochs || len(m.Report.Epochs) != m.Epoch:
		return bad(fmt.Sprintf("epoch %d of %d with %d epochs reported", m.Epoch, m.Recipe.Epochs, len(m.Report.Epochs)))
	case !plainName(m.Model.Path) || !plainName(m.Optimizer.Path):
		return bad(fmt.Sprintf("the files %q and %q are not names in the folder", m.Model.Path, m.Optimizer.Path))
	}
	return m, nil
}

func plainName(n string) bool {
	return n != "" && n != "." && n != ".." && !strings.ContainsAny(n, `/\`)
}

// Resume restores the checkpoint in dir, which a run of the same base,
// chats and recipe wrote: tr's weights and optimizer state, the order of
// the windows, and the report of the epochs done. Run then goes on from
// the next epoch to the same model, bit for bit, as a run that never
// stopped (with the same Threads). p must come fresh from Prepare and tr
// from llama.NewTrainer with the Config's TrainParams. It returns the
// checkpoint's manifest.
//
// A folder without a checkpoint is an error wrapping fs.ErrNotExist; a
// checkpoint of another run, or with a file truncated, altered or
// missing, is refused with ErrCheckpoint naming the file before tr
// changes. After an error, make a new Plan and Trainer.
func (p *Plan) Resume(ctx context.Context, tr *llama.Trainer, dir string) (Manifest, error) {
	if p.done > 0 || tr.Steps() > 0 {
		return Manifest{}, &Error{Op: "resume", Path: dir, Err: errors.New("resume a fresh plan and trainer")}
	}
	m, err := readManifest(dir)
	if err != nil {
		return m, err
	}
	if err := p.matches(tr, m); err != nil {
		return m, &Error{Op: "resume", Path: filepath.Join(dir, ManifestFile), Err: err}
	}
	for _, f := range []File{m.Model, m.Optimizer} {
		if err := checkFile(filepath.Join(dir, f.Path), f); err != nil {
			return m, err
		}
	}
	if err := tr.LoadWeights(ctx, filepath.Join(dir, m.Model.Path)); err != nil {
		return m, err
	}
	if err := tr.LoadOptimizer(ctx, filepath.Join(dir, m.Optimizer.Path)); err != nil {
		return m, err
	}
	bad := func(path, msg string) (Manifest, error) {
		return m, &Error{Op: "resume", Path: path, Err: &described{msg, ErrCheckpoint}}
	}
	if tr.Steps() != m.Steps {
		return bad(filepath.Join(dir, m.Optimizer.Path), fmt.Sprintf("%d optimizer steps, the manifest says %d", tr.Steps(), m.Steps))
	}
	for e := 1; e <= m.Epoch; e++ {
		p.order(e)
	}
	if state, err := p.src.MarshalBinary(); err != nil || !bytes.Equal(state, m.Shuffle) {
		return bad(filepath.Join(dir, ManifestFile), "the shuffle of the windows does not replay to the recorded state")
	}
	p.done, p.resumed = m.Epoch, dir
	p.Report.Before, p.Report.Epochs = m.Report.Before, m.Report.Epochs
	return m, nil
}

// matches says why m is not a checkpoint of p's run on tr's base: another
// recipe, other chats, or another base model.
func (p *Plan) matches(tr *llama.Trainer, m Manifest) error {
	if diff := recipeDiff(m.Recipe, p.cfg); diff != "" {
		return &described{"made with another recipe: " + diff, ErrCheckpoint}
	}
	if m.Data != p.data {
		return &described{fmt.Sprintf("made from other chats (data_sha256 %.12s, these %.12s)", m.Data, p.data), ErrCheckpoint}
	}
	a, b := m.Report, p.Report
	if a.Chats != b.Chats || a.HeldOut != b.HeldOut || a.Tokens != b.Tokens || a.Trained != b.Trained || a.Prefix != b.Prefix || a.Forward != b.Forward {
		return &described{fmt.Sprintf("the chats rendered to %d tokens there, %d here: another template or vocabulary", a.Tokens, b.Tokens), ErrCheckpoint}
	}
	base, err := p.baseFile(tr)
	if err != nil {
		return err
	}
	if base.SHA256 != m.Base.SHA256 {
		return &described{fmt.Sprintf("made from another base model: %s (sha256 %.12s), not %s (sha256 %.12s)",
			m.Base.Path, m.Base.SHA256, base.Path, base.SHA256), ErrCheckpoint}
	}
	return nil
}

// recipeDiff lists the fields of the recipe that differ between there
// (a checkpoint's) and here, less Threads, Checkpoint and StopAfter; ""
// when none.
func recipeDiff(there, here Config) string {
	there.Threads, here.Threads = 0, 0
	there.Checkpoint, here.Checkpoint = "", ""
	there.StopAfter, here.StopAfter = 0, 0
	a, b := reflect.ValueOf(there), reflect.ValueOf(here)
	var diffs []string
	for i := range a.NumField() {
		if !reflect.DeepEqual(a.Field(i).Interface(), b.Field(i).Interface()) {
			diffs = append(diffs, fmt.Sprintf("%s %v there, %v here", a.Type().Field(i).Name, a.Field(i), b.Field(i)))
		}
	}
	return strings.Join(diffs, "; ")
}

// checkFile refuses the checkpoint's file at path when its size or hash
// is not want's.
func checkFile(path string, want File) error {
	got, err := hashFile(path)
	var msg string
	switch {
	case err != nil:
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		msg = "the manifest names it, but it cannot be read: " + err.Error()
	case got.Size != want.Size:
		msg = fmt.Sprintf("%d bytes, the manifest says %d: the file is truncated or was replaced", got.Size, want.Size)
	case got.SHA256 != want.SHA256:
		msg = "its SHA-256 is not the manifest's: the file was altered"
	default:
		return nil
	}
	return &Error{Op: "resume", Path: path, Err: &described{msg, ErrCheckpoint}}
}
