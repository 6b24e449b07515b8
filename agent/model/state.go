package model

// KVState is a model's prompt cache at one moment: the tokens its
// sequence holds and the engine's serialized KV cache of them. Key says
// what made it; a state restores only under the same key.
type KVState struct {
	Key    StateKey
	Tokens []int32
	Data   []byte
}

// StateKey names what a KV state depends on beyond its tokens: the model
// file (a fingerprint of its bytes) and the chat template with the call
// format, which decide the tokens of a conversation.
type StateKey struct {
	Model    string `json:"model"`
	Template string `json:"template"`
}

// StateKeeper is a Model whose prompt cache can be saved and restored
// (the in-process client), so that a continued session starts warm:
// its first request computes only what is new.
type StateKeeper interface {
	// StateKey is the key of the states this model saves and accepts.
	StateKey() (StateKey, error)
	// SaveState returns the state of the model's own sequence.
	SaveState() (KVState, error)
	// RestoreState makes the model's sequence hold st. It refuses a state
	// of another key, or one the engine cannot read, and then leaves the
	// sequence empty: the next request computes its whole prompt.
	RestoreState(st KVState) error
}
