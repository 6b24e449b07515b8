package tools

import (
	"context"
	"strings"
	"testing"
)

func TestTodos(t *testing.T) {
	var td Todos
	ok := `{"todos": [{"content": "Read calc.go", "status": "completed"}, {"content": "Fix Total", "status": "in_progress", "active_form": "Fixing Total"}]}`
	r, err := td.Run(context.Background(), nil, []byte(ok))
	if err != nil || r.IsError {
		t.Fatalf("Run(valid) = %+v, %v", r, err)
	}
	if s := td.String(); !strings.Contains(s, "Fix Total") {
		t.Errorf("String() = %q, want the stored list", s)
	}
	bad := `{"todos": [{"content": "A", "status": "in_progress"}, {"content": "B", "status": "in_progress"}]}`
	r, err = td.Run(context.Background(), nil, []byte(bad))
	if err != nil || !r.IsError || !strings.Contains(r.Content, "in_progress") {
		t.Errorf("Run(two in progress) = %+v, %v; want an error result naming in_progress", r, err)
	}
	if s := td.String(); !strings.Contains(s, "Fix Total") {
		t.Errorf("a rejected list replaced the stored one: %q", s)
	}
}
