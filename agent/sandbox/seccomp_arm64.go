//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// auditArch is the seccomp architecture of this build's system calls.
const auditArch = unix.AUDIT_ARCH_AARCH64

// x32Bit is past every system call number on arm64: no second ABI to refuse.
const x32Bit = 0xFFFFFFFF
