package train

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"os"
)

// Chat is one chat to train on, as a line of the data holds it: the
// OpenAI form, {"messages": [...], "tools": [...]}, with the assistant's
// tool_calls and the tool results. An assistant message with "weight": 0
// (OpenAI's fine-tuning format) is context the chat shows but does not
// train: a failed call the conversation recovers from, say.
type Chat struct {
	Messages json.RawMessage `json:"messages"`
	Tools    json.RawMessage `json:"tools"`
	// Path and Line are where the chat came from, for errors: the data
	// file and its line, from 1. A chat made in memory may leave them
	// empty, or number its chats in Line.
	Path string `json:"-"`
	Line int    `json:"-"`
}

// ReadChats reads the chats of a data file, one JSON object per non-empty
// line. An error names the file and the line; a file that cannot be
// opened is os.Open's *fs.PathError.
func ReadChats(path string) ([]Chat, error) {
	file, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer file.Close()
	var chats []Chat
	sc := bufio.NewScanner(file)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20) // a chat with a few files read is long
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		c := Chat{Path: path, Line: line}
		if err := json.Unmarshal(b, &c); err != nil {
			return nil, &Error{Op: "read", Path: path, Line: line, Err: err}
		}
		if len(c.Messages) == 0 {
			return nil, &Error{Op: "read", Path: path, Line: line, Err: ErrNoMessages}
		}
		chats = append(chats, c)
	}
	if err := sc.Err(); err != nil {
		return nil, &Error{Op: "read", Path: path, Err: err}
	}
	if len(chats) == 0 {
		return nil, &Error{Op: "read", Path: path, Err: ErrNoChats}
	}
	return chats, nil
}

// hashChats returns the SHA-256, in hex, of the chats' messages and tools
// in order, each preceded by its length: what a checkpoint's data must
// match to be resumed.
func hashChats(chats []Chat) string {
	h := sha256.New()
	for _, c := range chats {
		for _, b := range [][]byte{c.Messages, c.Tools} {
			h.Write(binary.BigEndian.AppendUint64(nil, uint64(len(b))))
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}
