package repair

import (
	"errors"
	"fmt"
)

// Error is a refused JSON repair: what was wrong, where, and why the
// repair did not guess. Its message is meant for the model that wrote
// the text: it says what to write instead.
type Error struct {
	Op     string // "repair json"
	Offset int    // the byte offset in the text where the reading stopped
	Near   string // a few bytes of the text from Offset
	Err    error  // one of the sentinels below, or a wrapped one
}

func (e *Error) Error() string {
	if e.Near == "" {
		return fmt.Sprintf("%s: byte %d: %v", e.Op, e.Offset, e.Err)
	}
	return fmt.Sprintf("%s: byte %d (near %q): %v", e.Op, e.Offset, e.Near, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// The reasons a JSON repair refuses.
var (
	// ErrNoObject: the text holds no '{'.
	ErrNoObject = errors.New("no JSON object in the text")
	// ErrTruncated: the text ends inside the object. Closing it would
	// invent its end, and the arguments it was cut off from.
	ErrTruncated = errors.New("the text ends inside the object: write the whole object")
	// ErrSyntax: no repair reads the text as an object.
	ErrSyntax = errors.New("not a JSON object")
	// ErrAmbiguous: more than one repair reads the text as an object,
	// and they give different objects.
	ErrAmbiguous = errors.New("the text reads as more than one object: escape quotes inside strings and close every bracket")
	// ErrLoss: the repair would drop or change a key or value of the text.
	ErrLoss = errors.New("the repair would lose text")
	// ErrTextAfter: the object is followed by another object or by more
	// JSON, which is a second call or a broken first one, never text to
	// drop.
	ErrTextAfter = errors.New("text after the object")
)

// near returns up to 16 bytes of text from i, for an error message.
func near(text string, i int) string {
	if i >= len(text) {
		return ""
	}
	return text[i:min(len(text), i+16)]
}

func refuse(text string, i int, err error) *Error {
	return &Error{Op: "repair json", Offset: i, Near: near(text, i), Err: err}
}
