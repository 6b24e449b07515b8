package local

import (
	crand "crypto/rand"
	"math/rand/v2"
	"sync"
)

// idRand returns the source of a request's call ids. With
// Request.IDSeed it is seeded with it, so that the request's ids are
// reproducible; else it is the client's own source, made on first use and
// kept for the client's life, so that no two requests draw the same ids.
// Either way the stream parser (callformat.UniqueIDs) gives no call an id the
// request's history holds.
func (c *Client) idRand(req Request) *rand.Rand {
	if req.IDSeed != 0 {
		return rand.New(rand.NewPCG(req.IDSeed, 1))
	}
	if c.ids == nil {
		var seed [32]byte
		crand.Read(seed[:]) // never fails: it crashes the program instead
		c.ids = &idSource{src: rand.NewChaCha8(seed)}
	}
	return rand.New(c.ids)
}

// idSource is a client's source of call ids, seeded from crypto/rand. It
// is safe for concurrent use: clients copied from one client (NewPool's,
// Sub's) may share it.
type idSource struct {
	mu  sync.Mutex
	src *rand.ChaCha8
}

func (s *idSource) Uint64() uint64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.src.Uint64()
}
