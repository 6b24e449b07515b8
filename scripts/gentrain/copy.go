package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/tools"
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
//
// With turns 1 the chat is only the copying: no system prompt, no tools.
// A model that learns to copy there copies only near the start of its
// context; the agent copies after a system prompt and tool definitions of
// a thousand tokens and more, among older messages. With more turns the
// chat opens as the agent's do (loop.DefaultSystem and the default
// tools) and the user asks turns times, each time for new lines: every
// answer copies the last message, at positions the agent's chats reach,
// past lines that look the same. Chat i of a seed depends on i and turns
// alone.
func copyChat(seed uint64, i, turns int) Chat {
	r := rand.New(rand.NewPCG(trainSeed(seed, i), 0x636f7079)) // "copy"
	var c Chat
	if turns > 1 {
		c.Messages = []chat.Message{{Role: "system", Content: loop.DefaultSystem}}
		c.Tools = tools.Default().Definitions()
	}
	for range turns {
		lines := make([]string, between(r, 3, 6))
		for k := range lines {
			n := drillNames(r, 2)
			lines[k] = n[0] + " = " + n[1] + " + " + itoa(between(r, 2, 199))
		}
		text := strings.Join(lines, "\n")
		c.Messages = append(c.Messages, chat.Message{Role: "user", Content: copyPrompt + text}, chat.Message{Role: "assistant", Content: text})
	}
	return c
}

// writeCopyChats writes n copy chats of seed to path, one JSON line each,
// {"messages": [...]} and, with turns above 1, "tools", and reports the
// count on stderr.
func writeCopyChats(path string, seed uint64, n, turns int, stderr io.Writer) error {
	err := writeBuffered(path, func(w io.Writer) error {
		for i := range n {
			var b []byte
			var err error
			if c := copyChat(seed, i, turns); turns > 1 {
				b, err = marshalNoEscape(c)
			} else {
				b, err = marshalNoEscape(struct {
					Messages []chat.Message `json:"messages"`
				}{c.Messages})
			}
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
