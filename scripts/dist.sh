#!/usr/bin/env bash
# make dist: one portable file, dist/loop-<os>-<arch>.
#
# On amd64 Linux it is a small launcher (cmd/launch, pure Go) with several
# builds of loop appended, one per CPU level, each with llama.cpp and ggml
# compiled for that level (as llama.cpp's GGML_CPU_ALL_VARIANTS builds carry
# its CPU backend several times). At start the launcher reads the CPU's flags
# and runs the best build it can (internal/variants). Elsewhere it is one
# build with the compiler's default target.
#
# Each level keeps its own flags from run to run, so the Go build cache keeps
# each llama.cpp build warm (the first `make dist` compiles it once per level:
# about 3-4 minutes each on 2 cores).
set -euo pipefail
cd "$(dirname "$0")/.."
GO=${GO:-go}
os=$($GO env GOOS)
arch=$($GO env GOARCH)
out=dist/loop-$os-$arch
mkdir -p dist
static='-static-libstdc++ -static-libgcc'

build() { # name goamd64 cflags
	echo "make dist: building $1 ($3)" >&2
	CGO_ENABLED=1 GOAMD64=$2 CGO_CFLAGS="$3" CGO_CXXFLAGS="$3" CGO_LDFLAGS="$static" \
		$GO build -trimpath -o "dist/variants/loop-$1" ./cmd/loop
}

if [[ $os != linux || $arch != amd64 ]]; then
	CGO_ENABLED=1 CGO_CFLAGS="-O3 -DNDEBUG" CGO_CXXFLAGS="-O3 -DNDEBUG" CGO_LDFLAGS="$static" \
		$GO build -trimpath -o "$out" ./cmd/loop
	ls -l "$out"
	exit 0
fi

# Best first; the requirements are /proc/cpuinfo flag names, which the
# launcher checks. The list is scripts/dist-variants.txt's.
specs=()
trim() { local s=$1; s=${s#"${s%%[![:space:]]*}"}; echo "${s%"${s##*[![:space:]]}"}"; }
while IFS='|' read -r name goamd64 flags requires; do
	name=$(trim "$name")
	[[ -z $name || $name == \#* ]] && continue
	build "$name" "$(trim "$goamd64")" "-O3 $(trim "$flags") -DNDEBUG"
	specs+=("$name=dist/variants/loop-$name=$(trim "$requires")")
done < scripts/dist-variants.txt

CGO_ENABLED=0 $GO build -trimpath -o dist/launch ./cmd/launch
$GO run ./scripts/mkdist -o "$out" -launcher dist/launch "${specs[@]}"
ls -l "$out"
