// Package todo is the logic of the todos tool: the model keeps its plan
// in the conversation by sending the complete list on every call; the
// tool checks it, stores it and answers with it rendered, so that the
// latest result always holds the whole plan, even after older results are
// compacted away.
//
//	var list todo.List
//	text, ok := list.Call(`{"todos":[{"content":"Run the tests","status":"in_progress","active_form":"Running the tests"}]}`)
//	// text: "todos 0/1 done\n[>] Run the tests"; a bad list gives "error: ..." and ok false
//
// Statuses are pending, in_progress and completed, with exactly one item
// in progress while any is pending. An error names the bad value and the
// allowed ones, so that a small model that invents a status can correct
// itself; a rejected call leaves the stored list as it was. The list is
// also what the compaction summary must keep: give List.String to the
// context manager's Todos. The package knows nothing of the tool
// interface; the agent adapts it (Name, Description, Schema, Call).
package todo

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
)

// Name is the tool's name, as Crush calls it.
const Name = "todos"

// Description is the tool's description for the model.
//
//go:embed todos.md
var Description string

// Schema is the JSON Schema of the tool's arguments.
const Schema = `{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{` +
	`"content":{"type":"string"},"status":{"type":"string","enum":["pending","in_progress","completed"]},` +
	`"active_form":{"type":"string"}},"required":["content","status"]}}},"required":["todos"]}`

// Status is an item's state.
type Status string

const (
	Pending    Status = "pending"
	InProgress Status = "in_progress"
	Completed  Status = "completed"
)

// Item is one step of the plan.
type Item struct {
	// Content is the step, in the imperative: "Run the tests".
	Content string `json:"content"`
	// Status is pending, in_progress or completed.
	Status Status `json:"status"`
	// ActiveForm is the step while it runs, for the display: "Running
	// the tests". Optional.
	ActiveForm string `json:"active_form,omitempty"`
}

// Error is a rejected list; its text is what the model reads after
// "error: ".
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// List is the stored plan. It is not safe for concurrent use.
type List struct {
	items []Item
}

// Call runs one call of the tool: it parses and checks the arguments,
// stores the list and returns it rendered, or returns "error: ..." and
// ok false, keeping the stored list.
func (l *List) Call(arguments string) (text string, ok bool) {
	items, err := Parse(arguments)
	if err == nil {
		err = Validate(items)
	}
	if err != nil {
		return "error: " + err.Error(), false
	}
	l.items = items
	return Render(items), true
}

// String renders the stored list, for the compaction summary; "" when
// there is none.
func (l *List) String() string {
	if len(l.items) == 0 {
		return ""
	}
	return Render(l.items)
}

// Parse reads the arguments {"todos": [{"content", "status",
// "active_form"}, ...]}.
func Parse(arguments string) ([]Item, error) {
	var args struct {
		Todos *[]json.RawMessage `json:"todos"`
	}
	if err := json.Unmarshal([]byte(arguments), &args); err != nil || args.Todos == nil {
		return nil, &Error{`the arguments must be {"todos": [{"content": ..., "status": ..., "active_form": ...}, ...]}`}
	}
	items := make([]Item, len(*args.Todos))
	for i, raw := range *args.Todos {
		if err := json.Unmarshal(raw, &items[i]); err != nil {
			return nil, &Error{fmt.Sprintf("todo %d is not {\"content\": string, \"status\": string, \"active_form\": string}: %s", i+1, raw)}
		}
	}
	return items, nil
}

// Validate checks the statuses and contents: each status is one of the
// three, each item has content, and exactly one item is in progress
// while any is pending (none once all are completed).
func Validate(items []Item) error {
	inProgress, pending := 0, 0
	for i, it := range items {
		switch it.Status {
		case InProgress:
			inProgress++
		case Pending:
			pending++
		case Completed:
		default:
			return &Error{fmt.Sprintf("invalid status %q for %q; use pending, in_progress, or completed", it.Status, it.Content)}
		}
		if strings.TrimSpace(it.Content) == "" {
			return &Error{fmt.Sprintf("todo %d has no content", i+1)}
		}
	}
	if inProgress > 1 {
		return &Error{fmt.Sprintf("%d tasks are in_progress; keep exactly one", inProgress)}
	}
	if inProgress == 0 && pending > 0 {
		return &Error{fmt.Sprintf("no task is in_progress but %d are pending; mark the one you work on now in_progress", pending)}
	}
	return nil
}

// Render writes the list for the model: a count of completed items, then
// each item as [x] completed, [>] in progress or [ ] pending, on one line.
//
//	todos 1/3 done
//	[x] Read OrderServiceTest
//	[>] Add findAll to OrderService
//	[ ] Run mvn test
func Render(items []Item) string {
	done := 0
	for _, it := range items {
		if it.Status == Completed {
			done++
		}
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "todos %d/%d done", done, len(items))
	for _, it := range items {
		mark := "[ ] "
		switch it.Status {
		case Completed:
			mark = "[x] "
		case InProgress:
			mark = "[>] "
		}
		sb.WriteString("\n" + mark + strings.Join(strings.Fields(it.Content), " "))
	}
	return sb.String()
}
