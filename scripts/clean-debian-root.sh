#!/usr/bin/env bash
# Makes a clean Debian 12 (bookworm) root in DIR, as a fresh machine would have it, for
# tests that install a package into it (make deb-check, the wheel's check).
#
# The first call runs debootstrap (minutes, mostly download) from the Debian mirror apt on
# this machine already uses, and keeps the result as a tarball outside git; later calls only
# unpack that tarball (seconds). DIR must not exist or be empty. Needs root (debootstrap,
# chroot). WEBIMAGE_DEBOOTSTRAP_CACHE overrides where the tarball is kept.
#
#   scripts/clean-debian-root.sh DIR        # make the root
#   scripts/clean-debian-root.sh --mount DIR / --umount DIR   # /proc, /dev for a chroot
set -eu

cache_dir=${WEBIMAGE_DEBOOTSTRAP_CACHE:-/var/cache/webimage-debootstrap}
suite=bookworm
tarball="$cache_dir/$suite-amd64.tar"

die() { echo "clean-debian-root: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || die "needs root (debootstrap and chroot); run it with sudo"

# Binds what a chroot's package scripts and servers need; --umount undoes it (lazily, so a
# process still inside cannot keep it mounted).
if [ "${1:-}" = --mount ]; then
  d=${2:?DIR}
  mountpoint -q "$d/proc" || mount -t proc proc "$d/proc"
  mountpoint -q "$d/dev" || mount --bind /dev "$d/dev"
  exit 0
fi
if [ "${1:-}" = --umount ]; then
  d=${2:?DIR}
  for m in dev proc; do mountpoint -q "$d/$m" && umount -l "$d/$m"; done
  exit 0
fi

dir=${1:?usage: clean-debian-root.sh DIR}
if [ -e "$dir" ] && [ -n "$(ls -A "$dir")" ]; then die "$dir exists and is not empty"; fi

# The mirror apt uses here: the first deb.debian.org-style URI of a deb822 or one-line source
# that serves bookworm's main suite (not -security).
mirror() {
  local uri
  uri=$(grep -hs -A3 '^Types: *deb' /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | awk '/^URIs:/ {print $2}' | grep -v security | head -n1 || true)
  if [ -z "$uri" ]; then
    uri=$(grep -hsE '^deb +(\[[^]]*\] +)?[a-z]+://' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
          | grep -v security | sed -E 's/^deb +(\[[^]]*\] +)?//' | awk '{print $1}' | head -n1 || true)
  fi
  [ -n "$uri" ] || die "no Debian mirror found in /etc/apt/sources.list{,.d}"
  echo "$uri"
}

if [ ! -s "$tarball" ]; then
  command -v debootstrap >/dev/null || "$(dirname "$0")/install-debs.sh" debootstrap
  m=$(mirror)
  mkdir -p "$cache_dir"
  work=$(mktemp -d "$cache_dir/build.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  echo "clean-debian-root: debootstrap $suite from $m (first run: a few minutes)"
  debootstrap --variant=minbase --arch=amd64 "$suite" "$work/root" "$m" >"$work/log" 2>&1 \
    || { tail -n 20 "$work/log" >&2; die "debootstrap failed"; }
  # The same mirror for apt inside, with updates and security, as a Debian 12 install has it.
  sec=${m%/debian}/debian-security
  cat >"$work/root/etc/apt/sources.list" <<LIST
deb $m $suite main
deb $m $suite-updates main
deb $sec $suite-security main
LIST
  rm -rf "$work/root/var/cache/apt/archives/"*.deb
  tar -C "$work/root" -cf "$tarball.tmp" .
  mv "$tarball.tmp" "$tarball"
fi

mkdir -p "$dir"
tar -C "$dir" -xf "$tarball"
cp /etc/resolv.conf "$dir/etc/resolv.conf" 2>/dev/null || true
echo "clean-debian-root: $dir ready (from $tarball)"
