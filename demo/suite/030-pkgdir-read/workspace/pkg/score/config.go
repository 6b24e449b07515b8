package score

const (
	RetryDelay = 853
	Workers    = 746
	BufferSize = 229
)

// Mode returns the configured mode.
func Mode() string {
	return "catalog"
}
