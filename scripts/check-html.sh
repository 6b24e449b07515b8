#!/bin/sh
# check-html.sh FILE.html: load a `loop eval --html` report in headless
# Chromium and check it: no console message (the page has no script, so
# any is an error), no file or network load but the page itself (it is
# self-contained), and the chart in the rendered DOM with at least one
# bar. Prints "ok: ..." and exits 0, or says what is wrong and exits 1.
# Needs chromium (Debian: apt-get install chromium); CHROMIUM overrides it.
set -u
file=${1:?usage: check-html.sh FILE.html}
browser=${CHROMIUM:-}
if [ -z "$browser" ]; then
	for b in chromium chromium-browser google-chrome; do
		if command -v "$b" >/dev/null 2>&1; then browser=$b; break; fi
	done
fi
[ -n "$browser" ] || { echo "check-html: no chromium found" >&2; exit 2; }
abs=$(cd "$(dirname "$file")" && pwd)/$(basename "$file")
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
timeout 120 "$browser" --headless --no-sandbox --disable-gpu --user-data-dir="$tmp/profile" \
	--enable-logging=stderr --v=1 --dump-dom "file://$abs" >"$tmp/dom" 2>"$tmp/log"
rc=$?
[ $rc -eq 0 ] || { echo "check-html: $browser exited $rc" >&2; tail -5 "$tmp/log" >&2; exit 1; }
fail=0
if grep -q ':CONSOLE' "$tmp/log"; then
	echo "check-html: console messages:" >&2
	grep ':CONSOLE' "$tmp/log" | sed 's/^.*:CONSOLE[^]]*] */  /' >&2
	fail=1
fi
loads=$(grep -E 'URLLoader::Start|url_loader.*Start' "$tmp/log" | grep -v "file://$abs" || true)
if [ -n "$loads" ]; then
	echo "check-html: the page loads other resources:" >&2
	echo "$loads" | sed 's/^.*Start: */  /' >&2
	fail=1
fi
if ! grep -q '<svg id="rates-chart"' "$tmp/dom"; then
	echo "check-html: no <svg id=\"rates-chart\"> in the rendered page" >&2
	fail=1
fi
bars=$(grep -o 'class="bar"' "$tmp/dom" | wc -l)
if [ "$bars" -eq 0 ]; then
	echo "check-html: the chart has no bar" >&2
	fail=1
fi
[ $fail -eq 0 ] || exit 1
echo "ok: $file rendered by $($browser --version 2>/dev/null | head -1): chart with $bars bars, no console message, nothing loaded"
