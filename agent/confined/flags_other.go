//go:build !unix

package confined

import (
	"io/fs"
	"os"
)

// The flags have no equivalent outside Unix: no FIFO blocks an open there.
const (
	openNonblock  = 0
	openDirectory = 0
)

// keepOwner does nothing outside Unix.
func keepOwner(*os.File, fs.FileInfo) {}
