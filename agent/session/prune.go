package session

import (
	"cmp"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
)

// StateInfo is one session's KV state on disk.
type StateInfo struct {
	ID    string
	Path  string
	Bytes int64
	Info  fs.FileInfo
}

// States returns the KV states of the workspace's sessions, oldest
// (least recently written) first.
func (st *Store) States() ([]StateInfo, error) {
	ids, err := st.IDs()
	if err != nil {
		return nil, err
	}
	var out []StateInfo
	for _, id := range ids {
		path := filepath.Join(st.Dir, id, StateFile)
		info, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, &Error{"states", path, err}
		}
		out = append(out, StateInfo{ID: id, Path: path, Bytes: info.Size(), Info: info})
	}
	slices.SortStableFunc(out, func(a, b StateInfo) int { return cmp.Compare(a.Info.ModTime().UnixNano(), b.Info.ModTime().UnixNano()) })
	return out, nil
}

// Prune removes the oldest KV states of the workspace until the rest fit
// the cap, never keep's (a session id). It returns the ids of the
// sessions whose states it removed; their transcripts stay.
func (st *Store) Prune(keep string) ([]string, error) {
	states, err := st.States()
	if err != nil {
		return nil, err
	}
	var total int64
	for _, s := range states {
		total += s.Bytes
	}
	var removed []string
	for _, s := range states {
		if total <= st.cap() {
			break
		}
		if s.ID == keep {
			continue
		}
		if err := os.Remove(s.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return removed, &Error{"prune", s.Path, err}
		}
		total -= s.Bytes
		removed = append(removed, s.ID)
	}
	return removed, nil
}
