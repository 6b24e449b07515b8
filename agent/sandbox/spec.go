package sandbox

// Spec says what a sandboxed command may do beyond reading. The zero value
// is the default: writes inside the workspace (its .git read-only), the
// system temp directory and the Go build cache, and no network.
type Spec struct {
	// Off runs commands without the kernel sandbox (loop run --sandbox
	// off). Processes still end with their command.
	Off bool
	// AllowNet lets commands use the network (loop run --allow-net).
	AllowNet bool
	// Writable lists more directories where commands may write (loop run
	// --sandbox-write DIR). A path that is not an existing directory makes
	// Start fail, naming it; loop run checks its flags before that.
	Writable []string
}
