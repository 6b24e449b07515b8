package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/loopagent/loop/agent/chat"
)

// copyPrompt opens every copy chat's user message.
const copyPrompt = "Write these lines again:\n"

// copyChat is copy chat i of a seed: the user gives 3 to 6 lines
// "name = name + N" of two-word names (drillNames) and numbers from 2 to
// 199, and the assistant writes them again. A line carries about 26 nats
// that no model can know beforehand, so only copying from the context
// lowers its loss below what knowing the words gives. It is the
// pretraining that teaches a small model to copy before it learns the
// agent's chats, whose edits and answers copy from what a tool returned.
// No system prompt, no tools: the chat is only the copying.
func copyChat(seed uint64, i int) []chat.Message {
	r := rand.New(rand.NewPCG(trainSeed(seed, i), 0x636f7079)) // "copy"
	lines := make([]string, between(r, 3, 6))
	for k := range lines {
		n := drillNames(r, 2)
		lines[k] = n[0] + " = " + n[1] + " + " + itoa(between(r, 2, 199))
	}
	text := strings.Join(lines, "\n")
	return []chat.Message{{Role: "user", Content: copyPrompt + text}, {Role: "assistant", Content: text}}
}

// writeCopyChats writes n copy chats of seed to path, one JSON line each,
// {"messages": [...]}, and reports the count on stderr.
func writeCopyChats(path string, seed uint64, n int, stderr io.Writer) error {
	err := writeBuffered(path, func(w io.Writer) error {
		for i := range n {
			b, err := marshalNoEscape(struct {
				Messages []chat.Message `json:"messages"`
			}{copyChat(seed, i)})
			if err != nil {
				return err
			}
			if _, err := w.Write(append(b, '\n')); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "%d copy chats in %s\n", n, path)
	return nil
}
