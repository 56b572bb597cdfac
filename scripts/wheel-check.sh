#!/usr/bin/env bash
# make wheel-check: the wheel in dist/ installs and runs where nothing else is.
#  1. a fresh venv here: pip install the wheel; `ldd` on the installed binary resolves every
#     library inside the wheel (webimage.libs/, the C++ runtime included) except glibc's own;
#     a download() of a small list (JPEG, PNG, WebP, AVIF, HEIC, GIF from the test corpus,
#     served on loopback) whose tar shards `webdataset` reads back;
#  2. the same wheel in a clean Debian 12 root (scripts/clean-debian-root.sh: debootstrap
#     minbase, then only python3 and python3-venv from Debian, no -dev or codec package):
#     the same download() there, its shards read back here.
set -euo pipefail
cd "$(dirname "$0")/.."
wheel=$(ls dist/webimage-*.whl 2>/dev/null | head -n1)
[ -n "$wheel" ] || { echo "wheel-check: no dist/webimage-*.whl; run make wheel" >&2; exit 1; }
work=$(mktemp -d /tmp/webimage-wheel-check.XXXXXX)
root="$work/debian"
server=""
cleanup() {
  [ -n "$server" ] && kill "$server" 2>/dev/null || true
  [ -d "$root" ] && scripts/clean-debian-root.sh --umount "$root" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
echo "wheel-check: $wheel ($(du -h "$wheel" | cut -f1))"

# The loopback origin and its list.
mkdir -p "$work/www"
c=Tests/Fixtures/corpus; g=Tests/Fixtures/generated
cp "$c/jpeg/pillow/hopper_orientation_2.jpg" "$work/www/a.jpg"
cp "$g/alpha.heic.0.png" "$work/www/b.png"
cp "$c/webp/image-rs/lossy_alpha.webp" "$work/www/c.webp"
cp "$g/alpha.avif" "$work/www/d.avif"
cp "$g/alpha.heic" "$work/www/e.heic"
cp "$c/gif/pillow/hopper_zero_comment_subblocks.gif" "$work/www/f.gif"
/usr/bin/python3 -u -m http.server 0 --bind 127.0.0.1 --directory "$work/www" >"$work/http.log" 2>&1 &
server=$!
for _ in $(seq 50); do port=$(grep -o 'port [0-9]*' "$work/http.log" | head -n1 | cut -d' ' -f2 || true); [ -n "$port" ] && break; sleep 0.1; done
[ -n "$port" ] || { echo "wheel-check: the origin did not start" >&2; exit 1; }
for f in a.jpg b.png c.webp d.avif e.heic f.gif; do echo "http://127.0.0.1:$port/$f"; done >"$work/list.txt"

# What each side runs: download() with webdataset output, then a count of the samples.
cat >"$work/run.py" <<'PY'
import sys, webimage
webimage.download(sys.argv[1], output_folder=sys.argv[2], output_format="webdataset", image_size=64,
                  number_sample_per_shard=4, thread_count=4)
PY
cat >"$work/read.py" <<'PY'
import glob, io, sys, webdataset as wds
tars = sorted(glob.glob(sys.argv[1] + "/*.tar"))
samples = list(wds.WebDataset(tars, shardshuffle=False))
keys = [s["__key__"] for s in samples]
# img2dataset's keys: 4 per shard, so 1 digit of index after 5 of shard.
assert keys == ["000000", "000001", "000002", "000003", "000010", "000011"], keys
assert all(s["jpg"][:2] == b"\xff\xd8" for s in samples)
print(f"webdataset read {len(samples)} samples from {len(tars)} shards")
PY

# 1. A fresh venv on this machine.
/usr/bin/python3 -m venv "$work/venv"
"$work/venv/bin/pip" install -q --disable-pip-version-check "$wheel" "webdataset==1.0.2"
bin=$("$work/venv/bin/python" -c 'import webimage; print(webimage.binary_path())')
site=$("$work/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["platlib"])')
echo "wheel-check: ldd $bin"
ldd "$bin" | sed 's/^/  /'
outside=$(ldd "$bin" | awk '/=>/ {print $1, $3}' | grep -v " $site/" \
  | grep -vE '^(libc|libm|libdl|librt|libpthread|libutil|libresolv|libnsl|libanl|ld-linux-x86-64)\.so' || true)
others=$(echo "$outside" | grep . || true)
[ -z "$others" ] || { echo "wheel-check: FAIL: libraries from outside the wheel: $others" >&2; exit 1; }
echo "wheel-check: every library but glibc's resolves inside the wheel ($(ldd "$bin" | grep -c " $site/") of them)"
"$work/venv/bin/webimage" --help >/dev/null
"$work/venv/bin/python" "$work/run.py" "$work/list.txt" "$work/out-venv"
"$work/venv/bin/python" "$work/read.py" "$work/out-venv"
echo "wheel-check: fresh venv: ok"

# 2. A clean Debian 12 root.
scripts/clean-debian-root.sh "$root"
scripts/clean-debian-root.sh --mount "$root"
chroot "$root" /bin/sh -c 'apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3 python3-venv >/dev/null'
devs=$(chroot "$root" dpkg-query -W -f '${Package}\n' | grep -E -- '-dev$|^libjpeg|^libpng|^libwebp|^libavif|^libheif|^libjxl|^libarchive|^libsnappy|^libdeflate|^liblcms' || true)
[ -z "$devs" ] || { echo "wheel-check: FAIL: the clean root has $devs" >&2; exit 1; }
cp "$wheel" "$work/run.py" "$work/list.txt" "$root/tmp/"
chroot "$root" /bin/sh -c "python3 -m venv /opt/v && /opt/v/bin/pip install -q --disable-pip-version-check --no-index /tmp/$(basename "$wheel") \
  && /opt/v/bin/python /tmp/run.py /tmp/list.txt /tmp/out && /opt/v/bin/webimage --version"
"$work/venv/bin/python" "$work/read.py" "$root/tmp/out"
echo "wheel-check: clean Debian 12 root ($(chroot "$root" cat /etc/debian_version)): ok"
