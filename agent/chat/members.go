package chat

import (
	"encoding/json"
	"strings"
)

// Member is one key of a JSON object and its value as written.
type Member struct {
	Key   string
	Value json.RawMessage
}

// ObjectMembers returns the members of a JSON object in the order they are
// written (a schema's properties, a call's arguments): what a map loses.
// It returns nothing when data is not an object, and the members read so
// far when the object breaks off.
func ObjectMembers(data json.RawMessage) []Member {
	dec := json.NewDecoder(strings.NewReader(string(data)))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var out []Member
	for dec.More() {
		t, err := dec.Token()
		key, ok := t.(string)
		if err != nil || !ok {
			return out
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return out
		}
		out = append(out, Member{key, v})
	}
	return out
}
