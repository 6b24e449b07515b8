package grammar

import (
	"errors"
	"testing"
)

func TestWithEnum(t *testing.T) {
	schema := []byte(`{"type": "object", "properties": {"path": {"type": "string", "minLength": 1}, "limit": {"type": "integer"}}, "required": ["path"]}`)
	got, err := WithEnum(schema, "path", []string{"a.go", `q"uote.go`})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"object","properties":{"path":{"type":"string","minLength":1,"enum":["a.go","q\"uote.go"]},"limit":{"type":"integer"}},"required":["path"]}`
	if string(got) != want {
		t.Errorf("WithEnum:\n got %s\nwant %s", got, want)
	}
	for name, tc := range map[string]struct {
		schema string
		values []string
	}{
		"no such property": {`{"type": "object", "properties": {"x": {}}}`, []string{"a"}},
		"no properties":    {`{"type": "object"}`, []string{"a"}},
		"not an object":    {`[1]`, []string{"a"}},
		"not JSON":         {`{`, []string{"a"}},
		"empty enum":       {string(schema), nil},
	} {
		if _, err := WithEnum([]byte(tc.schema), "path", tc.values); !errors.Is(err, ErrSchema) {
			t.Errorf("%s: err = %v, want ErrSchema", name, err)
		}
	}
}
