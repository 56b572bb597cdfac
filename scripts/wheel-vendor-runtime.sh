#!/usr/bin/env bash
# After `auditwheel repair` (make wheel): also vendors what the manylinux policy leaves to the
# system (the C++ runtime libstdc++.so.6 and libgcc_s.so.1, zlib's libz.so.1), so the
# installed binary resolves nothing outside the wheel but glibc's own libraries. The binary is a process of
# its own (never loaded into Python), so its copy cannot clash with another libstdc++.
# They keep their sonames: the binary's RPATH (webimage.libs, set by auditwheel) and the
# vendored libraries' $ORIGIN find them before the system's.
#
#   scripts/wheel-vendor-runtime.sh WHEEL_VENV dist/webimage-….whl
set -euo pipefail
venv=$1 wheel=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$venv/bin/wheel" unpack -d "$work" "$wheel" >/dev/null
tree=$(ls -d "$work"/webimage-*)
bin="$tree/webimage/bin/webimage"
libs="$tree/webimage.libs"
mkdir -p "$libs"
# Every library ldd still resolves outside the wheel, but glibc's own.
ldd "$bin" | awk '/=>/ && $3 ~ /^\// {print $1, $3}' \
  | grep -vE '^(libc|libm|libdl|librt|libpthread|libutil|libresolv|libnsl|libanl|ld-linux-x86-64)\.so' \
  | while read -r name path; do
  case "$(realpath "$path")" in "$(realpath "$libs")"/*) continue ;; esac
  cp -L "$path" "$libs/$name"
  chmod 644 "$libs/$name"
  echo "wheel-vendor-runtime: $name from $path"
done
rm -f "$wheel"
"$venv/bin/wheel" pack -d "$(dirname "$wheel")" "$tree" >/dev/null
