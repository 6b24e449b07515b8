#!/usr/bin/env bash
# The recipe of the demo model (make trained): rebuilds demo/model.gguf,
# the held-out suite demo/suite and demo/manifest.json from nothing, with
# fixed seeds. `make demo` never runs this: it uses the files the
# repository holds. Training takes hours on 2 cores; it is checkpointed
# after each epoch in $CKPT, and a run started again with the same inputs
# goes on from the last epoch done (loop train --resume), bit for bit.
#
#   scripts/train-demo.sh     # from the repository root, after make build testdata
#
# Each stage prints its wall time; the manifest records them, the recipe
# (this file), the hashes of every input and the loss of every epoch,
# and the evaluation of the model on the held-out suite.
set -euo pipefail

DEMO=demo
CKPT=${CKPT:-.cache/demo-checkpoint}
WORK=${WORK:-.cache/demo-work}
BASE=testdata/models/train-qwen2-qwen25vocab8k-f32.gguf # make testdata: 2 layers, 128 wide, random weights

# The recipe. Why these numbers: demo/manifest.json's "why".
N_CHATS=1000       # training chats, the ten families in turn
N_TASKS=40         # held-out tasks, half of them in held-out workspace shapes
GEN_SEED=1         # the generator's seed: chat i is task seed 1<<32 | i
RETRY=0.3          # share of the chats that open with a broken call the loop sends back
EPOCHS=16
CTX=2560           # the longest chat is 2,408 tokens of the pruned vocabulary
LR=3e-3            # the peak of the cosine schedule
PREFIX_EVERY=4     # steps the system prompt's keys and values serve
TRAIN_SEED=1
THREADS=2          # the losses' last bits depend on the threads; keep them to reproduce
EVAL_SEEDS=3

mkdir -p "$WORK" "$DEMO"
t0=$SECONDS
stage() { echo "== $1 ($((SECONDS - t0)) s so far)"; }

stage "$N_CHATS training chats and $N_TASKS held-out tasks (real loop runs with scripted replies)"
s=$SECONDS
rm -rf "$WORK/suite"
go run ./scripts/gentrain --out "$WORK/train.jsonl" --n "$N_CHATS" --seed "$GEN_SEED" --retry-share "$RETRY" \
	--tasks "$WORK/suite" --n-tasks "$N_TASKS"
gen_s=$((SECONDS - s))

stage "training for $EPOCHS epochs on $THREADS threads (checkpoints in $CKPT)"
s=$SECONDS
resume=()
if [[ -f $CKPT/manifest.json ]]; then
	echo "going on from the checkpoint in $CKPT (remove it to start over)"
	resume=(--resume "$CKPT")
fi
bin/loop train -m "$BASE" --data "$WORK/train.jsonl" -o "$DEMO/model.gguf" --epochs "$EPOCHS" --ctx "$CTX" \
	--lr "$LR" --seed "$TRAIN_SEED" -t "$THREADS" --prefix-every "$PREFIX_EVERY" --checkpoint "$CKPT" "${resume[@]}"
train_s=$((SECONDS - s))
rm -rf "$DEMO/suite"
cp -r "$WORK/suite" "$DEMO/suite"

stage "evaluating on the $N_TASKS held-out tasks, $EVAL_SEEDS seeds: no reliability layer against the whole layer"
s=$SECONDS
bin/loop eval -m "$DEMO/model.gguf" -c 4096 -t "$THREADS" --suite "$DEMO/suite" --seeds "$EVAL_SEEDS" \
	--config scripts/demo/none.json --config scripts/demo/whole.json --json >"$WORK/eval.json"
eval_s=$((SECONDS - s))

commit=$(git rev-parse HEAD 2>/dev/null || true)
if [[ -n $commit && -n $(git status --porcelain -- scripts/gentrain agent/train agent/loop agent/tools llama 2>/dev/null) ]]; then
	echo "note: the generator's or trainer's sources differ from $commit; the manifest records $commit's trees" >&2
fi
go run ./scripts/demomodel write --dir "$DEMO" --checkpoint "$CKPT" --eval "held-out=$WORK/eval.json" \
	--seconds "gentrain=$gen_s" --seconds "train=$train_s" --seconds "eval=$eval_s" \
	--why scripts/demo/why.md --commit "$commit"
echo "the recipe took $((SECONDS - t0)) s: chats ${gen_s} s, training ${train_s} s, eval ${eval_s} s"
