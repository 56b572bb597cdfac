#!/usr/bin/env bash
# Builds one documentation site for the four library modules (WebImageCodecs, WebImage,
# WebImageCompat, WebImageServer) from a debug build that already compiled them, with the toolchain's own
# swift-symbolgraph-extract and docc (no plugin to resolve).
#   scripts/docs.sh [BUILD_DIR] [OUTPUT_DIR]      defaults: .build/debug .build/docs
# With DOCS_SYMBOLS_DIR set, the modules' symbol graphs are kept there too (a test reads
# WebImage's public declarations from them).
# The one catalog, Sources/WebImage/WebImage.docc, holds the articles and a page per module.
# All three modules' symbol graphs go into one `docc convert`, so a link from one module to
# another (``WebImageCodecs/DecodedImage``) resolves like a link inside a module; `docc merge`
# then adds the landing page that lists the modules. Any warning (a broken link in a doc
# comment or an article, an unknown parameter, …) fails the script: it prints them all.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "${1:-$root/.build/debug}" && pwd -P)
scratch=$(cd "$build/../.." && pwd)   # <scratch>/<triple>/debug: the dependencies' checkouts are beside it
out=${2:-$root/.build/docs}
bin=$(dirname "$(readlink -f "$(command -v swift)")")
modules=(WebImageCodecs WebImage WebImageCompat WebImageServer)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The C modules the library imports, through the build's and the sources' module maps;
# a "-tool" copy of a module is the host build of a plugin's dependency and would clash.
flags=()
while IFS= read -r map; do flags+=(-Xcc "-fmodule-map-file=$map"); done < <(
  { find "$build" -maxdepth 3 -name module.modulemap -not -path '*-tool.build/*'; find "$root/Sources" -name module.modulemap; } | sort)
while IFS= read -r inc; do flags+=(-Xcc "-I$inc"); done < <(
  find "$root/Sources" "$scratch/checkouts" -type d -name include 2>/dev/null | sort)

# No extension-block symbols: with them WebImage would get an "extended module" page named
# WebImageCodecs, which shadows the real module in a relative link. Without them, what
# WebImage adds to a WebImageCodecs type (PixelBuffer.blurred(radius:)) joins that type's page.
mkdir -p "$work/symbols"
for module in "${modules[@]}"; do
  "$bin/swift-symbolgraph-extract" -module-name "$module" -target "$(uname -m)-unknown-linux-gnu" \
    -I "$build/Modules" "${flags[@]}" -minimum-access-level public -omit-extension-block-symbols \
    -output-dir "$work/symbols" >"$work/extract.log" 2>&1 \
    || { cat "$work/extract.log"; echo "docs: could not read the $module module from $build (build it first)"; exit 1; }
done

if [ -n "${DOCS_SYMBOLS_DIR:-}" ]; then mkdir -p "$DOCS_SYMBOLS_DIR" && cp "$work"/symbols/*.json "$DOCS_SYMBOLS_DIR"/; fi

"$bin/docc" convert "$root/Sources/WebImage/WebImage.docc" --additional-symbol-graph-dir "$work/symbols" \
  --fallback-display-name WebImage --fallback-bundle-identifier org.webimage.WebImage \
  --output-path "$work/WebImage.doccarchive" >"$work/docc.log" 2>&1 || { cat "$work/docc.log"; exit 1; }
rm -rf "$out"
"$bin/docc" merge "$work/WebImage.doccarchive" --synthesized-landing-page-name WebImage \
  --synthesized-landing-page-kind Package --output-path "$out" >"$work/merge.log" 2>&1 \
  || { cat "$work/merge.log"; exit 1; }

# DocC prints each diagnostic, its location (" --> File:line:col", a path relative to a
# directory of its choosing) and the source lines around it.
total=$(grep -c -E '^(warning|error)' "$work/docc.log" || true)
[ "$total" = 0 ] || cat "$work/docc.log"
echo "docs: $out (${modules[*]}; $total warnings)"
[ "$total" = 0 ]
