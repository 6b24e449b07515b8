// Package session keeps a workspace's agent runs as sessions that can
// continue, warm: each session holds the transcripts of its runs, from
// which the conversation is rebuilt, and the model's KV state at the end
// of its last step, so that a continued run's first request computes
// only what is new.
//
// Sessions live outside the workspace, under the user's cache directory
// (Root: <cache>/loop/sessions, or $LOOP_SESSIONS), one directory per
// workspace named by a hash of its absolute path, one per session below
// it, named by its id (start time and a random suffix, so that ids sort
// by time):
//
//	st, _ := session.Open("", workspace)   // the workspace's store
//	s, _ := st.Last()                       // or st.Find(id), st.New(time.Now())
//	r, _ := s.Resume()                      // r.History seeds loop.Settings.History
//	w, path, _ := s.Create(time.Now())      // this run's transcript in the session
//
// A KV state is a file of its own (state.kv): a magic line, a JSON header
// (the model.StateKey, the token count, the blob's size and a SHA-256 of
// tokens and blob), the tokens, then llama.cpp's sequence state as it
// comes, uncompressed (compressing it saved little and cost more time
// than writing it; see BenchmarkStateCompress in agent/local). A file read
// back is untrusted: LoadState checks its size against the store's cap
// before reading it, its key before reading the blob (another model or
// template is refused with ErrOtherModel or ErrOtherTemplate), and its
// hash after (ErrCorrupt); the engine then checks the blob's own layout.
// A state that fails is a note for the user, never a failed run.
//
// Saver writes states in the background while the next step runs; each
// write goes to a temporary file renamed over the last, so that a killed
// run leaves the previous state whole. After each write, Prune removes
// the oldest states of the workspace until they fit the cap (Store.Cap),
// never the one just written.
package session
