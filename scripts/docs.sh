#!/usr/bin/env bash
# Builds the DocC catalog (Sources/WebImage/WebImage.docc) with the WebImage module's
# symbols, from a debug build that already compiled the module, with the toolchain's own
# swift-symbolgraph-extract and docc (no plugin to resolve).
#   scripts/docs.sh [BUILD_DIR] [OUTPUT_DIR]      defaults: .build/debug .build/docs
# Prints every warning DocC gives; fails when one points into the catalog's articles.
# Warnings from the source's doc comments (mostly links to WebImageCodecs types, which a
# one-module build cannot resolve) are counted, not fatal.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/.build/debug}" && pwd -P)
scratch=$(cd "$build/../.." && pwd)   # <scratch>/<triple>/debug: the dependencies' checkouts are beside it
out=${2:-$root/.build/docs}
bin=$(dirname "$(readlink -f "$(command -v swift)")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The C modules the WebImage module imports, through the build's and the sources' module maps;
# a "-tool" copy of a module is the host build of a plugin's dependency and would clash.
flags=()
while IFS= read -r map; do flags+=(-Xcc "-fmodule-map-file=$map"); done < <(
  { find "$build" -maxdepth 3 -name module.modulemap -not -path '*-tool.build/*'; find "$root/Sources" -name module.modulemap; } | sort)
while IFS= read -r inc; do flags+=(-Xcc "-I$inc"); done < <(
  find "$root/Sources" "$scratch/checkouts" -type d -name include 2>/dev/null | sort)

mkdir -p "$work/symbols"
"$bin/swift-symbolgraph-extract" -module-name WebImage -target "$(uname -m)-unknown-linux-gnu" \
  -I "$build/Modules" "${flags[@]}" -minimum-access-level public -output-dir "$work/symbols" >"$work/extract.log" 2>&1 \
  || { cat "$work/extract.log"; echo "docs: could not read the WebImage module from $build (build it first)"; exit 1; }

rm -rf "$out"
"$bin/docc" convert "$root/Sources/WebImage/WebImage.docc" --additional-symbol-graph-dir "$work/symbols" \
  --fallback-display-name WebImage --fallback-bundle-identifier org.webimage.WebImage \
  --output-path "$out" >"$work/docc.log" 2>&1 || { cat "$work/docc.log"; exit 1; }

# A warning's location line follows it: " --> File.md:line:col".
in_articles=$(grep -A1 '^warning' "$work/docc.log" | grep -B1 -E -- '--> [^ ]*\.md:' || true)
[ -n "$in_articles" ] && echo "$in_articles"
articles=$(printf '%s' "$in_articles" | grep -c '^warning' || true)
total=$(grep -c '^warning' "$work/docc.log" || true)
echo "docs: $out ($total warnings, $articles in the catalog's articles, $((total - articles)) in doc comments)"
[ "$articles" = 0 ]
