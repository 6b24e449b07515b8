package tools

import (
	"context"
	"path"
	"slices"
	"strings"
)

// Policy decides which shell commands run. The shell tool asks it before
// every command. The deny list is checked first and holds even with Yes;
// then Yes allows everything; then a command runs without asking when
// every simple command in it starts with an allow-list prefix and it has
// no $( ), backticks or output redirection to a file; the rest goes to Ask.
//
// Prefixes match whole words after quotes are removed, the command's
// directory is dropped (/usr/bin/sudo is sudo) and leading variable
// assignments and wrappers (env, command, exec, nohup, time, nice,
// timeout, xargs, stdbuf) are skipped: "go test" matches "go test ./..."
// and "GOFLAGS=-v go test", not "go testx". A deny entry "A | B" matches a
// pipeline in which a command starting with A feeds one starting with B.
// rm's flags are normalised, so "rm -rf /" also denies "rm -fr /" and
// "rm -r -f --no-preserve-root /".
//
// The policy guards against a confused model, not an attacker: a script
// the command runs, an alias or an eval can still do anything.
type Policy struct {
	// Allow lists the command prefixes that run without asking. nil means
	// DefaultAllow(); an empty, non-nil slice asks about everything.
	Allow []string
	// Deny lists the command prefixes that never run, even with Yes. nil
	// means DefaultDeny(); an empty, non-nil slice denies nothing.
	Deny []string
	// Ask is called for a command that neither list decides, and returns
	// whether it may run. An error from Ask is a failure of the harness,
	// and the shell tool returns it. nil refuses such commands.
	Ask func(ctx context.Context, command string) (bool, error)
	// Yes allows every command the deny list does not refuse, without
	// asking (loop run --yes).
	Yes bool
}

// Decision is a policy's answer about one command.
type Decision struct {
	Allowed bool
	// Reason says which rule decided, for the model and the transcript:
	// "allow list: go test", "deny list: sudo", "--yes", "asked: yes".
	Reason string
}

var defaultAllow = []string{
	"go test", "go build", "go vet", "go list", "go version", "go env", "gofmt -l", "gofmt -d",
	"make test", "make check", "npm test", "npm run test", "pytest", "python -m pytest", "python3 -m pytest",
	"cargo test", "cargo build", "cargo check", "mvn -q test", "mvn test", "gradle test", "./gradlew test",
	"ls", "cat", "head", "tail", "wc", "grep", "rg", "sort", "uniq", "diff", "pwd", "echo", "cd", "tree", "which", "true",
	"git status", "git diff", "git log", "git show", "git blame", "git grep", "git ls-files",
}

var defaultDeny = []string{
	"sudo", "su", "doas", "pkexec",
	"rm -rf /", "rm -rf /*", "rm -rf ~", "rm -rf ~/", "rm -rf ~/*", "rm -rf $HOME", "rm -rf ..", "rm -r /", "rm -r ~",
	"curl | sh", "curl | bash", "curl | zsh", "curl | python", "curl | python3", "curl | perl",
	"wget | sh", "wget | bash", "wget | zsh", "wget | python", "wget | python3", "wget | perl",
	"git push", "mkfs", "shutdown", "reboot", "poweroff", "halt", "chmod -R 777 /", "chown -R",
}

// DefaultAllow is the allow list of the zero Policy: tests, builds and
// checks (go test, go build, go vet, make test, npm test, pytest, cargo
// test, mvn -q test, ...), commands that only read (ls, cat, head, tail,
// wc, grep, diff, ...), cd, and the reading git commands (status, diff,
// log, show, blame, grep, ls-files).
func DefaultAllow() []string { return slices.Clone(defaultAllow) }

// DefaultDeny is the deny list of the zero Policy: sudo and its kin, rm -rf
// of / or the home directory or .., a download piped into a shell or an
// interpreter (curl | sh, wget | bash, ...), git push, mkfs, shutdown and
// reboot, chmod -R 777 / and chown -R.
func DefaultDeny() []string { return slices.Clone(defaultDeny) }

// Decide judges command. It returns an error only when Ask does.
func (p Policy) Decide(ctx context.Context, command string) (Decision, error) {
	pc := parseCommand(command)
	if rule, ok := p.denied(pc); ok {
		return Decision{Reason: "deny list: " + rule}, nil
	}
	if p.Yes {
		return Decision{Allowed: true, Reason: "--yes"}, nil
	}
	if rules, ok := p.allowed(pc); ok {
		return Decision{Allowed: true, Reason: "allow list: " + strings.Join(rules, ", ")}, nil
	}
	if p.Ask == nil {
		return Decision{Reason: "not on the allow list, and no one to ask"}, nil
	}
	ok, err := p.Ask(ctx, command)
	if err != nil {
		return Decision{}, &Error{Op: "ask", Path: command, Err: err}
	}
	if ok {
		return Decision{Allowed: true, Reason: "asked: yes"}, nil
	}
	return Decision{Reason: "asked: no"}, nil
}

// AllowList is the allow list in effect.
func (p Policy) AllowList() []string {
	if p.Allow == nil {
		return DefaultAllow()
	}
	return slices.Clone(p.Allow)
}

// DenyList is the deny list in effect.
func (p Policy) DenyList() []string {
	if p.Deny == nil {
		return DefaultDeny()
	}
	return slices.Clone(p.Deny)
}

// allowed reports whether every simple command of pc matches an allow
// prefix, and which ones matched.
func (p Policy) allowed(pc parsedCommand) ([]string, bool) {
	if len(pc.cmds) == 0 || pc.substitution || pc.redirect {
		return nil, false
	}
	allow := p.AllowList()
	var rules []string
	for _, c := range pc.cmds {
		words := commandWords(c.words)
		i := slices.IndexFunc(allow, func(rule string) bool { return hasWordPrefix(words, strings.Fields(rule)) })
		if i < 0 {
			return nil, false
		}
		if !slices.Contains(rules, allow[i]) {
			rules = append(rules, allow[i])
		}
	}
	return rules, true
}

// denied returns the first deny rule that pc matches.
func (p Policy) denied(pc parsedCommand) (string, bool) {
	words := make([][]string, len(pc.cmds))
	var forms [][]string
	for i, c := range pc.cmds {
		words[i] = commandWords(c.words)
		forms = append(forms, denyForms(words[i])...)
	}
	for _, rule := range p.DenyList() {
		if left, right, ok := strings.Cut(rule, "|"); ok {
			if pipes(pc, words, strings.Fields(left), strings.Fields(right)) {
				return rule, true
			}
			continue
		}
		want := strings.Fields(rule)
		for _, f := range forms {
			if hasWordPrefix(f, want) {
				return rule, true
			}
		}
	}
	return "", false
}

// pipes reports whether a command starting with left feeds, through one
// or more |, a command starting with right. words are the commands'
// words as commandWords gives them.
func pipes(pc parsedCommand, words [][]string, left, right []string) bool {
	feeds := false // whether cmds[i] feeds a right command
	for i := len(pc.cmds) - 2; i >= 0; i-- {
		feeds = pc.cmds[i].pipeNext && (feeds || hasWordPrefix(words[i+1], right))
		if feeds && hasWordPrefix(words[i], left) {
			return true
		}
	}
	return false
}

// wrappers run the command that follows them.
var wrappers = []string{"env", "command", "builtin", "exec", "nohup", "time", "nice", "timeout", "xargs", "stdbuf"}

// commandWords drops leading assignments and wrappers (with their options
// and numbers), and the directory of the command's name.
func commandWords(words []string) []string {
	wrapped := false
	for len(words) > 0 {
		w := words[0]
		switch {
		case isAssignment(w):
		case slices.Contains(wrappers, path.Base(w)):
			wrapped = true
		case wrapped && (strings.HasPrefix(w, "-") || isDuration(w)):
		default:
			out := slices.Clone(words)
			out[0] = path.Base(w)
			return out
		}
		words = words[1:]
	}
	return nil
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	return ok && name != "" && strings.Trim(name, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == "" && !isDigits(name[:1])
}

// isDuration matches the numbers wrappers take: 10, 2.5, 30s, 1m.
func isDuration(w string) bool {
	return isDigits(strings.TrimRight(strings.Replace(w, ".", "", 1), "smhd"))
}

// denyForms is the forms a command is checked in against the deny list:
// itself, and for rm one normalised form per operand ("rm -rf OP").
func denyForms(words []string) [][]string {
	if len(words) == 0 || words[0] != "rm" {
		return [][]string{words}
	}
	var recursive, force, flagsDone bool
	var operands []string
	for _, w := range words[1:] {
		switch {
		case flagsDone || !strings.HasPrefix(w, "-") || w == "-":
			operands = append(operands, w)
		case w == "--":
			flagsDone = true
		case w == "--recursive":
			recursive = true
		case w == "--force":
			force = true
		case !strings.HasPrefix(w, "--"):
			recursive = recursive || strings.ContainsAny(w, "rR")
			force = force || strings.Contains(w, "f")
		}
	}
	flag := map[[2]bool]string{{true, true}: "-rf", {true, false}: "-r", {false, true}: "-f"}[[2]bool{recursive, force}]
	forms := [][]string{words}
	for _, op := range operands {
		form := []string{"rm"}
		if flag != "" {
			form = append(form, flag)
		}
		forms = append(forms, append(form, op))
	}
	return forms
}

// hasWordPrefix reports whether words starts with prefix, word by word.
func hasWordPrefix(words, prefix []string) bool {
	return len(prefix) > 0 && len(words) >= len(prefix) && slices.Equal(words[:len(prefix)], prefix)
}
