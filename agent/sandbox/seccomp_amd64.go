//go:build linux

package sandbox

import "golang.org/x/sys/unix"

// auditArch is the seccomp architecture of this build's system calls.
const auditArch = unix.AUDIT_ARCH_X86_64

// x32Bit marks the x32 ABI's system call numbers on x86-64.
const x32Bit = 0x40000000
