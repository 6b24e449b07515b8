#!/usr/bin/env bash
# The recipe of the demo model (make trained): rebuilds demo/model.gguf,
# the held-out suite demo/suite and demo/manifest.json from nothing, with
# fixed seeds. `make demo` never runs this: it uses the files the
# repository holds. Training takes hours on 2 cores, in two stages: the
# first on chats with gentrain's small name pools, the second, from the
# first's weights, on chats whose names are two words of 160
# (gentrain --names wide), which a model gets right only by copying them
# from what it read. Each stage is checkpointed after each epoch ($CKPT,
# $CKPT2), and a run started again with the same inputs goes on from the
# last epoch done (loop train --resume), bit for bit.
#
#   scripts/train-demo.sh     # from the repository root, after make build testdata
#
# Each stage prints its wall time; the manifest records them, the recipe
# (this file), the hashes of every input and the loss of every epoch,
# and the evaluation of the model on the held-out suite.
set -euo pipefail

DEMO=demo
CKPT=${CKPT:-.cache/demo-checkpoint}
CKPT2=${CKPT2:-.cache/demo-checkpoint-2}
WORK=${WORK:-.cache/demo-work}
BASE=$WORK/base.gguf # the demo shape of scripts/genmodels: 4 layers, 256 wide, random weights
STAGE1=$WORK/stage1.gguf # the first stage's weights, the second's base

# The recipe. Why these numbers: demo/manifest.json's "why".
BASE_SEED=7        # the base's random weights
N_CHATS=1000       # training chats per generator seed, the ten families in turn
GEN_SEEDS="1 2"    # the generator's seeds: chat i of seed s is task seed s<<32 | i
N_COPY=500         # copy drills (gentrain --families copyfix): one 10-40-line edit each
COPY_SEED=3
N_TASKS=40         # held-out tasks (of the first seed), half of them in held-out workspace shapes
RETRY=0.3          # share of the chats that open with a broken call the loop sends back
EPOCHS=8
CTX=2560           # every chat fits it (loop train refuses one that does not)
LR=2e-3            # the peak of the cosine schedule
PREFIX_EVERY=4     # steps the system prompt's keys and values serve
PREFIX_SHARE=0.1   # each tool set's system prompt and schemas run forward only (a question gets fewer tools)
TRAIN_SEED=5
# The second stage: wide names.
WIDE_SEED=11       # the generator's seed of the wide-name chats
N_WIDE=1000        # wide-name chats, the ten families in turn
WIDE_COPY_SEED=12
N_WIDE_COPY=500    # wide-name copy drills
EPOCHS2=4
CTX2=3072          # wide names take more tokens: the longest chat is over 2,560
LR2=1e-3           # the peak of the second cosine schedule: the weights start trained
TRAIN_SEED2=6
QWEN_DIR=${QWEN_DIR:-.cache/npm/tokenizer-qwen3-3.7.2} # the tokenizer (make deps)
LOOP_CHAT_TEMPLATES=${LOOP_CHAT_TEMPLATES:-../shared/chat-templates}
THREADS=2          # the losses' last bits depend on the threads; keep them to reproduce
EVAL_SEEDS=3

mkdir -p "$WORK" "$DEMO"
t0=$SECONDS
stage() { echo "== $1 ($((SECONDS - t0)) s so far)"; }

stage "the base: random weights in the demo shape"
go run ./scripts/genmodels --output "$BASE" --arch qwen2 --vocab qwen25-8k --type f32 --size demo \
	--pad-vocab 8320 --seed "$BASE_SEED" --qwen "$QWEN_DIR/models" \
	--template "$LOOP_CHAT_TEMPLATES/Qwen-Qwen2.5-7B-Instruct.jinja"

stage "training chats (seeds $GEN_SEEDS, $N_CHATS each; $N_COPY copy drills) and $N_TASKS held-out tasks (real loop runs with scripted replies)"
s=$SECONDS
# A finished file is kept: a stopped recipe goes on without writing it again.
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
if [[ ! -f $WORK/copy.jsonl ]]; then
	go run ./scripts/gentrain --families copyfix --out "$WORK/copy.jsonl.tmp" --n "$N_COPY" --seed "$COPY_SEED" \
		--retry-share "$RETRY"
	mv "$WORK/copy.jsonl.tmp" "$WORK/copy.jsonl"
fi
cat "$WORK"/train-*.jsonl "$WORK/copy.jsonl" >"$WORK/train.jsonl"
gen_s=$((SECONDS - s))

stage "wide-name chats (seed $WIDE_SEED, $N_WIDE; $N_WIDE_COPY copy drills)"
s=$SECONDS
if [[ ! -f $WORK/wide.jsonl ]]; then
	go run ./scripts/gentrain --names wide --out "$WORK/wide.jsonl.tmp" --n "$N_WIDE" --seed "$WIDE_SEED" --retry-share "$RETRY"
	mv "$WORK/wide.jsonl.tmp" "$WORK/wide.jsonl"
fi
if [[ ! -f $WORK/wide-copy.jsonl ]]; then
	go run ./scripts/gentrain --names wide --families copyfix --out "$WORK/wide-copy.jsonl.tmp" --n "$N_WIDE_COPY" \
		--seed "$WIDE_COPY_SEED" --retry-share "$RETRY"
	mv "$WORK/wide-copy.jsonl.tmp" "$WORK/wide-copy.jsonl"
fi
cat "$WORK/wide.jsonl" "$WORK/wide-copy.jsonl" >"$WORK/train-wide.jsonl"
gen2_s=$((SECONDS - s))

# train BASE DATA OUT EPOCHS LR SEED CKPT CTX: one stage, going on from
# its checkpoint if there is one.
train() {
	local resume=()
	if [[ -f $7/manifest.json ]]; then
		echo "going on from the checkpoint in $7 (remove it to start over)"
		resume=(--resume "$7")
	fi
	bin/loop train -m "$1" --data "$2" -o "$3" --epochs "$4" --ctx "$8" --lr "$5" --seed "$6" -t "$THREADS" \
		--prefix-every "$PREFIX_EVERY" --prefix-share "$PREFIX_SHARE" --checkpoint "$7" "${resume[@]}"
}

stage "training, stage 1: $EPOCHS epochs on $THREADS threads (checkpoints in $CKPT)"
s=$SECONDS
train "$BASE" "$WORK/train.jsonl" "$STAGE1" "$EPOCHS" "$LR" "$TRAIN_SEED" "$CKPT" "$CTX"
train_s=$((SECONDS - s))

stage "training, stage 2 (wide names): $EPOCHS2 epochs from stage 1's weights (checkpoints in $CKPT2)"
s=$SECONDS
train "$STAGE1" "$WORK/train-wide.jsonl" "$DEMO/model.gguf" "$EPOCHS2" "$LR2" "$TRAIN_SEED2" "$CKPT2" "$CTX2"
train2_s=$((SECONDS - s))
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
go run ./scripts/demomodel write --dir "$DEMO" --stage "$CKPT" --checkpoint "$CKPT2" --eval "held-out=$WORK/eval.json" \
	--seconds "gentrain=$gen_s" --seconds "gentrain-wide=$gen2_s" --seconds "train=$train_s" --seconds "train-wide=$train2_s" \
	--seconds "eval=$eval_s" --why scripts/demo/why.md --commit "$commit"
echo "the recipe took $((SECONDS - t0)) s: chats ${gen_s} + ${gen2_s} s, training ${train_s} + ${train2_s} s, eval ${eval_s} s"
