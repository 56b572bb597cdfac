#!/bin/bash
# Counts the files of Sources/WebImage a cold library load runs through, as
# WhereTheWorkRuns.md ("A cold load, file by file") traces it: webimage-bench's
# manager-download (a new ImageManager over a new ImageDownloader and a fresh memory and
# disk tier, one JPEG from a loopback HTTP server, one round, then shut down), built with LLVM's
# source coverage; a file counts when at least one of its functions ran.
#
# Usage: scripts/cold-load-files.sh [--list]   (a debug build of its own in .build-coverage,
# ~8 minutes the first time; prints the count of files and their lines, with --list the
# files by folder)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$root/.build-coverage
swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
# The build plan is made again each run (nothing is recompiled for it): a plan kept from
# before a file of the root package moved names the old file and fails.
rm -f "$scratch/debug.yaml"
(cd "$root/Benchmarks" && swift build --product webimage-bench --scratch-path "$scratch" \
  -Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping >&2)
bench=$scratch/debug/webimage-bench
work=$(mktemp -d)
server=""
trap '[ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$work"' EXIT
mkdir -p "$work/www"
cp "$root/Tests/Fixtures/corpus/jpeg/libjpeg-turbo/testorig.jpg" "$work/www/one.jpg"   # a plain baseline JPEG
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
python3 -m http.server "$port" --bind 127.0.0.1 --directory "$work/www" >/dev/null 2>&1 &
server=$!
for _ in $(seq 50); do curl -sf -o /dev/null "http://127.0.0.1:$port/one.jpg" && break; sleep 0.1; done
echo "http://127.0.0.1:$port/one.jpg" > "$work/urls.txt"
LLVM_PROFILE_FILE="$work/run.profraw" "$bench" manager-download --iterations 1 --warmup 0 "$work/urls.txt" >/dev/null
"$swift_bin/llvm-profdata" merge -o "$work/run.profdata" "$work/run.profraw"
# Per file: functions, then functions missed; a file ran when missed < functions.
"$swift_bin/llvm-cov" report "$bench" -instr-profile "$work/run.profdata" "$root/Sources/WebImage" \
  | awk '
      $1 ~ /\.swift$/ && NF >= 10 {
        funcs = $5; missed = $6; name = $1
        sub(/^.*Sources\/WebImage\//, "", name)
        if (funcs + 0 > 0 && missed + 0 < funcs + 0) print name
      }' | sort > "$work/files.txt"
# The count, then the lines a newcomer opens: every line of those files.
echo "$(wc -l < "$work/files.txt") files, $(cd "$root/Sources/WebImage" && xargs cat < "$work/files.txt" | wc -l) lines"
if [ "${1:-}" = "--list" ]; then cat "$work/files.txt"; fi
