package session

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/loopagent/loop/agent/transcript"
)

// DefaultCap is the disk the KV states of one workspace's sessions may
// take when Store.Cap is 0: 2 GiB.
const DefaultCap = 2 << 30

// Errors of the package, wrapped in an *Error.
var (
	ErrNoSession     = errors.New("no such session")
	ErrOtherModel    = errors.New("made by another model")
	ErrOtherTemplate = errors.New("made with another chat template")
	ErrCorrupt       = errors.New("not a whole KV state")
	ErrTooLarge      = errors.New("larger than the cap")
)

// Error is an operation on a session's file that failed.
type Error struct {
	Op   string // "load state", "find", ...
	Path string // the file or directory
	Err  error
}

func (e *Error) Error() string { return "session: " + e.Op + ": " + e.Path + ": " + e.Err.Error() }

func (e *Error) Unwrap() error { return e.Err }

// Root is where sessions live: $LOOP_SESSIONS, else loop/sessions in the
// user's cache directory (the system temp directory when there is none).
func Root() string {
	if dir := os.Getenv("LOOP_SESSIONS"); dir != "" {
		return dir
	}
	dir, err := os.UserCacheDir()
	if err != nil {
		dir = os.TempDir()
	}
	return filepath.Join(dir, "loop", "sessions")
}

// Store is the sessions of one workspace.
type Store struct {
	// Dir holds one directory per session.
	Dir string
	// Workspace is the workspace's absolute path.
	Workspace string
	// Cap bounds the bytes of the KV states of the workspace's sessions;
	// 0 means DefaultCap.
	Cap int64
}

// Open returns the store of workspace under root ("" means Root()). The
// directory is made when a session is.
func Open(root, workspace string) (*Store, error) {
	if root == "" {
		root = Root()
	}
	abs, err := filepath.Abs(workspace)
	if err != nil {
		return nil, &Error{"open", workspace, err}
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	sum := sha256.Sum256([]byte(abs))
	return &Store{Dir: filepath.Join(root, hex.EncodeToString(sum[:8])), Workspace: abs}, nil
}

func (st *Store) cap() int64 {
	if st.Cap > 0 {
		return st.Cap
	}
	return DefaultCap
}

// Session is one session's directory.
type Session struct {
	ID    string
	Dir   string
	store *Store
}

// New makes a session with a new id: its UTC start time to the second and
// a random suffix.
func (st *Store) New(now time.Time) (*Session, error) {
	if err := os.MkdirAll(st.Dir, 0o700); err != nil {
		return nil, &Error{"new", st.Dir, err}
	}
	for range 10 {
		var suffix [3]byte
		rand.Read(suffix[:])
		id := now.UTC().Format("20060102-150405") + "-" + hex.EncodeToString(suffix[:])
		dir := filepath.Join(st.Dir, id)
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			return &Session{ID: id, Dir: dir, store: st}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, &Error{"new", dir, err}
		}
	}
	return nil, &Error{"new", st.Dir, errors.New("no free id after 10 tries")}
}

// IDs returns the ids of the workspace's sessions, oldest first.
func (st *Store) IDs() ([]string, error) {
	entries, err := os.ReadDir(st.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &Error{"list", st.Dir, err}
	}
	var ids []string
	for _, e := range entries {
		if e.IsDir() && validID(e.Name()) {
			ids = append(ids, e.Name())
		}
	}
	slices.Sort(ids)
	return ids, nil
}

// validID reports whether name has the shape of an id New makes.
func validID(name string) bool {
	if len(name) != len("20060102-150405-abcdef") || name[8] != '-' || name[15] != '-' {
		return false
	}
	return strings.Trim(name, "0123456789abcdef-") == ""
}

// Find returns the session of this workspace whose id is id or begins
// with it, when only one does.
func (st *Store) Find(id string) (*Session, error) {
	ids, err := st.IDs()
	if err != nil {
		return nil, err
	}
	var found []string
	for _, have := range ids {
		if have == id {
			found = []string{have}
			break
		}
		if id != "" && strings.HasPrefix(have, id) {
			found = append(found, have)
		}
	}
	switch len(found) {
	case 0:
		return nil, &Error{"find", id, fmt.Errorf("%w in this workspace's sessions (%s)", ErrNoSession, st.Dir)}
	case 1:
		return st.session(found[0]), nil
	}
	return nil, &Error{"find", id, fmt.Errorf("%d sessions begin with it: %s", len(found), strings.Join(found, ", "))}
}

// Last returns the session of this workspace whose last run started
// last.
func (st *Store) Last() (*Session, error) {
	ids, err := st.IDs()
	if err != nil {
		return nil, err
	}
	var last *Session
	var lastRun string
	for _, id := range ids {
		s := st.session(id)
		if r := s.lastRun(); r != "" && (last == nil || r > lastRun) {
			last, lastRun = s, r
		}
	}
	if last == nil {
		return nil, &Error{"find", st.Dir, fmt.Errorf("%w to continue: this workspace has none", ErrNoSession)}
	}
	return last, nil
}

// lastRun is the file name of the session's last run that got as far as
// its task: "" when none did.
func (s *Session) lastRun() string {
	runs, err := s.Runs()
	if err != nil {
		return ""
	}
	for i := len(runs) - 1; i >= 0; i-- {
		f, err := os.Open(runs[i])
		if err != nil {
			continue
		}
		events, _ := transcript.Read(f)
		f.Close()
		if _, _, ok := lastTask(events); ok {
			return filepath.Base(runs[i])
		}
	}
	return ""
}

func (st *Store) session(id string) *Session {
	return &Session{ID: id, Dir: filepath.Join(st.Dir, id), store: st}
}
