#!/usr/bin/env bash
# Counts the public types of a module: every `public` or `open` declaration of a class,
# struct, enum, protocol, actor or typealias in its sources, top-level or nested (an
# extension's nested type counts; `class func`/`class var` do not). Declarations are
# read line by line, so a type whose modifiers span lines is missed (there are none).
#
#   scripts/public-types.sh [SOURCES_DIR] [--list]
# prints the total, then the count of each kind; --list prints every type as
# `kind Name path`. SOURCES_DIR defaults to Sources/WebImage.
set -euo pipefail
dir=Sources/WebImage
list=0
for arg in "$@"; do
    case $arg in
        --list) list=1 ;;
        *) dir=$arg ;;
    esac
done
decl='^[[:space:]]*(@[A-Za-z_]+(\([^)]*\))?[[:space:]]+)*((public|open|final|indirect|nonisolated)[[:space:]]+)+(class|struct|enum|protocol|actor|typealias)[[:space:]]+[A-Za-z_][A-Za-z0-9_]*'
found=$(grep -rEo --include='*.swift' "$decl" "$dir" \
    | grep -E ':[^:]*\b(public|open)\b' \
    | sed -E 's/^([^:]+):.*\b(class|struct|enum|protocol|actor|typealias)[[:space:]]+([A-Za-z_][A-Za-z0-9_]*)$/\2 \3 \1/' \
    | grep -vE '^class (func|var|let|subscript) ' | sort -k2 || true)
echo "public types in $dir: $(printf '%s\n' "$found" | grep -c . || true)"
printf '%s\n' "$found" | awk 'NF { n[$1]++ } END { for (k in n) printf "  %-9s %d\n", k, n[k] }' | sort
if [ "$list" = 1 ]; then printf '%s\n' "$found"; fi
