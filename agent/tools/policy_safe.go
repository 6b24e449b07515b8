package tools

import (
	"regexp"
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// What runs without asking: a plain command line made only of safe
// commands. The rules are Codex's (codex-rs shell-command
// command_safety/is_safe_command.rs and bash.rs), with loop's stricter
// readings and a few reading commands of loop's own, each marked below.
//
// Plain means: words of literal text, single quotes, and double quotes
// holding only literal text; commands joined by &&, ||, ; | and newlines;
// redirection only of output to /dev/null (>/dev/null, 2>/dev/null,
// &>/dev/null) and of one descriptor to another (2>&1, >&2). Anything else
// is not plain: comments, assignments, $x, ${x}, $(...), backticks,
// $((...)), $'...', $"...", subshells, { }, <( ), &, !, functions,
// if/for/while/case, [[ ]], here-documents, ~user, brace expansion.
//
// Globs: Codex lets a bare * through. Loop lets a glob through only when
// the text before its first * ? or [ holds a "/" and does not start with
// "-" (src/*.go, ./*): the model can create a file named --pre=bash or
// -delete, and a glob like * would hand that name to rg or find as an
// option. *.go asks.

// plainCommands returns the words of each command of f when f is plain.
func (r wordReader) plainCommands(f *syntax.File) ([][]string, bool) {
	if len(f.Last) > 0 || len(f.Stmts) == 0 {
		return nil, false
	}
	var out [][]string
	for _, st := range f.Stmts {
		if !r.plainStmt(st, &out) {
			return nil, false
		}
	}
	return out, true
}

func (r wordReader) plainStmt(st *syntax.Stmt, out *[][]string) bool {
	if len(st.Comments) > 0 || st.Negated || st.Background || st.Coprocess || st.Disown {
		return false
	}
	for _, rd := range st.Redirs {
		if !r.plainRedirect(rd) {
			return false
		}
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 || len(c.Args) == 0 {
			return false
		}
		words := make([]string, len(c.Args))
		for i, w := range c.Args {
			s, ok := r.literal(w)
			if !ok || !plainWord(w) {
				return false
			}
			words[i] = s
		}
		*out = append(*out, words)
		return true
	case *syntax.BinaryCmd:
		if c.Op != syntax.AndStmt && c.Op != syntax.OrStmt && c.Op != syntax.Pipe {
			return false
		}
		return r.plainStmt(c.X, out) && r.plainStmt(c.Y, out)
	}
	return false
}

// plainRedirect allows output to /dev/null and 2>&1-style duplication.
func (r wordReader) plainRedirect(rd *syntax.Redirect) bool {
	if rd.N != nil && !isDigits(rd.N.Value) || rd.Word == nil || !plainWord(rd.Word) {
		return false
	}
	target, ok := r.literal(rd.Word)
	switch rd.Op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrAll, syntax.AppAll, syntax.RdrClob:
		return ok && target == "/dev/null"
	case syntax.DplOut:
		return ok && isDigits(target)
	}
	return false
}

func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// plainWord reports whether w holds only literal text (see the rules
// above for ~ and globs).
func plainWord(w *syntax.Word) bool {
	if syntax.SplitBraces(&syntax.Word{Parts: w.Parts}) {
		return false
	}
	var prefix strings.Builder // the text before the first glob character
	for i, part := range w.Parts {
		switch part := part.(type) {
		case *syntax.Lit:
			if i == 0 && strings.HasPrefix(part.Value, "~") {
				if p, _, _ := strings.Cut(part.Value, "/"); p != "~" {
					return false
				}
			}
			for j := 0; j < len(part.Value); j++ {
				c := part.Value[j]
				if c == '\\' && j+1 < len(part.Value) {
					j++
					c = part.Value[j]
				} else if c == '*' || c == '?' || c == '[' {
					p := prefix.String()
					return strings.Contains(p, "/") && !strings.HasPrefix(p, "-")
				}
				prefix.WriteByte(c)
			}
		case *syntax.SglQuoted:
			if part.Dollar {
				return false
			}
			prefix.WriteString(part.Value)
		case *syntax.DblQuoted:
			if part.Dollar {
				return false
			}
			for _, in := range part.Parts {
				lit, ok := in.(*syntax.Lit)
				if !ok {
					return false
				}
				prefix.WriteString(unescapeDouble(lit.Value))
			}
		default:
			return false
		}
	}
	return true
}

// safeAlways are Codex's commands that only read, whatever their
// arguments. (Codex lists uniq here too; loop checks its operands below.)
var safeAlways = []string{"cat", "cd", "cut", "echo", "expr", "false", "grep", "head", "id", "ls", "nl",
	"paste", "pwd", "rev", "seq", "stat", "tail", "tr", "true", "uname", "wc", "which", "whoami", "numfmt", "tac"}

// safeChecks are the commands that are safe without some options.
var safeChecks = map[string]func(args []string) (string, bool){
	"base64": func(args []string) (string, bool) { // -o and --output write a file
		return "base64", !slices.ContainsFunc(args, func(a string) bool { return shortCluster(a, "o") || longOption(a, "--output") })
	},
	"find": func(args []string) (string, bool) { // these run commands, delete, or write files
		unsafe := []string{"-exec", "-execdir", "-ok", "-okdir", "-delete", "-fls", "-fprint", "-fprint0", "-fprintf"}
		return "find", !slices.ContainsFunc(args, func(a string) bool { return slices.Contains(unsafe, a) })
	},
	"rg": func(args []string) (string, bool) { // --pre and --hostname-bin run a command, -z runs decompressors
		return "rg", !slices.ContainsFunc(args, func(a string) bool {
			return shortCluster(a, "z") || longOption(a, "--pre", "--hostname-bin", "--search-zip")
		})
	},
	"sed": safeSed,
	"git": safeGit,
	// Loop's own, beyond Codex: sort without -o/--output (writes a file)
	// or --compress-program (runs one).
	"sort": func(args []string) (string, bool) {
		return "sort", !slices.ContainsFunc(args, func(a string) bool {
			return shortCluster(a, "o") || longOption(a, "--output", "--compress-program")
		})
	},
	// Codex's uniq, read more strictly: "uniq IN OUT" writes OUT.
	"uniq": func(args []string) (string, bool) { return "uniq", uniqOperands(args) <= 1 },
	// Loop's own: diff only reads (its -l runs pr, a fixed program).
	"diff": func([]string) (string, bool) { return "diff", true },
	// Loop's own: tree without -o (writes a file) or -R (writes 00Tree.html).
	"tree": func(args []string) (string, bool) {
		return "tree", !slices.ContainsFunc(args, func(a string) bool { return shortCluster(a, "oR") })
	},
}

// safeCommand returns the rule a command's words match when it is safe.
// The command name must be bare: ./ls is a file of the workspace.
func safeCommand(words []string) (string, bool) {
	name, args := words[0], words[1:]
	if strings.Contains(name, "/") {
		return "", false
	}
	if slices.Contains(safeAlways, name) {
		return name, true
	}
	if check, ok := safeChecks[name]; ok {
		return check(args)
	}
	return "", false
}

// sedPrint matches sed's N or M,N print command.
var sedPrint = regexp.MustCompile(`^([0-9]+,)?[0-9]+p$`)

// safeSed allows Codex's "sed -n Np [FILE]" and "sed -n M,Np [FILE]". Loop
// also refuses a FILE that starts with "-": GNU sed reads options after
// operands, and --expression=e would run the lines of a file as commands.
func safeSed(args []string) (string, bool) {
	ok := len(args) >= 2 && len(args) <= 3 && args[0] == "-n" && sedPrint.MatchString(args[1]) &&
		(len(args) == 2 || !strings.HasPrefix(args[2], "-"))
	return "sed -n", ok
}

// gitReadOnly are Codex's reading git subcommands, then loop's own
// (ls-files, blame and grep only read too).
var gitReadOnly = []string{"status", "log", "diff", "show", "branch", "ls-files", "blame", "grep"}

// safeGit allows the reading subcommands without -c or --config-env (a
// config can name a program to run), -p (runs the pager) or --exec-path,
// and without the options that write a file or run a program.
func safeGit(args []string) (string, bool) {
	globals, sub, rest, ok := splitGit(args)
	if !ok || !slices.Contains(gitReadOnly, sub) {
		return "", false
	}
	for _, g := range globals {
		if strings.HasPrefix(g, "-c") || strings.HasPrefix(g, "--config-env") || g == "-p" || g == "--paginate" ||
			strings.HasPrefix(g, "--exec-path") {
			return "", false
		}
	}
	for _, a := range rest {
		if a != "--text" && longOption(a, "--output", "--ext-diff", "--textconv", "--exec", "--paginate", "--open-files-in-pager") {
			return "", false
		}
		if sub == "grep" && shortCluster(a, "O") {
			return "", false
		}
	}
	if sub == "branch" && !gitBranchReadOnly(rest) {
		return "", false
	}
	return "git " + sub, true
}

// gitBranchReadOnly reports whether git branch's arguments only list
// branches: none, or only listing flags. A name creates a branch.
func gitBranchReadOnly(args []string) bool {
	listing := []string{"--list", "-l", "--show-current", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose"}
	for _, a := range args {
		if !slices.Contains(listing, a) && !strings.HasPrefix(a, "--format=") {
			return false
		}
	}
	return true
}

// uniqOperands counts uniq's file operands; the values of -f, -s and -w
// are not files.
func uniqOperands(args []string) int {
	n := 0
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return n + len(args) - i - 1
		case slices.Contains([]string{"-f", "-s", "-w", "--skip-fields", "--skip-chars", "--check-chars"}, a):
			i++
		case len(a) < 2 || a[0] != '-':
			n++
		}
	}
	return n
}

// shortCluster reports whether a is a cluster of short options (-abc)
// holding any of letters: -o, -no and -ofile all name -o.
func shortCluster(a, letters string) bool {
	return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], letters)
}

// longOption reports whether a is one of the long options names, also
// abbreviated (--out=x is --output=x to GNU and git option parsers).
func longOption(a string, names ...string) bool {
	name, _, _ := strings.Cut(a, "=")
	if len(name) < 3 || !strings.HasPrefix(name, "--") {
		return false
	}
	return slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, name) })
}
