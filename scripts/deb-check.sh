#!/usr/bin/env bash
# make deb-check: the Debian package in a clean Debian 12 root, as an operator installs it.
#   scripts/deb-check.sh webimage_<version>_amd64.deb
# 1. a fresh debootstrap root (scripts/clean-debian-root.sh); `apt-get install ./the.deb`
#    there resolves its Depends from Debian's archive;
# 2. `serve` started as the installed unit starts it: its ExecStart (instance %i = a free
#    port), its User (setpriv), its EnvironmentFile and UMask; systemd does not run here.
#    It must answer an image request on loopback (a resize of an image that a loopback
#    origin serves) and write its cache as the webimage user;
# 3. a bulk job (`webimage fetch --file`) over the same origin;
# 4. `apt-get purge` must leave no file, directory, user or group of the package behind.
# Needs root (debootstrap, chroot, mount). Prints PASS or the first failure.
set -eu
deb=$(readlink -f "${1:?usage: deb-check.sh webimage_VERSION_amd64.deb}")
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d /var/tmp/webimage-deb-check.XXXXXX)
root=$work/root
origin_pid="" serve_pid=""
cleanup() {
  [ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null
  [ -n "$origin_pid" ] && kill "$origin_pid" 2>/dev/null
  "$here/scripts/clean-debian-root.sh" --umount "$root" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "deb-check: FAIL: $*" >&2; exit 1; }
step() { echo "deb-check: $*"; }
in_root() { chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

"$here/scripts/clean-debian-root.sh" "$root" >/dev/null
"$here/scripts/clean-debian-root.sh" --mount "$root"
# What the root holds before the package, to compare after the purge.
snapshot() { (cd "$root" && find . -xdev \( -path ./proc -o -path ./dev -o -path ./tmp -o -path ./var/log \
  -o -path ./var/cache/apt -o -path ./var/lib/apt -o -path ./var/cache/debconf -o -path ./var/lib/dpkg \
  -o -path ./var/cache/ldconfig -o -path ./run \) -prune -o -print | sort); }
before=$(snapshot)

step "apt-get install ./$(basename "$deb") in a clean Debian 12 root"
cp "$deb" "$root/tmp/"
in_root apt-get update -qq >/dev/null || fail "apt-get update in the root"
in_root apt-get install -y -qq --no-install-recommends "/tmp/$(basename "$deb")" > "$work/install.log" 2>&1 \
  || { tail -n 20 "$work/install.log"; fail "apt-get install"; }
rm "$root/tmp/$(basename "$deb")"
pulled=$(grep -c '^Setting up ' "$work/install.log" || true)
step "installed with $pulled packages set up from Debian (its Depends and theirs)"
in_root getent passwd webimage >/dev/null || fail "postinst made no webimage user"
uid=$(in_root id -u webimage)   # the root's own user database, not the host's
[ "$(stat -c %u:%a "$root/var/cache/webimage")" = "$uid:750" ] || fail "/var/cache/webimage is not webimage's, mode 750"
owned=$(in_root dpkg -L webimage)

# The unit, as systemd would read it.
unit=$root/lib/systemd/system/webimage@.service
[ -f "$unit" ] || fail "no webimage@.service"
key() { sed -n "s/^$1=//p" "$unit" | tail -n 1; }
user=$(key User) envfile=$(key EnvironmentFile) umask=$(key UMask) exec=$(key ExecStart)
[ -n "$user" ] && [ -n "$envfile" ] && [ -n "$exec" ] || fail "the unit lacks User, EnvironmentFile or ExecStart"
[ -f "$root$envfile" ] || fail "$envfile is not installed"
port=$(free_port)
exec=${exec//%i/$port}
step "unit: User=$user EnvironmentFile=$envfile ExecStart=$exec"

# A loopback origin on the host; the chroot shares the host's network. The environment file
# is the packaged one with one line added, as an operator edits it.
mkdir -p "$work/origin"
cp "$here/Tests/Fixtures/corpus/jpeg/libjpeg-turbo/testorig.jpg" "$work/origin/a.jpg"
cp "$here/Tests/Fixtures/corpus/png/image-png/Transparency.png" "$work/origin/b.png"
oport=$(free_port)
python3 -m http.server "$oport" --bind 127.0.0.1 --directory "$work/origin" >/dev/null 2>&1 &
origin_pid=$!
echo "IMGPROXY_ALLOW_LOOPBACK_SOURCE_ADDRESSES=true" >> "$root$envfile"

# systemd's EnvironmentFile: KEY=VALUE lines, # comments; then the unit's user and umask.
envs=()
while IFS= read -r line; do
  case $line in ''|'#'*) continue ;; *=*) envs+=("$line") ;; esac
done < "$root$envfile"
# shellcheck disable=SC2086
chroot "$root" /usr/bin/env -i PATH=/usr/bin:/bin "${envs[@]}" /bin/sh -c \
  "umask ${umask:-0022}; exec setpriv --reuid=$user --regid=$user --init-groups --no-new-privs $exec" \
  > "$work/serve.log" 2>&1 &
serve_pid=$!

python3 - "$port" "$oport" <<'PY' || { cat "$work/serve.log" >&2; fail "serve did not answer the image request"; }
import json, struct, sys, time, urllib.request
port, oport = sys.argv[1], sys.argv[2]
base = f"http://127.0.0.1:{port}"
for _ in range(300):
    try:
        if urllib.request.urlopen(base + "/health", timeout=2).status == 200: break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit("no /health within 30 s")
source = f"http://127.0.0.1:{oport}/a.jpg"
r = urllib.request.urlopen(f"{base}/unsafe/rs:fit:100:100/f:jpg/plain/{source}", timeout=30)
body = r.read()
assert r.status == 200 and r.headers["Content-Type"] == "image/jpeg", (r.status, r.headers["Content-Type"])
# The JPEG's frame header: testorig.jpg is 227x149, so fit in 100x100 is 100x66.
i = 2
while i < len(body):
    marker, length = body[i + 1], struct.unpack(">H", body[i + 2:i + 4])[0]
    if marker in (0xC0, 0xC1, 0xC2):
        h, w = struct.unpack(">HH", body[i + 5:i + 9])
        break
    i += 2 + length
assert (w, h) == (100, 66), (w, h)
print(f"deb-check: GET /unsafe/rs:fit:100:100/f:jpg/plain/<loopback origin>/a.jpg -> 200 image/jpeg {w}x{h}, {len(body)} bytes")
PY
cached=$(find "$root/var/cache/webimage" -type f | wc -l)
others=$(find "$root/var/cache/webimage" -type f ! -uid "$(in_root id -u "$user")" | wc -l)
[ "$cached" -gt 0 ] && [ "$others" = 0 ] || fail "the cache holds $cached files, $others not owned by $user"
step "the cache holds $cached files, all owned by $user"
kill -TERM "$serve_pid"; wait "$serve_pid" || true; serve_pid=""
grep -q "listening on" "$work/serve.log" || fail "serve's log has no 'listening on'"

step "a bulk job: webimage fetch --file (2 URLs) --out, resized to 64x64 PNGs"
printf 'http://127.0.0.1:%s/a.jpg\nhttp://127.0.0.1:%s/b.png\n' "$oport" "$oport" > "$root/tmp/urls.txt"
in_root /usr/bin/webimage fetch --file /tmp/urls.txt --out /tmp/out --format png --thumbnail 64x64 \
  --memory-only --manifest /tmp/manifest.jsonl > "$work/bulk.log" 2>&1 || { cat "$work/bulk.log"; fail "the bulk job"; }
ok=$(python3 -c 'import json,sys; print(sum(json.loads(l)["ok"] is True for l in open(sys.argv[1]) if l.strip()))' "$root/tmp/manifest.jsonl")
files=$(find "$root/tmp/out" -type f -name '*.png' | wc -l)
[ "$ok" = 2 ] && [ "$files" = 2 ] || { cat "$work/bulk.log"; fail "bulk: $ok ok lines, $files files"; }
step "bulk: 2 of 2 URLs ok, 2 PNG files"
rm -rf "$root/tmp/urls.txt" "$root/tmp/out" "$root/tmp/manifest.jsonl"
kill "$origin_pid"; origin_pid=""

step "apt-get purge webimage"
in_root apt-get purge -y -qq webimage > "$work/purge.log" 2>&1 || { cat "$work/purge.log"; fail "apt-get purge"; }
left=""
while IFS= read -r path; do
  [ "$path" = /. ] && continue
  [ -e "$root$path" ] || [ -L "$root$path" ] || continue
  # A directory the root had before, or that another package still owns, is not ours to remove.
  if [ -d "$root$path" ]; then
    grep -qx ".$path" <<<"$before" && continue
    in_root dpkg -S "$path" >/dev/null 2>&1 && continue
  fi
  left="$left $path"
done <<<"$owned"
[ -z "$left" ] || fail "purge left the package's paths:$left"
in_root getent passwd webimage >/dev/null && fail "purge left the webimage user"
in_root getent group webimage >/dev/null && fail "purge left the webimage group"
ls "$root/var/lib/dpkg/info/" | grep -q '^webimage\.' && fail "purge left dpkg's webimage.* records"
# Anything new in the root (beyond apt's own lists, caches and logs) is ours or our Depends'.
after=$(snapshot)
new=$(comm -13 <(echo "$before") <(echo "$after") | grep -i webimage || true)
[ -z "$new" ] || fail "purge left: $new"
step "purge left no file, directory, user or group of webimage"
echo "deb-check: PASS"
