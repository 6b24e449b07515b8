package tools

import (
	"context"
	"os"
	"slices"
	"strings"
)

// Policy decides which shell commands run. The shell tool asks it before
// every command. It parses the command with a real bash parser
// (mvdan.cc/sh) and decides on the syntax tree, in this order:
//
//  1. A command that does not parse never runs without asking, and with
//     Yes it is refused: the deny list cannot be judged on it.
//  2. The deny list, judged on every command anywhere in the tree
//     (substitutions, subshells, functions, bash -c and eval text), holds
//     even with Yes. See policy_deny.go for how commands are normalised.
//  3. Yes allows everything else.
//  4. A plain command line whose every command is safe runs without
//     asking: Codex's rules (see policy_safe.go), reason "safe: ls, grep".
//  5. With Sandboxed, a plain command line whose every command is safe or
//     starts with an AllowList prefix (tests and builds) runs without
//     asking, reason "sandbox: go test".
//  6. The Check command runs without asking, reason "the check command".
//  7. The rest goes to Ask, or is refused when Ask is nil.
//
// The policy keeps a confused model from harm it did not mean and keeps
// the user asked about what a command line does not show plainly. It
// reads only the command line: a script the command runs, a config file
// it reads (.git/config can name programs for git to run) or a value that
// only exists at run time can still do anything. What contains an
// attacker is the kernel sandbox the workspace runs commands in.
type Policy struct {
	// Allow lists the test-and-build command prefixes that run without
	// asking when Sandboxed is set, matched word by word ("go test"
	// matches "go test ./...", not "go testx"). nil means DefaultAllow();
	// an empty, non-nil slice allows none. Without Sandboxed they are
	// asked: a test runs the repository's own code.
	Allow []string
	// Deny lists the command prefixes that never run, even with Yes. nil
	// means DefaultDeny(); an empty, non-nil slice denies nothing. An
	// entry "A | B" denies a command starting with A that feeds one
	// starting with B, through a pipe or a substitution.
	Deny []string
	// Ask is called for a command no rule decides, and returns whether it
	// may run. An error from Ask is a failure of the harness, and the
	// shell tool returns it. nil refuses such commands.
	Ask func(ctx context.Context, command string) (bool, error)
	// Yes allows every command the deny list does not refuse, without
	// asking (loop run --yes).
	Yes bool
	// Sandboxed says that commands run in a kernel sandbox that confines
	// their writes to the workspace; set by the workspace. It lets the
	// Allow list run without asking.
	Sandboxed bool
	// Check is the user's own check command (loop run --check CMD). The
	// same command, spaces around it aside, runs without asking once the
	// deny list has passed it.
	Check string
}

// Decision is a policy's answer about one command.
type Decision struct {
	Allowed bool
	// Reason says which rule decided, for the model and the transcript:
	// "safe: ls, grep", "sandbox: go test", "the check command",
	// "deny list: sudo", "--yes", "asked: yes", "asked: no".
	Reason string
}

// The reasons of refusals that are not a rule's.
const (
	reasonUnparsed = "could not be parsed as bash; write it plainly"
	reasonNoAsk    = "not on the allow list, and no one to ask"
)

var defaultAllow = []string{
	"go test", "go build", "go vet", "go list", "go version", "go env", "gofmt -l", "gofmt -d",
	"make test", "make check", "npm test", "npm run test", "pytest", "python -m pytest", "python3 -m pytest",
	"cargo test", "cargo build", "cargo check", "mvn -q test", "mvn test", "gradle test", "./gradlew test",
}

var defaultDeny = []string{
	"sudo", "su", "doas", "pkexec",
	"rm -rf /", "rm -rf /*", "rm -rf ~", "rm -rf ~/*", "rm -rf $HOME", "rm -rf ..", "rm -r /", "rm -r ~",
	"xargs rm -r", "xargs rm -rf",
	"find / -delete", "find / -exec rm", "find ~ -delete", "find ~ -exec rm",
	"curl | sh", "curl | bash", "curl | zsh", "curl | python", "curl | python3", "curl | perl",
	"curl | source", "curl | .", "curl | eval",
	"wget | sh", "wget | bash", "wget | zsh", "wget | python", "wget | python3", "wget | perl",
	"wget | source", "wget | .", "wget | eval",
	"git push", "mkfs", "shutdown", "reboot", "poweroff", "halt", "chmod -R 777 /", "chown -R",
}

// DefaultAllow is the allow list of the zero Policy: the tests, builds
// and checks that run without asking in a sandbox (go test, go build, go
// vet, go env without -w or -u, make test, npm test, pytest, cargo test,
// mvn -q test, ...).
func DefaultAllow() []string { return slices.Clone(defaultAllow) }

// DefaultDeny is the deny list of the zero Policy: sudo and its kin, rm
// -rf of / or the home directory or .., xargs running rm -r on operands
// no one can see, find deleting from / or the home directory, a download
// fed to a shell or an interpreter (curl | sh, bash <(curl ...), sh -c
// "$(wget ...)"), git push, mkfs, shutdown and reboot, chmod -R 777 / and
// chown -R.
func DefaultDeny() []string { return slices.Clone(defaultDeny) }

// Decide judges command. It returns an error only when Ask does.
func (p Policy) Decide(ctx context.Context, command string) (Decision, error) {
	f, err := parseBash(command)
	if err != nil {
		if p.Yes {
			return Decision{Reason: reasonUnparsed}, nil
		}
		return p.ask(ctx, command, reasonUnparsed)
	}
	r := wordReader{home: homeDir()}
	if rule, ok := newDenyScan(p.DenyList(), r).file(f, 0); ok {
		return Decision{Reason: "deny list: " + rule}, nil
	}
	if p.Yes {
		return Decision{Allowed: true, Reason: "--yes"}, nil
	}
	if cmds, ok := r.plainCommands(f); ok {
		if reason, ok := p.autoRun(cmds); ok {
			return Decision{Allowed: true, Reason: reason}, nil
		}
	}
	if p.Check != "" && strings.TrimSpace(command) == strings.TrimSpace(p.Check) {
		return Decision{Allowed: true, Reason: "the check command"}, nil
	}
	return p.ask(ctx, command, reasonNoAsk)
}

// ask asks the user, or refuses with noOne when no one can be asked.
func (p Policy) ask(ctx context.Context, command, noOne string) (Decision, error) {
	if p.Ask == nil {
		return Decision{Reason: noOne}, nil
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

// autoRun decides a plain command line: every command must be safe or,
// with Sandboxed, on the allow list. The reason names the rules matched.
func (p Policy) autoRun(cmds [][]string) (string, bool) {
	var rules []string
	sandbox := false
	for _, words := range cmds {
		rule, ok := safeCommand(words)
		if !ok && p.Sandboxed {
			rule, ok = p.buildRule(words)
			sandbox = sandbox || ok
		}
		if !ok {
			return "", false
		}
		if !slices.Contains(rules, rule) {
			rules = append(rules, rule)
		}
	}
	if sandbox {
		return "sandbox: " + strings.Join(rules, ", "), true
	}
	return "safe: " + strings.Join(rules, ", "), true
}

// buildRule returns the allow-list prefix that words start with. go env
// -w and -u never match: they change the user's settings for later runs.
func (p Policy) buildRule(words []string) (string, bool) {
	if hasWordPrefix(words, []string{"go", "env"}) && slices.ContainsFunc(words[2:], isGoEnvWrite) {
		return "", false
	}
	for _, rule := range p.AllowList() {
		if hasWordPrefix(words, strings.Fields(rule)) {
			return rule, true
		}
	}
	return "", false
}

// isGoEnvWrite matches go env's -w and -u flags, as Go's flag package
// reads them (-w, --w, -w=true).
func isGoEnvWrite(a string) bool {
	if !strings.HasPrefix(a, "-") {
		return false
	}
	name, _, _ := strings.Cut(strings.TrimLeft(a, "-"), "=")
	return name == "w" || name == "u"
}

// hasWordPrefix reports whether words starts with prefix, word by word.
func hasWordPrefix(words, prefix []string) bool {
	return len(prefix) > 0 && len(words) >= len(prefix) && slices.Equal(words[:len(prefix)], prefix)
}

// homeDir is the directory ~ and $HOME stand for; "~" when unknown.
func homeDir() string {
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return home
	}
	return "~"
}

// AllowList is the allow list in effect: what Sandboxed lets run.
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
