//go:build linux && !amd64 && !arm64

package sandbox

// auditArch 0: no seccomp filter on this architecture.
const auditArch = 0

const x32Bit = 0xFFFFFFFF
