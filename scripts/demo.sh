#!/usr/bin/env bash
# The demo (make demo): a tiny model trained on this machine
# (scripts/train-demo.sh) fixes a bug through the real agent loop, then a
# short loop eval compares it with no reliability layer (no grammar, no
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
REPORT=${REPORT:-demo-report.html}

fix=$(ls -d "$SUITE"/*-fix | head -1)
task=$(sed -n 's/^  "task": "\(.*\)",$/\1/p' "$fix/scenario.json")
ws=$(mktemp -d)
part=$(mktemp -d)
trap 'rm -rf "$ws" "$part"' EXIT
cp -r "$fix/workspace/." "$ws/"

echo "== 1. loop run: the demo model on a bug it has not seen ($(basename "$fix"))"
echo "   workspace: $ws"
echo "   task: $task"
echo
status=0
bin/loop run -m "$MODEL" -C "$ws" -c 4096 -t "$THREADS" --yes --no-subagent --max-steps 12 --max-tokens 256 \
	--transcript "$ws.jsonl" "$task" || status=$?
echo "(exit code $status; transcript $ws.jsonl)"
echo

echo "== 2. loop eval: no reliability layer against the whole layer, $TASKS held-out tasks"
for d in $(ls -d "$SUITE"/*/ | head -"$TASKS"); do cp -r "$d" "$part/"; done
bin/loop eval -m "$MODEL" -c 4096 -t "$THREADS" --suite "$part" --config scripts/demo/none.json \
	--config scripts/demo/whole.json --html "$REPORT"
echo
echo "HTML report: $REPORT"
