#!/usr/bin/env bash
# The recipe of the demo model (make trained): rebuilds demo/model.gguf,
# the held-out suite demo/suite and demo/manifest.json from nothing, with
# fixed seeds. `make demo` never runs this: it uses the files the
# repository holds. Training takes many hours on 2 cores, in five stages
# from random weights. First copying (gentrain --copy: the user gives
# lines of two-word names and numbers, the assistant writes them again),
# where nothing but copying from the context lowers the loss. Then
# copying where the agent copies: the same requests, nine to a chat,
# after the agent's system prompt and tools (--copy-turns), because a
# model that learnt to copy near the start of its context does not copy a
# thousand tokens in. Then, from those weights, the agent's chats, with
# copy drills and long copy chats mixed in so that copying stays the
# cheaper way to the names, twice: on every token, then at a lower rate.
# Last, the model is grown from 2 blocks to 4 (scripts/growmodel: the new
# blocks' output matrices start at zero, so the grown model answers as
# the small one did) and trained on the same chats again. Each stage is checkpointed
# after each epoch ($CKPT0 ... $CKPT3), and a run started again with the
# same inputs goes on from the last epoch done (loop train --resume), bit
# for bit.
#
#   scripts/train-demo.sh              # from the repository root, after make build testdata
#   scripts/train-demo.sh --chats-only # writes the chats and the suite, and stops
#
# Each stage prints its wall time; the manifest records them, the recipe
# (this file), the hashes of every input and the loss of every epoch,
# and the evaluation of the model on the held-out suite.
set -euo pipefail

DEMO=demo
CKPT0=${CKPT0:-.cache/demo-checkpoint-copy}
CKPT0B=${CKPT0B:-.cache/demo-checkpoint-copy-long}
CKPT1=${CKPT1:-.cache/demo-checkpoint-chats}
CKPT2=${CKPT2:-.cache/demo-checkpoint-chats-2}
CKPT3=${CKPT3:-.cache/demo-checkpoint}
WORK=${WORK:-.cache/demo-work}
BASE=testdata/models/train-qwen2-qwen25vocab8k-f32.gguf # make testdata: 2 layers, 128 wide, random weights
STAGE0=$WORK/copy.gguf # the copy stage's weights
STAGE0B=$WORK/copy-long.gguf # the long copy stage's weights, the chats' base
STAGE1=$WORK/chats.gguf # the first pass over the agent's chats
STAGE2=$WORK/chats-2.gguf # the second pass, the grown model's source
GROWN=$WORK/grown.gguf # STAGE2 with GROW_LAYERS blocks, the last stage's base

# The recipe. Why these numbers: demo/manifest.json's "why".
# Stage 0: copying.
N_COPY_CHATS=6000  # copy chats (gentrain --copy), 3 to 6 lines each
COPY_CHAT_SEED=21
EPOCHS0=10
CTX0=384           # every copy chat fits it
LR0=3e-3           # the peak of the cosine schedule
VAL0=0.05          # copy chats held out for the loss
TRAIN_SEED0=1
# Stage 0b: copying after the agent's system prompt and tools.
N_LONG=660         # long copy chats (gentrain --copy --copy-turns), each of TURNS requests
TURNS=9            # the longest chat stays within CTX
LONG_SEED=31
EPOCHS0B=6         # the schedule's length ...
STOP0B=1           # ... of which one epoch runs: the held-out loss is near zero after it
LR0B=2e-3
VAL0B=0.05
# Stage 1: the agent's chats.
N_CHATS=1000       # training chats per generator seed, the ten families in turn
GEN_SEEDS="1 2"    # the generator's seeds: chat i of seed s is task seed s<<32 | i
N_COPY=500         # copy drills (gentrain --families copyfix): one 10-40-line edit each
COPY_SEED=3
N_RENAME=500       # rename drills (gentrain --families copyrename): a rename through random statements
RENAME_SEED=13
N_LONG_MIX=300     # long copy chats among the agent's
LONG_MIX_SEED=32
N_TASKS=40         # held-out tasks (of the first seed), half of them in held-out workspace shapes
RETRY=0.3          # share of the chats that open with a broken call the loop sends back
EPOCHS=4
PRETRAIN=2         # the first two epochs train on every token after the shared prefix (tasks, code, results): the model learns to read its context
CTX=3072           # every chat fits it (loop train refuses one that does not): a rename drill is up to 2,954 tokens
LR=2e-3            # the peak of the cosine schedule
PREFIX_EVERY=4     # steps the system prompt's keys and values serve
PREFIX_SHARE=0.1   # each tool set's system prompt and schemas run forward only (a question gets fewer tools)
TRAIN_SEED=5
# Stage 2: the same chats again, at a lower rate.
EPOCHS2=2
LR2=1e-3
# Stage 3: grown to 4 blocks, the same chats again.
GROW_LAYERS=4
GROW_SEED=6        # the new blocks' random matrices
EPOCHS3=4
LR3=1e-3
QWEN_DIR=${QWEN_DIR:-.cache/npm/tokenizer-qwen3-3.7.2} # the tokenizer (make deps)
LOOP_CHAT_TEMPLATES=${LOOP_CHAT_TEMPLATES:-../shared/chat-templates}
THREADS=2          # the losses' last bits depend on the threads; keep them to reproduce
EVAL_SEEDS=3

chats_only=
case ${1-} in
--chats-only) chats_only=1 ;;
"") ;;
*) echo "usage: scripts/train-demo.sh [--chats-only]" >&2; exit 2 ;;
esac

mkdir -p "$WORK" "$DEMO"
t0=$SECONDS
stage() { echo "== $1 ($((SECONDS - t0)) s so far)"; }

# gen OUT ARGS...: one gentrain file; a finished file is kept, so that a
# stopped recipe goes on without writing it again.
gen() {
	local out=$1
	shift
	if [[ ! -f $out ]]; then
		go run ./scripts/gentrain --out "$out.tmp" "$@"
		mv "$out.tmp" "$out"
	fi
}

stage "copy chats ($N_COPY_CHATS, seed $COPY_CHAT_SEED)"
s=$SECONDS
gen "$WORK/copy-chats.jsonl" --copy --n "$N_COPY_CHATS" --seed "$COPY_CHAT_SEED"
gen "$WORK/long-copy.jsonl" --copy --copy-turns "$TURNS" --n "$N_LONG" --seed "$LONG_SEED"

stage "training chats (seeds $GEN_SEEDS, $N_CHATS each; $N_COPY copy drills, $N_RENAME rename drills, $N_LONG_MIX long copy chats) and $N_TASKS held-out tasks (real loop runs with scripted replies)"
# The first seed also writes the held-out tasks.
tasks=(--tasks "$WORK/suite.tmp" --n-tasks "$N_TASKS")
for seed in $GEN_SEEDS; do
	out=$WORK/train-$seed.jsonl
	if [[ ! -f $out ]]; then
		rm -rf "$WORK/suite.tmp"
		go run ./scripts/gentrain --out "$out.tmp" --n "$N_CHATS" --seed "$seed" --retry-share "$RETRY" "${tasks[@]}"
		if ((${#tasks[@]})); then rm -rf "$WORK/suite" && mv "$WORK/suite.tmp" "$WORK/suite"; fi
		mv "$out.tmp" "$out"
	fi
	tasks=()
done
gen "$WORK/copy.jsonl" --families copyfix --n "$N_COPY" --seed "$COPY_SEED" --retry-share "$RETRY"
gen "$WORK/rename.jsonl" --families copyrename --n "$N_RENAME" --seed "$RENAME_SEED"
gen "$WORK/long-mix.jsonl" --copy --copy-turns "$TURNS" --n "$N_LONG_MIX" --seed "$LONG_MIX_SEED"
cat "$WORK"/train-*.jsonl "$WORK/copy.jsonl" "$WORK/rename.jsonl" "$WORK/long-mix.jsonl" >"$WORK/train.jsonl"
gen_s=$((SECONDS - s))
if [[ -n $chats_only ]]; then
	echo "the chats are in $WORK and the held-out suite in $WORK/suite ($gen_s s)"
	exit 0
fi

# train BASE DATA OUT EPOCHS LR SEED CKPT CTX [FLAGS...]: one stage, going
# on from its checkpoint if there is one.
train() {
	local resume=()
	if [[ -f $7/manifest.json ]]; then
		echo "going on from the checkpoint in $7 (remove it to start over)"
		resume=(--resume "$7")
	fi
	bin/loop train -m "$1" --data "$2" -o "$3" --epochs "$4" --ctx "$8" --lr "$5" --seed "$6" -t "$THREADS" \
		--checkpoint "$7" "${resume[@]}" "${@:9}"
}

stage "training, stage 0 (copying): $EPOCHS0 epochs on $THREADS threads from random weights (checkpoints in $CKPT0)"
s=$SECONDS
train "$BASE" "$WORK/copy-chats.jsonl" "$STAGE0" "$EPOCHS0" "$LR0" "$TRAIN_SEED0" "$CKPT0" "$CTX0" --val "$VAL0"
train0_s=$((SECONDS - s))

stage "training, stage 0b (copying after the agent's prompt): epoch $STOP0B of $EPOCHS0B from stage 0's weights (checkpoints in $CKPT0B)"
s=$SECONDS
train "$STAGE0" "$WORK/long-copy.jsonl" "$STAGE0B" "$EPOCHS0B" "$LR0B" "$TRAIN_SEED0" "$CKPT0B" "$CTX" --val "$VAL0B" --stop-after "$STOP0B" \
	--prefix-every "$PREFIX_EVERY" --prefix-share "$PREFIX_SHARE"
train0b_s=$((SECONDS - s))

stage "training, stage 1 (the agent's chats): $EPOCHS epochs from stage 0b's weights (checkpoints in $CKPT1)"
s=$SECONDS
train "$STAGE0B" "$WORK/train.jsonl" "$STAGE1" "$EPOCHS" "$LR" "$TRAIN_SEED" "$CKPT1" "$CTX" \
	--pretrain-epochs "$PRETRAIN" --prefix-every "$PREFIX_EVERY" --prefix-share "$PREFIX_SHARE"
train1_s=$((SECONDS - s))

stage "training, stage 2 (the agent's chats again): $EPOCHS2 epochs from stage 1's weights (checkpoints in $CKPT2)"
s=$SECONDS
train "$STAGE1" "$WORK/train.jsonl" "$STAGE2" "$EPOCHS2" "$LR2" "$TRAIN_SEED" "$CKPT2" "$CTX" \
	--prefix-every "$PREFIX_EVERY" --prefix-share "$PREFIX_SHARE"
train2_s=$((SECONDS - s))

stage "growing stage 2's model to $GROW_LAYERS blocks"
go run ./scripts/growmodel -m "$STAGE2" -o "$GROWN" --layers "$GROW_LAYERS" --seed "$GROW_SEED"

stage "training, stage 3 (the grown model, the agent's chats): $EPOCHS3 epochs (checkpoints in $CKPT3)"
s=$SECONDS
train "$GROWN" "$WORK/train.jsonl" "$DEMO/model.gguf" "$EPOCHS3" "$LR3" "$TRAIN_SEED" "$CKPT3" "$CTX" \
	--prefix-every "$PREFIX_EVERY" --prefix-share "$PREFIX_SHARE"
train3_s=$((SECONDS - s))
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
go run ./scripts/demomodel write --dir "$DEMO" --stage "$CKPT0" --stage "$CKPT0B" --stage "$CKPT1" --stage "$CKPT2" \
	--grow "$STAGE2=$GROWN" --checkpoint "$CKPT3" --eval "held-out=$WORK/eval.json" \
	--seconds "gentrain=$gen_s" --seconds "train-copy=$train0_s" --seconds "train-copy-long=$train0b_s" --seconds "train-chats=$train1_s" --seconds "train-chats-2=$train2_s" --seconds "train-grown=$train3_s" \
	--seconds "eval=$eval_s" --why scripts/demo/why.md --commit "$commit"
echo "the recipe took $((SECONDS - t0)) s: chats ${gen_s} s, training ${train0_s} + ${train0b_s} + ${train1_s} + ${train2_s} + ${train3_s} s, eval ${eval_s} s"
