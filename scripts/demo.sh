#!/usr/bin/env bash
# The demo (make demo): a tiny model trained on this machine
# (scripts/train-demo.sh) tries each held-out bug fix through the real
# agent loop, and the task's own check says afterwards which it fixed; then
# a short loop eval compares it with no reliability layer (no grammar, no
# repair, no retries, no loop guard, no gate) against the whole layer, on
# held-out tasks it never saw, with 95% Wilson intervals and an HTML
# report. Run the same on your own model with -m YOUR.gguf:
#
#   bin/loop run -m YOUR.gguf -C DIR "make the failing test pass"
#   bin/loop eval -m YOUR.gguf --suite testdata/eval/live --config scripts/demo/none.json --config scripts/demo/whole.json
set -euo pipefail

MODEL=${MODEL:-testdata/models/agent-tiny-qwen2-f32.gguf}
SUITE=testdata/eval/live
TASKS=${TASKS:-10}
THREADS=${THREADS:-$(nproc)}

part=$(mktemp -d)
trap 'rm -rf "$part"' EXIT
# What the demo keeps (the runs' transcripts and the HTML report) goes
# outside the checkout, so that it leaves git status clean.
runs=$(mktemp -d "${TMPDIR:-/tmp}/loop-demo.XXXXXX")
REPORT=${REPORT:-$runs/report.html}
fixes=("$SUITE"/*-fix)

echo "== 1. loop run: the demo model on the ${#fixes[@]} held-out bug fixes (tasks it has not seen), one after the other"
fixed=0
for fix in "${fixes[@]}"; do
	task=$(sed -n 's/^  "task": "\(.*\)",$/\1/p' "$fix/scenario.json")
	check=$(sed -n 's/^    "check": "\(.*\)",*$/\1/p' "$fix/scenario.json")
	ws="$part/$(basename "$fix")"
	cp -r "$fix/workspace" "$ws"
	echo
	echo "-- $(basename "$fix"): $task"
	status=0
	bin/loop run -m "$MODEL" -C "$ws" -c 4096 -t "$THREADS" --yes --no-subagent --max-steps 12 --max-tokens 256 \
		--transcript "$runs/$(basename "$fix").jsonl" "$task" || status=$?
	# The task's own check, run again after the agent: the fix is real only if it passes.
	if (cd "$ws" && GOFLAGS=-count=1 GOWORK=off bash -c "$check" >/dev/null 2>&1); then
		fixed=$((fixed + 1))
		echo "(exit code $status; afterwards \`$check\` passes: fixed)"
	else
		echo "(exit code $status; afterwards \`$check\` fails: not fixed)"
	fi
done
echo
echo "fixed ${fixed} of ${#fixes[@]} held-out bugs (one run each, so a rate with a wide interval; step 2 measures with several)"
echo "transcripts: $runs"
echo

echo "== 2. loop eval: no reliability layer against the whole layer, $TASKS held-out tasks"
# The copy keeps the suite's directory name: the report names the suite by it.
sub="$part/$(basename "$SUITE")"
mkdir "$sub"
for d in $(ls -d "$SUITE"/*/ | head -"$TASKS"); do cp -r "$d" "$sub/"; done
bin/loop eval -m "$MODEL" -c 4096 -t "$THREADS" --suite "$sub" --config scripts/demo/none.json \
	--config scripts/demo/whole.json --html "$REPORT"
echo
echo "HTML report: $REPORT (open file://$(cd "$(dirname "$REPORT")" && pwd)/$(basename "$REPORT") in a browser)"
