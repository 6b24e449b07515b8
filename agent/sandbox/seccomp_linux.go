package sandbox

import (
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// denySockets installs a seccomp filter on this thread that fails
// socket(2) for the internet and packet families with EACCES, and
// io_uring_setup(2) (io_uring can open sockets past the filter) with
// ENOSYS. A system call of another architecture's ABI (x32, a 32-bit
// binary) fails with ENOSYS, since its numbers differ. On an architecture
// without a filter here, only Landlock's TCP rules close the network.
func denySockets() error {
	if auditArch == 0 {
		return nil
	}
	const (
		ld   = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
		jeq  = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
		jge  = unix.BPF_JMP | unix.BPF_JGE | unix.BPF_K
		ret  = unix.BPF_RET | unix.BPF_K
		arch = 4  // offsetof(struct seccomp_data, arch)
		nr   = 0  // offsetof(struct seccomp_data, nr)
		arg0 = 16 // offsetof(struct seccomp_data, args[0]), its low half on little-endian
	)
	errno := func(e unix.Errno) uint32 { return unix.SECCOMP_RET_ERRNO | uint32(e) }
	prog := []unix.SockFilter{
		{Code: ld, K: arch},
		{Code: jeq, Jt: 1, K: auditArch},
		{Code: ret, K: errno(unix.ENOSYS)},
		{Code: ld, K: nr},
		{Code: jge, Jt: 0, Jf: 1, K: x32Bit},
		{Code: ret, K: errno(unix.ENOSYS)},
		{Code: jeq, Jt: 0, Jf: 1, K: unix.SYS_IO_URING_SETUP},
		{Code: ret, K: errno(unix.ENOSYS)},
		{Code: jeq, Jt: 1, K: unix.SYS_SOCKET},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		{Code: ld, K: arg0},
		{Code: jeq, Jt: 3, K: unix.AF_INET},
		{Code: jeq, Jt: 2, K: unix.AF_INET6},
		{Code: jeq, Jt: 1, K: unix.AF_PACKET},
		{Code: ret, K: unix.SECCOMP_RET_ALLOW},
		{Code: ret, K: errno(unix.EACCES)},
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&fprog)), 0, 0); err != nil {
		return fmt.Errorf("seccomp: %w", err)
	}
	return nil
}
