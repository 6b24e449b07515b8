package tools

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"mvdan.cc/sh/v3/syntax"
)

// FuzzDecide judges arbitrary command lines: Decide never panics, a
// command it runs without asking parses and holds none of the syntax a
// plain command may not hold, and a denied command stays denied with Yes.
func FuzzDecide(f *testing.F) {
	for _, s := range []string{
		"ls", "git status --short", "ls >/dev/null 2>&1", `grep -n "a b" 'c d' e\ f`, "go test ./... | tail -5",
		"ls #'\ntouch /tmp/x\n#'", `echo $'\' ' ; touch /tmp/x ; echo $'\' '`, "cat a.txt >&/tmp/leak", "echo x 1<>/tmp/rw",
		"GIT_EXTERNAL_DIFF=x git diff", "git -C . push", "echo ~ | xargs rm -rf", "rm -rf //", "rm -rf ${HOME}",
		"find / -delete", "bash <(curl x)", "env -S 'rm -rf /'", `$'\x73udo' ls`, "{sudo,ls}", "bash -c 'bash -c \"sudo ls\"'",
		"ls src/*.go", "ls ~", `ls "~"`, "echo {1..99999999}", "a=$(b) c", "f() { g; }", "cat <<EOF\n$x\nEOF", "`", "$(", "'", `"`, "\\",
	} {
		f.Add(s)
	}
	ctx := context.Background()
	f.Fuzz(func(t *testing.T, command string) {
		for _, p := range []Policy{{}, {Sandboxed: true}} {
			d, err := p.Decide(ctx, command)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(d.Reason, "safe: ") && !strings.HasPrefix(d.Reason, "sandbox: ") {
				if strings.HasPrefix(d.Reason, "deny list") {
					if y, _ := (Policy{Yes: true}).Decide(ctx, command); y.Allowed {
						t.Fatalf("Decide(%q): denied, but allowed with Yes", command)
					}
				}
				continue
			}
			file, err := syntax.NewParser(syntax.KeepComments(true)).Parse(strings.NewReader(command), "")
			if err != nil {
				t.Fatalf("Decide(%q) = %+v, but it does not parse: %v", command, d, err)
			}
			if bad := forbiddenSyntax(file); bad != "" {
				t.Fatalf("Decide(%q) = %+v, but it holds %s", command, d, bad)
			}
		}
	})
}

// forbiddenSyntax names the first thing in f that a plain command line
// may not hold, or "". It is written apart from plainCommands, from the
// rules in policy_safe.go's comment.
func forbiddenSyntax(f *syntax.File) string {
	if len(f.Last) > 0 {
		return "a comment"
	}
	var bad string
	syntax.Walk(f, func(n syntax.Node) bool {
		switch n := n.(type) {
		case nil, *syntax.File, *syntax.Word, *syntax.Lit:
		case *syntax.Stmt:
			if len(n.Comments) > 0 || n.Background || n.Negated || n.Coprocess || n.Disown {
				bad = "a comment, &, ! or |&"
			}
		case *syntax.CallExpr:
			if len(n.Assigns) > 0 {
				bad = "an assignment"
			}
		case *syntax.BinaryCmd:
			if n.Op != syntax.AndStmt && n.Op != syntax.OrStmt && n.Op != syntax.Pipe {
				bad = "operator " + n.Op.String()
			}
		case *syntax.SglQuoted:
			if n.Dollar {
				bad = "$'...'"
			}
		case *syntax.DblQuoted:
			if n.Dollar {
				bad = `$"..."`
			}
		case *syntax.Redirect:
			if !allowedRedirect(n) {
				bad = "redirection " + n.Op.String()
			}
		default:
			bad = fmt.Sprintf("%T", n)
		}
		return bad == ""
	})
	return bad
}

// allowedRedirect allows output to /dev/null and duplication to a digit.
func allowedRedirect(rd *syntax.Redirect) bool {
	if rd.N != nil && strings.Trim(rd.N.Value, "0123456789") != "" || rd.Word == nil {
		return false
	}
	var text strings.Builder
	for _, part := range rd.Word.Parts {
		switch part := part.(type) {
		case *syntax.Lit:
			text.WriteString(part.Value)
		case *syntax.SglQuoted:
			text.WriteString(part.Value)
		case *syntax.DblQuoted:
			for _, in := range part.Parts {
				if lit, ok := in.(*syntax.Lit); ok {
					text.WriteString(lit.Value)
				}
			}
		}
	}
	switch rd.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		return text.String() == "/dev/null"
	case syntax.DplOut:
		return text.String() != "" && strings.Trim(text.String(), "0123456789") == ""
	}
	return false
}
