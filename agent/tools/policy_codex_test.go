package tools

import (
	"context"
	"strings"
	"testing"
)

// TestCodexExamples runs the example commands of Codex's own tests through
// Decide (no sandbox, no one to ask) and checks that each command Codex
// approves without asking runs without asking here, and each it does not
// approve does not, except where loop deliberately disagrees, which the
// case's why explains.
//
// The reference is openai/codex codex-rs/shell-command/src (formerly
// codex-rs/core/src): command_safety/is_safe_command.rs (55dfa3cf),
// command_safety/is_dangerous_command.rs (043e574c, and the older
// core/src version 015ea257), and the plain-command parser tests of bash.rs
// (4935b354). safe is Codex's is_known_safe_command verdict for the
// example. The dangerous-command tests name commands that are not known
// safe, except "git status", "ls" and "echo 'rm -rf /tmp/example'".
//
// Translation: loop's shell tool runs its command with bash -c, so a
// Codex example ["bash", "-lc", SCRIPT] (or zsh) is the command SCRIPT
// here, and an argv example is its words joined, quoted as needed.
// The four-argument ["bash", "-lc", "git", "status"] has no one-string
// form; it is kept as the command line "bash -lc git status", safe to
// neither. Left out: the Windows and PowerShell tests
// (windows_powershell_full_path, windows_git_full_path,
// direct_powershell_words), which need Windows paths and PowerShell.
func TestCodexExamples(t *testing.T) {
	tests := codexExamples
	var agree, disagree int
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Policy{}.Decide(context.Background(), tt.command)
			if err != nil {
				t.Fatal(err)
			}
			got := d.Allowed && strings.HasPrefix(d.Reason, "safe: ")
			want := tt.safe != (tt.why != "")
			if got != want {
				t.Errorf("Decide(%q) = %+v, want runs without asking %v (Codex: %v, why: %q)", tt.command, d, want, tt.safe, tt.why)
			}
		})
		if tt.why == "" {
			agree++
		} else {
			disagree++
		}
	}
	t.Logf("Codex examples: %d, loop agrees on %d and deliberately disagrees on %d", len(tests), agree, disagree)
}

// codexExamples are the example commands of Codex's tests; see
// TestCodexExamples.
var codexExamples = []struct {
	name, command string
	safe          bool   // Codex runs it without asking
	why           string // why loop disagrees; "" when it agrees
}{
	// is_safe_command.rs known_safe_examples
	{name: "ls", command: "ls", safe: true},
	{name: "git status", command: "git status", safe: true},
	{name: "git branch", command: "git branch", safe: true},
	{name: "git branch --show-current", command: "git branch --show-current", safe: true},
	{name: "base64", command: "base64", safe: true},
	{name: "sed -n 1,5p", command: "sed -n 1,5p file.txt", safe: true},
	{name: "nl", command: "nl -nrz Cargo.toml", safe: true},
	{name: "find by name", command: "find . -name file.txt", safe: true},
	{name: "numfmt", command: "numfmt 1000", safe: true},
	{name: "tac", command: "tac Cargo.toml", safe: true},
	// git_branch_mutating_flags_are_not_safe
	{name: "git branch -d", command: "git branch -d feature"},
	{name: "git branch new", command: "git branch new-branch"},
	// git_branch_global_options_respect_safety_rules
	{name: "git -C branch --show-current", command: "git -C . branch --show-current", safe: true},
	{name: "git -C branch -d", command: "git -C . branch -d feature"},
	{name: "bash -lc git -C branch -d", command: "git -C . branch -d feature"},
	// git_first_positional_is_the_subcommand
	{name: "git checkout status", command: "git checkout status"},
	// git_output_and_config_override_flags_are_not_safe
	{name: "git log --output=", command: "git log --output=/tmp/git-log-out-test -n 1"},
	{name: "git diff --output", command: "git diff --output /tmp/git-diff-out-test"},
	{name: "git show --output=", command: "git show --output=/tmp/git-show-out-test HEAD"},
	{name: "git -c core.pager", command: "git -c core.pager=cat log -n 1"},
	{name: "git -ccore.pager", command: "git -ccore.pager=cat status"},
	// cargo_check_is_not_safe, zsh_lc_safe_command_sequence
	{name: "cargo check", command: "cargo check"},
	{name: "zsh -lc ls", command: "ls", safe: true},
	// unknown_or_partial
	{name: "foo", command: "foo"},
	{name: "git fetch", command: "git fetch"},
	{name: "sed -n xp", command: "sed -n xp file.txt"},
	{name: "find -exec", command: `find . -name file.txt -exec rm {} \;`},
	{name: "find -execdir", command: `find . -name '*.py' -execdir python3 {} \;`},
	{name: "find -ok", command: `find . -name file.txt -ok rm {} \;`},
	{name: "find -okdir", command: `find . -name '*.py' -okdir python3 {} \;`},
	{name: "find -delete", command: "find . -delete -name file.txt"},
	{name: "find -fls", command: "find . -fls /etc/passwd"},
	{name: "find -fprint", command: "find . -fprint /etc/passwd"},
	{name: "find -fprint0", command: "find . -fprint0 /etc/passwd"},
	{name: "find -fprintf", command: `find . -fprintf /root/suid.txt '%#m %u %p\n'`},
	// base64_output_options_are_unsafe
	{name: "base64 -o", command: "base64 -o out.bin"},
	{name: "base64 --output", command: "base64 --output out.bin"},
	{name: "base64 --output=", command: "base64 --output=out.bin"},
	{name: "base64 -oFILE", command: "base64 -ob64.txt"},
	// ripgrep_rules
	{name: "rg", command: "rg Cargo.toml -n", safe: true},
	{name: "rg --search-zip", command: "rg --search-zip files"},
	{name: "rg -z", command: "rg -z files"},
	{name: "rg --pre", command: "rg --pre pwned files"},
	{name: "rg --pre=", command: "rg --pre=pwned files"},
	{name: "rg --hostname-bin", command: "rg --hostname-bin pwned files"},
	{name: "rg --hostname-bin=", command: "rg --hostname-bin=pwned files"},
	// bash_lc_safe_examples
	{name: "ls -1", command: "ls -1", safe: true},
	{name: "grep -R quoted", command: `grep -R "Cargo.toml" -n`, safe: true},
	{name: "sed -n quoted", command: "sed -n '1,5p' file.txt", safe: true},
	// bash_lc_safe_examples_with_operators
	{name: "grep or true", command: `grep -R "Cargo.toml" -n || true`, safe: true},
	{name: "ls and pwd", command: "ls && pwd", safe: true},
	{name: "echo then ls", command: "echo 'hi' ; ls", safe: true},
	{name: "ls into wc", command: "ls | wc -l", safe: true},
	// bash_lc_unsafe_examples
	{name: "four-argument bash -lc", command: "bash -lc git status"},
	{name: "quoted program name", command: "'git status'"},
	{name: "find -delete in bash", command: "find . -name file.txt -delete"},
	{name: "ls and rm -rf /", command: "ls && rm -rf /"},
	{name: "subshell", command: "(ls)"},
	{name: "nested subshell", command: "ls || (pwd && echo hi)"},
	{name: "redirect", command: "ls > out.txt"},
	// bash.rs parser tests
	{name: "accepts multiple operators", command: "ls && pwd; echo 'hi there' | wc -l", safe: true},
	{name: "double quoted", command: `echo "hello world"`, safe: true},
	{name: "single quoted", command: "echo 'hi there'", safe: true},
	{name: "newline in double quotes", command: "git commit -m \"line1\nline2\""},
	{name: "mixed quote concatenation", command: `echo "/usr"'/'"local"/bin`, safe: true},
	{name: "mixed quote concatenation 2", command: `echo '/usr'"/"'local'/bin`, safe: true},
	{name: "braced variable in quotes", command: `echo "hi ${USER}"`},
	{name: "variable in quotes", command: `echo "$HOME"`},
	{name: "numbers", command: "echo 123 456", safe: true},
	{name: "background", command: "echo hi & echo bye"},
	{name: "command substitution", command: "echo $(pwd)"},
	{name: "backticks", command: "echo `pwd`"},
	{name: "bare variable", command: "echo $HOME"},
	{name: "variable inside text", command: `echo "hi $USER"`},
	{name: "assignment prefix", command: "FOO=bar ls"},
	{name: "trailing operator", command: "ls &&"},
	{name: "leading operator", command: "&& ls"},
	{name: "double separator", command: "ls ;; pwd"},
	{name: "empty pipeline segment", command: "ls | | wc"},
	{name: "exec policy redirect", command: "gh run view 123 --log > /tmp/out.log && echo saved"},
	{name: "exec policy substitution", command: `gh run view "$RUN_ID" --log > /tmp/out.log`},
	{name: "concatenated flag and value", command: `rg -n "foo" -g"*.py"`, safe: true},
	{name: "concatenated single quotes", command: "grep -n 'pattern' -g'*.txt'", safe: true},
	{name: "concatenated variable", command: `rg -g"$VAR" pattern`},
	{name: "concatenated braced variable", command: `rg -g"${VAR}" pattern`},
	{name: "concatenated substitution", command: `rg -g"$(pwd)" pattern`},
	{name: "concatenated substitution 2", command: `rg -g"$(echo '*.py')" pattern`},
	{name: "heredoc quoted", command: "python3 <<'PY'\nprint('hello')\nPY"},
	{name: "heredoc unquoted", command: "python3 << PY\nprint('hello')\nPY"},
	{name: "heredoc then echo", command: "python3 <<'PY'\nprint('hello')\nPY\necho done"},
	{name: "echo to a file", command: "echo hello > /tmp/out.txt"},
	{name: "heredoc and redirect", command: "python3 <<'PY' > /tmp/out.txt\nprint('hello')\nPY"},
	{name: "herestring substitution", command: `python3 <<< "$(rm -rf /)"`},
	{name: "arithmetic shift", command: "echo $((1<<2))"},
	{name: "heredoc with arithmetic", command: "python3 $((1<<2)) <<'PY'\nprint('hello')\nPY"},
	// is_dangerous_command.rs
	{name: "git reset", command: "git reset"},
	{name: "bash git reset --hard", command: "git reset --hard"},
	{name: "zsh git reset --hard", command: "git reset --hard"},
	{name: "git status is not dangerous", command: "git status", safe: true},
	{name: "bash git status", command: "git status", safe: true},
	{name: "sudo git reset", command: "sudo git reset --hard"},
	{name: "usr bin git reset", command: "/usr/bin/git reset --hard"},
	{name: "rm -rf /", command: "rm -rf /"},
	{name: "rm -f /", command: "rm -f /"},
	{name: "external sandbox ls", command: "ls", safe: true},
	{name: "external sandbox rm -rf /", command: "rm -rf /"},
	{name: "bin rm -fr", command: "/bin/rm -fr /tmp/example"},
	{name: "rm -r -f", command: "rm -r -f /tmp/example"},
	{name: "rm --force", command: "rm --force /tmp/example"},
	{name: "rm flag last", command: "rm /tmp/example -f"},
	{name: "sudo rm -rf", command: "sudo rm -rf /tmp/example"},
	{name: "printf into rm", command: "printf x | rm -rf /tmp/example"},
	{name: "rm in if", command: "if test -d /tmp/example; then rm --force /tmp/example; fi"},
	{name: "rm of a variable", command: `rm -rf "$TARGET" >/dev/null`},
	{name: "rm in for", command: `for target in /tmp/a /tmp/b; do rm -r -f "$target"; done`},
	{name: "rm in substitution", command: `echo "$(rm -rf /tmp/example)"`},
	{name: "long loop", command: `for a in '-C5a25KeRr' '--' '--json' '--bogus'; do HOME=$(mktemp -d) MDE_URL=http://127.0.0.1:1 MDE_TOKEN=x node cli/mde.cjs ls "$a" >/tmp/mde-review-out 2>/tmp/mde-review-err; code=$?; printf '%s\t%s\t%s\n' "$a" "$code" "$(tr '\n' ' ' </tmp/mde-review-err)"; rm -rf "$HOME"; done`},
	{name: "rm -r", command: "rm -r /tmp/example"},
	{name: "rm -- -f", command: "rm -- -f"},
	{name: "echo of rm", command: "echo 'rm -rf /tmp/example'", safe: true},
	{name: "rm through a variable", command: "cmd=rm; $cmd -rf /tmp/example"},
	{name: "if then", command: "if then rm -rf /tmp/example"},
}

// TestCodexRuleDisagreements lists commands outside Codex's tests where
// loop deliberately decides otherwise than Codex's rules, as
// is_safe_command.rs reads: codex is whether Codex runs the command
// without asking; loop does the opposite, for the reason given.
func TestCodexRuleDisagreements(t *testing.T) {
	tests := []struct {
		name, command string
		codex         bool
		why           string
	}{
		{"uniq with an output file", "uniq a.txt out.txt", true, "uniq IN OUT writes OUT"},
		{"sed expression after the file", "sed -n 1p --expression=e", true,
			"GNU sed reads options after operands; the e command runs the lines of file 1p"},
		{"bare glob", "rg foo *", true, "a file named --pre=bash would become an option that runs bash on every file"},
		{"program in the workspace", "./cat x", true, "Codex judges the base name; ./cat is whatever file the model wrote"},
		{"abbreviated git option", "git diff --outp=/tmp/x", true, "git accepts --outp for --output"},
		{"rg -z in a cluster", "rg -nz foo", true, "-nz holds -z"},
		{"git pager", "git -p log", true, "-p runs the pager"},
		{"git exec path", "git --exec-path=/tmp status", true, "git may run helpers from the exec path"},
		{"git log -c", "git log -c", false, "after the subcommand -c is the combined diff format, not a config"},
		{"output to /dev/null", "ls 2>/dev/null", false, "writing to /dev/null changes nothing"},
		{"descriptor duplication", "ls 2>&1 | head", false, "2>&1 only joins stderr to stdout"},
		{"sort", "sort -n a.txt", false, "loop's own: sort only reads without -o or --compress-program"},
		{"diff", "diff a.txt b.txt", false, "loop's own: diff only reads"},
		{"tree", "tree -L 2", false, "loop's own: tree only reads without -o or -R"},
		{"git ls-files", "git ls-files", false, "loop's own: ls-files only reads"},
		{"git blame", "git blame main.go", false, "loop's own: blame only reads"},
		{"git grep", "git grep -n foo", false, "loop's own: git grep only reads without -O"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Policy{}.Decide(context.Background(), tt.command)
			if err != nil {
				t.Fatal(err)
			}
			if got := d.Allowed && strings.HasPrefix(d.Reason, "safe: "); got == tt.codex {
				t.Errorf("Decide(%q) = %+v, want the opposite of Codex (%v): %s", tt.command, d, tt.codex, tt.why)
			}
		})
	}
	t.Logf("deliberate disagreements with Codex's rules: %d", len(tests))
}
