package window

import (
	"reflect"

	"github.com/loopagent/loop/agent/chat"
)

// Corrected measures a prompt where no tokenizer is at hand (a remote
// server, a scripted model): it takes the prompt_tokens the server
// reported for the last request as exact for the messages that request
// sent, and estimates only the messages added since. The estimate's error
// then covers the newest messages, not the whole history, which matters
// because four characters per token errs low by 17 to 75 percent on the
// JSON, logs and hashes that fill an agent's history. Set Config.Measure
// to its Measure, and call Observe with each reply's usage.
//
// A Corrected is not safe for concurrent use.
type Corrected struct {
	// Counter estimates the messages added since the last request; nil
	// means Estimate{}.
	Counter Counter
	// Overhead is the template's tokens around each message; 0 means 4,
	// negative means none.
	Overhead int
	// Fixed is the tokens of the parts outside the history (the tool
	// definitions), counted until a request has been observed, whose
	// prompt_tokens include them.
	Fixed int

	sent   []chat.Message // the messages of the last observed request
	tokens int            // its prompt_tokens
}

// Observe records the messages of a request and the prompt_tokens the
// server reported for it.
func (c *Corrected) Observe(sent []chat.Message, promptTokens int) {
	c.sent = append(c.sent[:0], sent...)
	c.tokens = promptTokens
}

// Measure returns the prompt tokens of msgs: the observed prompt_tokens
// plus the estimate of the messages after them when msgs begin with the
// observed request's messages, else (nothing observed yet, or a
// compaction rewrote the history) Fixed plus the estimate of every
// message.
func (c *Corrected) Measure(msgs []chat.Message) int {
	counter := c.Counter
	if counter == nil {
		counter = Estimate{}
	}
	overhead := orDefault(c.Overhead, 4)
	if overhead < 0 {
		overhead = 0
	}
	n, rest := c.Fixed, msgs
	if c.sent != nil && len(msgs) >= len(c.sent) && reflect.DeepEqual(msgs[:len(c.sent)], c.sent) {
		n, rest = c.tokens, msgs[len(c.sent):]
	}
	for _, m := range rest {
		n += MessageTokens(counter, overhead, m)
	}
	return n
}
