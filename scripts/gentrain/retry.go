package main

import (
	"math/rand/v2"
	"strings"
)

// Retries. A share of the training chats (--retry-share) open with a
// broken first call, the kind a small model writes, followed by the real
// loop's answer to it and the ideal run: the model learns to write the
// call again after the loop's error note. The loop keeps a call it could
// not read out of the history and sends only its note (a user message); a
// call with wrong arguments stays in the history with its error as the
// result, so that message is written with "weight": 0 (shown, not
// trained; OpenAI's fine-tuning format, which `loop train` reads).

// brokenKinds are the broken first calls, each beyond the repair layer.
var brokenKinds = []struct {
	name   string
	break_ func(reply string) string
	// kept: the loop keeps the broken call in the history (its arguments
	// failed validation), so it must not be trained.
	kept bool
}{
	// The first argument's value is missing: not JSON.
	{"no value", func(s string) string {
		k := strings.Index(s, `"arguments": {"`)
		if k < 0 {
			return ""
		}
		v := strings.Index(s[k+len(`"arguments": {"`):], `": `)
		if v < 0 {
			return ""
		}
		start := k + len(`"arguments": {"`) + v + len(`": `)
		end := start + len(jsonText(firstValue(s[start:])))
		return s[:start] + s[end:]
	}, false},
	// The colon after "name" is missing: not JSON.
	{"no colon", func(s string) string {
		if !strings.Contains(s, `{"name": "`) {
			return ""
		}
		return strings.Replace(s, `{"name": "`, `{"name" "`, 1)
	}, false},
	// The first argument has another tool's name for it.
	{"wrong argument", func(s string) string {
		for _, p := range [][2]string{{`{"path": `, `{"command": `}, {`{"command": `, `{"path": `}, {`{"pattern": `, `{"path": `}} {
			if strings.Contains(s, p[0]) {
				return strings.Replace(s, p[0], p[1], 1)
			}
		}
		return ""
	}, true},
}

// firstValue returns the JSON string value at the start of s, decoded.
func firstValue(s string) string {
	var b strings.Builder
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
			if i < len(s) {
				b.WriteByte(s[i])
			}
		case '"':
			return b.String()
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// withRetry returns t opening with a broken copy of its first call, or t
// itself when its first reply is not a call (restraint) or r says no.
func withRetry(t Task, r *rand.Rand, share float64) Task {
	if share <= 0 || r.Float64() >= share || len(t.Replies) == 0 || !strings.HasPrefix(t.Replies[0], "<tool_call>") {
		return t
	}
	k := brokenKinds[r.IntN(len(brokenKinds))]
	broken := k.break_(t.Replies[0])
	if broken == "" || broken == t.Replies[0] {
		return t
	}
	t.Replies = append([]string{broken}, t.Replies...)
	t.Retries = 1
	unweighted := make([]int, 0, len(t.Unweighted)+1)
	if k.kept {
		unweighted = append(unweighted, 0)
	} else {
		t.Dropped = 1
	}
	for _, u := range t.Unweighted {
		unweighted = append(unweighted, u+1)
	}
	t.Unweighted = unweighted
	return t
}
