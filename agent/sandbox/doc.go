// Package sandbox runs the commands of a coding agent so that they write
// only where the agent works and nothing they start outlives them.
//
// A program that uses the package calls Main first thing in main (and in
// TestMain of a test binary that runs commands), because the sandbox
// runs each command under a small supervisor that is the program itself,
// started again:
//
//	func main() {
//		sandbox.Main() // returns at once, unless this process is a supervisor
//		...
//	}
//
//	p, err := sandbox.Start(sandbox.Command{
//		Args: []string{"bash", "-c", "go test ./..."},
//		Dir:  root, // the workspace: writable, its .git read-only
//		Stdout: w, Stderr: w,
//	})
//	...
//	code, err := p.Wait() // or p.Stop() on a timeout or Ctrl-C
//
// The supervisor (Linux). It makes itself the child subreaper, so that
// every process the command starts stays its descendant even after a
// double fork or setsid; it dies with the program that started it (its
// parent-death signal is SIGTERM); and when the command ends, is stopped,
// or the program dies, it kills every descendant and reaps them before it
// exits. So a command's background jobs never survive it, nor survive
// SIGKILL of the program.
//
// The kernel sandbox (Linux, Landlock). Before it starts the command, the
// supervisor restricts the thread that forks it with Landlock: the command
// may read everything but write only in the workspace, the system temp
// directory, the Go build cache, /dev/null and its kin, and the
// directories of Spec.Writable. When the workspace has a .git at its root,
// every other entry of the root is writable and .git is not, so that no
// command can plant a hook or a config that git would run later; a command
// then cannot create a new entry at the top of the workspace either (the
// agent's own file tools can). Without Spec.AllowNet, Landlock refuses TCP
// bind and connect (ABI 4 and later) and a seccomp filter refuses new
// internet and packet sockets and io_uring, so UDP is closed too. From
// Landlock ABI 6 the command cannot signal processes outside its sandbox
// or reach abstract unix sockets. Unix sockets with a path, such as a
// container daemon's, stay reachable where the files allow.
//
// Available says whether the kernel has Landlock. Where it has not, or
// with Spec.Off, commands run unconfined (the supervisor still ends their
// processes) and the caller should ask the user before each one. On
// systems other than Linux there is no supervisor: a command runs in a
// process group of its own that is killed when it ends; on macOS it runs
// under sandbox-exec with a profile of the same rules.
package sandbox
