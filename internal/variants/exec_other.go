//go:build !linux

package variants

import (
	"errors"
	"runtime"
)

// Exec runs a build only on Linux: make dist writes a launcher there alone,
// and one plain build elsewhere.
func Exec(path string, v *Variant, args []string) error {
	return errors.New("the loop launcher runs on Linux only, not " + runtime.GOOS)
}
