#!/bin/bash
# Lists the functions of the library modules (Sources/WebImage, WebImageCodecs,
# WebImageCompat, WebImageServer) that the whole test suite never runs, measured with
# LLVM's source coverage: the test binary and the `webimage` tool the tests start, both
# built with coverage, every process writing its own profile. A function listed is either
# dead code (delete it) or a claim no test checks (test it). Functions under 3 lines
# (stored-property initialisers, one-line accessors) are left out unless `--all`.
#
# Usage: scripts/unrun-functions.sh [--all]   (a debug build of its own in
# .build-coverage-suite, ~6 minutes, then the suite, ~9 minutes; needs what `make test`
# installs. The OpenTelemetry trait is off, so the tracing files are listed: `make test`
# runs their tests with the trait.)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
scratch=$root/.build-coverage-suite
swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
min_lines=3
if [ "${1:-}" = "--all" ]; then min_lines=1; fi
flags=(-Xswiftc -profile-generate -Xswiftc -profile-coverage-mapping)
rm -f "$scratch/debug.yaml"
(cd "$root" && swift build --build-tests --scratch-path "$scratch" "${flags[@]}" >&2)
profiles=$(mktemp -d)
trap 'rm -rf "$profiles"' EXIT
# The suite may fail: what ran is still counted, and the failures are on stderr.
(cd "$root" && LLVM_PROFILE_FILE="$profiles/%p-%m.profraw" WEBIMAGE_REQUIRE_OPENTELEMETRY=0 \
  swift test --skip-build --no-parallel --scratch-path "$scratch" >&2) || echo "(the suite failed; counting what ran)" >&2
"$swift_bin/llvm-profdata" merge -sparse -o "$profiles/suite.profdata" "$profiles"/*.profraw
"$swift_bin/llvm-cov" report "$scratch/debug/WebImagePackageTests.xctest" -object "$scratch/debug/webimage" \
  -instr-profile "$profiles/suite.profdata" --show-functions \
  "$root/Sources/WebImage" "$root/Sources/WebImageCodecs" "$root/Sources/WebImageCompat" "$root/Sources/WebImageServer" \
  > "$profiles/functions.txt"
# Per function: regions, regions missed, …, lines; a function never ran when every region was missed.
awk -v min="$min_lines" '
  /^File / { file = $2; gsub(/^.*Sources\/|\x27:?$/, "", file); next }
  $1 ~ /^\$s/ && NF >= 10 && $2 == $3 && $5 >= min { print file "\t" $5 "\t" $1 }
' "$profiles/functions.txt" | sort > "$profiles/unrun.tsv"
cut -f3 "$profiles/unrun.tsv" | "$swift_bin/swift-demangle" --simplified > "$profiles/names.txt"
paste "$profiles/unrun.tsv" "$profiles/names.txt" | awk -F'\t' '{ printf "%-55s %4d  %s\n", $1, $2, substr($4, 1, 140) }'
echo "$(wc -l < "$profiles/unrun.tsv") functions of $min_lines+ lines never ran" >&2
