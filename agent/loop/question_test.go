package loop

import "testing"

func TestIsQuestion(t *testing.T) {
	tests := []struct {
		task string
		want bool
	}{
		{"What does parseArgs return?", true},
		{"Where is the config loaded", true},
		{"explain the retry logic in client.go", true},
		{"Which tests cover Add?", true},
		{"The build is slow. Why?", true},
		{"fix Add in calc.go", false},
		{"make the failing test pass", false},
		{"What should I change to fix the test?", false},
		{"How do I add a flag?", false},
		{"rename parseArgs to parseFlags", false},
		{"Does the test pass?", false}, // it may need to run the test: not a question
		{"Add a test for Sub.", false},
		{"Write a summary of the package in SUMMARY.md", false},
		{"", false},
	}
	for _, tt := range tests {
		if got := isQuestion(tt.task); got != tt.want {
			t.Errorf("isQuestion(%q) = %v, want %v", tt.task, got, tt.want)
		}
	}
}
