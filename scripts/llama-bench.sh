#!/usr/bin/env bash
# Fetches llama.cpp's own llama-bench, as Debian unstable packages it, into
# .cache/llama-bench (nothing is installed on the system) and writes
# .cache/llama-bench/llama-bench, a wrapper for `loop bench --vs`, and
# .cache/llama-bench/llama-server beside it, for `loop bench --vs-server`:
#
#   scripts/llama-bench.sh
#   bin/loop bench -m MODEL.gguf -t 2 --vs .cache/llama-bench/llama-bench
#   bin/loop bench -m MODEL.gguf -t 2 -p 0 --no-reuse --vs-server .cache/llama-bench/llama-server
#
# Debian's build is a newer llama.cpp than the pinned one, with its CPU
# backend in variants that it picks at start (as make dist does). It needs a
# newer libc than Debian 12 has, so the wrapper runs it with the package's
# own dynamic loader and libraries. Only amd64 Linux is handled.
set -euo pipefail

dir=${1:-.cache/llama-bench}
mirror=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
pkgs=(llama.cpp-tools libllama0 libggml0 libc6 libstdc++6 libgcc-s1 libgomp1 libssl3t64)

[ "$(uname -sm)" = "Linux x86_64" ] || { echo "llama-bench.sh: only amd64 Linux is handled" >&2; exit 1; }
for t in curl xz dpkg-deb; do
	command -v $t >/dev/null || { echo "llama-bench.sh: $t is missing" >&2; exit 1; }
done
mkdir -p "$dir/debs"
dir=$(cd "$dir" && pwd)
curl -fsS "$mirror/dists/sid/main/binary-amd64/Packages.xz" | xz -d > "$dir/Packages"
rm -rf "$dir/root"
for p in "${pkgs[@]}"; do
	file=$(awk -v p="$p" '$1 == "Package:" { hit = ($2 == p) } hit && $1 == "Filename:" { print $2; exit }' "$dir/Packages")
	[ -n "$file" ] || { echo "llama-bench.sh: $p is not in Debian unstable's index" >&2; exit 1; }
	deb="$dir/debs/$(basename "$file")"
	[ -f "$deb" ] || curl -fsS -o "$deb" "$mirror/$file"
	dpkg-deb -x "$deb" "$dir/root"
done
lib="$dir/root/usr/lib/x86_64-linux-gnu"
# ggml looks for its CPU variants next to the running executable, which
# through the loader is ld-linux itself.
cp "$lib"/ggml/backends0/libggml-cpu-*.so "$lib/"
for tool in llama-bench llama-server; do
	[ -x "$dir/root/usr/bin/$tool" ] || { echo "llama-bench.sh: no /usr/bin/$tool in ${pkgs[*]}" >&2; exit 1; }
	cat > "$dir/$tool" <<EOF
#!/bin/sh
# $tool from Debian unstable, with its own libc (scripts/llama-bench.sh).
exec "$lib/ld-linux-x86-64.so.2" --library-path "$lib:$lib/llama" "$dir/root/usr/bin/$tool" "\$@"
EOF
	chmod +x "$dir/$tool"
	"$dir/$tool" --help >/dev/null
done
echo "llama-bench.sh: $dir/llama-bench, $dir/llama-server ($(awk '$1 == "Package:" { hit = ($2 == "llama.cpp-tools") } hit && $1 == "Version:" { print "llama.cpp " $2; exit }' "$dir/Packages"))"
