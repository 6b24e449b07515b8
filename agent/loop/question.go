package loop

import (
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/loopagent/loop/agent/chat"
	"github.com/loopagent/loop/agent/validate"
)

// A question is a task that asks for no change: it reads as a question
// ("What does parseArgs return?", "Where is the config loaded?", "Explain
// the retry logic") and names no change ("fix", "add", "rename", ...). A
// question is offered no tool that writes files (tools.FileWriter): a
// smaller prompt and call grammar, and a model that cannot change what it
// was only asked about. When in doubt a task is not a question.
var (
	questionStart = regexp.MustCompile(`(?i)^(what|where|which|who|whose|why|how|when|does|do|did|is|are|was|can|could|should|would|explain|describe|summari[sz]e|list|show|find|tell|count|compare)\b`)
	changeWord    = regexp.MustCompile(`(?i)\b(fix\w*|add\w*|chang\w*|implement\w*|make|makes|making|renam\w*|writ\w*|updat\w*|remov\w*|delet\w*|refactor\w*|creat\w*|replac\w*|edit\w*|modif\w*|mov\w*|convert\w*|bump\w*|patch\w*|correct\w*|improv\w*|optimi[sz]\w*|clean\w*|format\w*|set|insert\w*|append\w*|generat\w*|port|migrat\w*|upgrad\w*|install\w*|pass\w*|apply\w*|commit\w*|revert\w*)\b`)
)

// isQuestion reports whether task is a question that asks for no change.
// A change word counts in lower case, or capitalised where a sentence
// starts; elsewhere a capitalised word names code ("Which tests cover
// Add?").
func isQuestion(task string) bool {
	t := strings.TrimSpace(task)
	if !strings.HasSuffix(t, "?") && !questionStart.MatchString(t) {
		return false
	}
	for _, m := range changeWord.FindAllStringIndex(t, -1) {
		if !unicode.IsUpper(rune(t[m[0]])) || sentenceStart(t[:m[0]]) {
			return false
		}
	}
	return true
}

// sentenceStart reports whether a word after before starts a sentence.
func sentenceStart(before string) bool {
	before = strings.TrimRight(before, " \t\n")
	return before == "" || strings.ContainsAny(before[len(before)-1:], ".!?:;\n")
}

// toolSet is the tools one task is offered, with their validator.
type toolSet struct {
	defs      []chat.Tool
	validator *validate.Validator
	err       error // the validator's, when a schema does not compile
}

func newToolSet(defs []chat.Tool) toolSet {
	v, err := validate.New(defs)
	return toolSet{defs: defs, validator: v, err: err}
}

// withoutWriters is defs less the tools named in writers.
func withoutWriters(defs []chat.Tool, writers []string) []chat.Tool {
	return slices.DeleteFunc(slices.Clone(defs), func(t chat.Tool) bool { return slices.Contains(writers, t.Name) })
}
