#!/usr/bin/env bash
# Writes the demo model: the training base finetuned by `loop train` on
# synthetic agent transcripts (scripts/gentrain), deterministically (fixed
# seeds), and the live evaluation suite of held-out tasks. Both are cached
# under the hash of their inputs: the generator's and the trainer's
# sources, the base model and the settings below; a second run with the
# same inputs does nothing.
#
#   scripts/train-demo.sh            # from the repository root, after make build testdata
set -euo pipefail

MODELS=testdata/models
BASE=$MODELS/train-qwen2-qwen25vocab8k-f32.gguf
OUT=$MODELS/agent-tiny-qwen2-f32.gguf
SUITE=testdata/eval/live
KEY_FILE=$MODELS/.agent-tiny.key
# The recipe. Changing a number changes the key.
#
# Why these numbers: smaller recipes build faster but lose the fixes. On 2
# cores (AMD EPYC, AVX-512), scored on the six held-out fix tasks × 3 seeds
# with the whole reliability layer (loop eval --config scripts/demo/whole.json):
#   600 chats, 12 epochs: held-out loss 0.2407, 9/18 fixed; 8m43s in all
#   600 chats,  6 epochs: held-out loss 0.3040, 4/18
#   300 chats, 10 epochs: held-out loss 0.5748 (30 chats held out), 0/18
# Time: gentrain costs about 0.23 s a chat, nearly all of it go test (34
# runs per 60 chats, about 0.8 CPU-seconds each: of 765 ms wall, 257 link the
# test binary and 235 compile); training about 57 ms a window per epoch.
N_CHATS=${N_CHATS:-600}
EPOCHS=${EPOCHS:-12}
CTX=${CTX:-2048}
LR=${LR:-3e-3}   # the peak of the cosine schedule
RETRY=${RETRY:-0.3} # share of the chats that open with a broken call the loop sends back
PREFIX_EVERY=${PREFIX_EVERY:-4} # steps the system prompt's keys and values serve (loop train --prefix-every)
SEED=1
N_TASKS=30
THREADS=${THREADS:-$(nproc)}

key=$( {
	echo "n=$N_CHATS epochs=$EPOCHS ctx=$CTX lr=$LR retry=$RETRY seed=$SEED tasks=$N_TASKS prefix_every=$PREFIX_EVERY"
	sha256sum "$BASE"
	cat scripts/gentrain/*.go llama/train*.go llama/graph.cpp llama/graph.h cmd/loop/train*.go agent/train/*.go agent/tools/*.go agent/loop/*.go | sha256sum
} | sha256sum | cut -d' ' -f1)

if [[ -f $OUT && -f $SUITE/.key && -f $KEY_FILE && $(cat "$KEY_FILE") == "$key" && $(cat "$SUITE/.key") == "$key" ]]; then
	echo "demo model up to date: $OUT"
	exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
echo "writing $N_CHATS training transcripts (real loop runs with scripted replies)"
go run ./scripts/gentrain --out "$work/train.jsonl" --n "$N_CHATS" --seed "$SEED" --retry-share "$RETRY" \
	--tasks "$work/live" --n-tasks "$N_TASKS"
echo "training $BASE for $EPOCHS epochs on $THREADS threads"
bin/loop train -m "$BASE" --data "$work/train.jsonl" -o "$OUT" --epochs "$EPOCHS" --ctx "$CTX" --lr "$LR" --seed "$SEED" -t "$THREADS" \
	--prefix-every "$PREFIX_EVERY"
rm -rf "$SUITE"
mkdir -p "$(dirname "$SUITE")"
cp -r "$work/live" "$SUITE"
echo "$key" >"$SUITE/.key"
echo "$key" >"$KEY_FILE"
echo "wrote $OUT and the live suite $SUITE ($N_TASKS held-out tasks)"
