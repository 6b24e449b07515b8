package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/loopagent/loop/agent/callformat"
	"github.com/loopagent/loop/agent/chat"

	"github.com/loopagent/loop/agent/local"
	"github.com/loopagent/loop/agent/loop"
	"github.com/loopagent/loop/agent/model"
	"github.com/loopagent/loop/grammar"
	"github.com/loopagent/loop/llama"
)

// callSteps is how many steps callFile's Run makes: three lines each, so
// that the function, with its comment, signature and return, is 40 lines.
const callSteps = 12

// callFile is a Go file whose function Run is 40 lines long.
func callFile() string {
	var b strings.Builder
	b.WriteString("package run\n\nimport (\n\t\"context\"\n\t\"fmt\"\n)\n\n")
	b.WriteString("// Run runs the steps in order, and stops at the first that fails.\n")
	b.WriteString("func Run(ctx context.Context, cfg Config) error {\n")
	for i := range callSteps {
		fmt.Fprintf(&b, "\tif err := step%d(ctx, cfg); err != nil {\n\t\treturn fmt.Errorf(\"step %d: %%w\", err)\n\t}\n", i, i)
	}
	b.WriteString("\treturn nil\n}\n")
	return b.String()
}

// callTask is what the user asks of callFile: a rename, which an agent
// does with one edit_file call whose old_string is the whole function as
// read_file showed it and whose new_string is the same 40 lines renamed.
const callTask = "Rename the parameter ctx of Run in run.go to c."

// callPrompt is the prompt of an agent's step after it read run.go for
// callTask, in the model's chat template and call format, as `loop run
// -c 16384` sends it: the agent is loop.New's, its first step reads
// run.go with the real read_file tool, and the model's next reply is the
// edit. It returns nil, and no error, for a model without a chat
// template.
func callPrompt(ctx context.Context, m *llama.Model) ([]llama.Token, error) {
	st, err := stepAfterRead(ctx, m, callTask)
	return st.prompt, err
}

// answerTask is a question about callFile that an answer quotes the file
// for: the answer-row's step answers it from the read_file result before
// it, which the agent offers as what an answer may copy.
const answerTask = "How does Run report that a step failed? Quote the lines of run.go that do it for step 5 and step 6."

// agentStep is the prompt of an agent's step and the texts its request
// offers the drafter: the files the run read (sources, tokenized as the
// model's call format writes them) and the last tool results (answer,
// tokenized as plain text), as the client drafts from them; req is the
// request itself.
type agentStep struct {
	prompt          []llama.Token
	sources, answer [][]llama.Token
	req             *model.Request
	// editGrammar is the call grammar of the request's tools narrowed as
	// the agent narrows them (agent/paths: old_string is text of run.go),
	// demanding edit_file calls, one after another: the grammar under
	// which the step writes its edit, for a peer that is sent GBNF. Empty
	// when the tools lack edit_file.
	editGrammar string
}

// stepAfterRead is the agent's step after it read run.go for task, in the
// model's chat template and call format, as `loop run -c 16384` sends it:
// the agent is loop.New's and its first step reads run.go with the real
// read_file tool. It returns an empty step, and no error, for a model
// without a chat template.
func stepAfterRead(ctx context.Context, m *llama.Model, task string) (agentStep, error) {
	if _, ok := m.ChatTemplate(""); !ok {
		return agentStep{}, nil
	}
	t, err := (&templateFlags{}).template(m, true)
	if err != nil {
		return agentStep{}, err
	}
	dir, err := os.MkdirTemp("", "loop-bench-call-")
	if err != nil {
		return agentStep{}, err
	}
	defer os.RemoveAll(dir)
	if err := os.WriteFile(filepath.Join(dir, "run.go"), []byte(callFile()), 0o644); err != nil {
		return agentStep{}, err
	}
	read, err := model.NewScript("hermes", []model.Reply{{Text: "<tool_call>\n{\"name\": \"read_file\", \"arguments\": {\"path\": \"run.go\"}}\n</tool_call>"}})
	if err != nil {
		return agentStep{}, err
	}
	rec := &secondRequest{first: read}
	// At a 16K window read_file shows 76 lines, so the 47 of run.go come
	// whole, as one read of a file that size does.
	a, err := loop.New(rec, loop.Settings{Dir: dir, Window: 16384, NoInstructions: true, MaxSteps: 2})
	if err != nil {
		return agentStep{}, err
	}
	a.Run(ctx, task)
	if rec.req == nil {
		return agentStep{}, fmt.Errorf("the agent did not send the step after reading run.go: %v", a.History())
	}
	format := callformat.Detect(t).Format
	p, err := local.Prompt(t, format, local.Request{Messages: rec.req.Messages, Tools: rec.req.Tools})
	if err != nil {
		return agentStep{}, err
	}
	st := agentStep{req: rec.req}
	if st.prompt, err = local.Tokenize(m, p.Text); err != nil {
		return agentStep{}, err
	}
	f, err := callformat.New(format, rec.req.Tools)
	if err != nil {
		return agentStep{}, err
	}
	if st.editGrammar, err = editCallGrammar(format, rec.req); err != nil {
		return agentStep{}, err
	}
	if st.sources, err = local.DraftSources(m, f, rec.req.DraftSources); err != nil {
		return agentStep{}, err
	}
	if st.answer, err = local.DraftSources(m, nil, rec.req.AnswerSources); err != nil {
		return agentStep{}, err
	}
	return st, nil
}

// editCallGrammar is agentStep.editGrammar for req in the call format
// format: its tools as the agent narrows them, edit_file demanded, one
// call after another; "" when the tools lack edit_file.
func editCallGrammar(format string, req *model.Request) (string, error) {
	narrowed := req.GrammarTools
	if len(narrowed) == 0 {
		narrowed = req.Tools
	}
	if !slices.ContainsFunc(narrowed, func(t chat.Tool) bool { return t.Name == "edit_file" }) {
		return "", nil
	}
	f, err := callformat.New(format, narrowed)
	if err != nil {
		return "", err
	}
	cg, err := f.Grammar(grammar.CallOptions{Choice: grammar.Choice{Mode: grammar.ChoiceFunction, Function: "edit_file"}, Parallel: true})
	if err != nil {
		return "", err
	}
	return cg.GBNF, nil
}

// secondRequest answers an agent's first request with a script and keeps
// the second, which it does not answer.
type secondRequest struct {
	first *model.Script
	req   *model.Request
}

func (s *secondRequest) Complete(ctx context.Context, req model.Request) (*model.Response, error) {
	if s.first.Requests() == 0 {
		return s.first.Complete(ctx, req)
	}
	s.req = &req
	return nil, errors.New("bench: the edit step is kept, not answered")
}
