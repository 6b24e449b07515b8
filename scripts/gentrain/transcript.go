package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/agent/tools"
	"github.com/loopagent/loop/agent/transcript"
)

// Chat is one line of the training file: the conversation as the loop
// keeps it, the system prompt first, and the tools every request offered,
// in the OpenAI shape. chat.ParseMessages and chat.ParseTools read it
// back.
type Chat struct {
	Messages []chat.Message  `json:"messages"`
	Tools    json.RawMessage `json:"tools"`
	// Unweighted are the messages written with "weight": 0.
	Unweighted []int `json:"-"`
}

// MarshalJSON writes the chat with "weight": 0 on the Unweighted
// messages, without HTML escaping.
func (c Chat) MarshalJSON() ([]byte, error) {
	msgs := make([]json.RawMessage, len(c.Messages))
	for i, m := range c.Messages {
		b, err := marshalNoEscape(m)
		if err != nil {
			return nil, err
		}
		if slices.Contains(c.Unweighted, i) {
			b = append(b[:len(b)-1], `,"weight":0}`...)
		}
		msgs[i] = b
	}
	return marshalNoEscape(struct {
		Messages []json.RawMessage `json:"messages"`
		Tools    json.RawMessage   `json:"tools"`
	}{msgs, c.Tools})
}

func marshalNoEscape(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// events collects a run's events.
type events []transcript.Event

func (e *events) Emit(ev transcript.Event) { *e = append(*e, ev) }

// transcriptOf runs a task as `loop run --yes` would, in a temporary
// workspace, with the task's replies as a scripted Hermes model, and
// returns the conversation. A run that does not end as the task wants,
// that repairs, retries or warns, or whose tool results do not show what
// the answer states, is an error: the task is wrong, not the model.
func transcriptOf(ctx context.Context, t Task, window int) (Chat, error) {
	dir, err := os.MkdirTemp("", "gentrain-")
	if err != nil {
		return Chat{}, err
	}
	defer os.RemoveAll(dir)
	if err := writeFiles(dir, t.Files); err != nil {
		return Chat{}, err
	}
	ws, err := tools.NewWorkspace(dir, tools.Config{Window: window, Policy: tools.Policy{Yes: true}})
	if err != nil {
		return Chat{}, err
	}
	if err := fitsOneRead(t, newEnv(shape{}, window)); err != nil {
		return Chat{}, err
	}
	replies := make([]model.Reply, len(t.Replies))
	for i, text := range t.Replies {
		replies[i] = model.Reply{Text: text}
	}
	script, err := model.NewScript("hermes", replies)
	if err != nil {
		return Chat{}, err
	}
	var evs events
	rec := &offered{Model: script}
	a, err := loop.New(rec, loop.Settings{Workspace: ws, Window: window, Check: t.Check, Sink: &evs})
	if err != nil {
		return Chat{}, err
	}
	out := a.Run(ctx, t.Text)
	msgs := a.Messages()
	if err := judge(t, out, script.Requests(), evs, msgs); err != nil {
		return Chat{}, fmt.Errorf("%s task %d (%q): %w", t.Family, t.Seed, t.Text, err)
	}
	normalize(msgs)
	defs, err := rec.definitions(a.Definitions())
	if err != nil {
		return Chat{}, fmt.Errorf("%s task %d (%q): %w", t.Family, t.Seed, t.Text, err)
	}
	c := Chat{Messages: msgs, Tools: defs, Unweighted: unweighted(t, msgs)}
	return c, nil
}

// unweighted maps the task's unweighted replies to the indices of their
// assistant messages.
func unweighted(t Task, msgs []chat.Message) []int {
	var out []int
	reply := t.Dropped
	for i, m := range msgs {
		if m.Role != "assistant" {
			continue
		}
		if slices.Contains(t.Unweighted, reply) {
			out = append(out, i)
		}
		reply++
	}
	return out
}

// offered is a model that notes the tools each request offers: a task
// that reads as a question is offered no tool that writes files, and its
// chat shows the tools it was offered.
type offered struct {
	model.Model
	names [][]string
}

func (o *offered) Complete(ctx context.Context, req model.Request) (*model.Response, error) {
	names := make([]string, len(req.Tools))
	for i, t := range req.Tools {
		names[i] = t.Name
	}
	o.names = append(o.names, names)
	return o.Model.Complete(ctx, req)
}

// definitions are the definitions of the tools every request offered,
// as all (the agent's whole set) writes them.
func (o *offered) definitions(all json.RawMessage) (json.RawMessage, error) {
	if string(all) != string(tools.Default().Definitions()) {
		return nil, fmt.Errorf("the agent's tools are not the default tools")
	}
	for _, n := range o.names[1:] {
		if !slices.Equal(n, o.names[0]) {
			return nil, fmt.Errorf("the requests offered different tools: %v and %v", o.names[0], n)
		}
	}
	return tools.Default().Definitions(o.names[0]...), nil
}

// judge checks that a run went as its task planned.
func judge(t Task, out loop.Outcome, requests int, evs events, msgs []chat.Message) error {
	if out.Kind != t.Want {
		return fmt.Errorf("the run ended %s, want %s", out, t.Want)
	}
	if requests != len(t.Replies) {
		return fmt.Errorf("the run took %d replies of %d", requests, len(t.Replies))
	}
	if out.Repairs > 0 || out.Retries != t.Retries {
		return fmt.Errorf("the replies needed %d repairs and %d retries, want 0 and %d", out.Repairs, out.Retries, t.Retries)
	}
	for _, e := range evs {
		if e.Kind == transcript.KindNote || e.Kind == transcript.KindRejected && t.Retries == 0 {
			return fmt.Errorf("the loop sent a %s: %s", e.Kind, e.Text)
		}
	}
	var results strings.Builder
	for _, m := range msgs {
		if m.Role == "tool" {
			results.WriteString(m.Content + "\n")
		}
	}
	for _, g := range t.Grounds {
		if !strings.Contains(results.String(), g) {
			return fmt.Errorf("no tool result shows %q:\n%s", g, results.String())
		}
	}
	if last := msgs[len(msgs)-1]; last.Role != "assistant" || last.Content != t.Replies[len(t.Replies)-1] {
		return fmt.Errorf("the last message is %+v, not the final answer", last)
	}
	return nil
}

// fitsOneRead checks that every file the task reads whole fits in one
// read_file call at the window, as its replies assume.
func fitsOneRead(t Task, e env) error {
	for _, f := range t.Files {
		if !slices.Contains(t.Replies, readFile(f.Path)) {
			continue
		}
		if !e.fitsRead(f.Content) {
			return fmt.Errorf("%s task %d: %s (%d lines) does not fit one read_file at this window (%d lines, %d characters)",
				t.Family, t.Seed, f.Path, strings.Count(f.Content, "\n"), e.readLines, e.readChars)
		}
	}
	return nil
}

// writeFiles writes a workspace's files under dir.
func writeFiles(dir string, files []File) error {
	for _, f := range files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(f.Content), 0o644); err != nil {
			return err
		}
	}
	return nil
}
