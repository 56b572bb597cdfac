#!/usr/bin/env bash
# Builds webimage_<version>_amd64.deb from a release `webimage` (make deb):
#   scripts/build-deb.sh BINARY OUTDIR
# The package holds the stripped binary (/usr/bin/webimage), the systemd template unit
# (deploy/webimage.service as webimage@.service, for the packaged paths and the static user),
# the commented environment file (/etc/webimage/webimage.env, a conffile) and the maintainer
# scripts of deploy/debian (the webimage system user and /var/cache/webimage; purge removes
# both). Depends comes from dpkg-shlibdeps: Debian's runtime libraries the binary links.
set -eu
binary=${1:?usage: build-deb.sh BINARY OUTDIR}
outdir=${2:?usage: build-deb.sh BINARY OUTDIR}
here=$(cd "$(dirname "$0")/.." && pwd)
version=$("$binary" --version)
case $version in [0-9]*) ;; *) echo "build-deb: '$binary --version' said '$version'" >&2; exit 1 ;; esac

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/root
install -d "$root/DEBIAN" "$root/usr/bin" "$root/lib/systemd/system" "$root/etc/webimage" \
  "$root/usr/share/doc/webimage"
install -m 0755 "$binary" "$root/usr/bin/webimage"
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/webimage"

# The unit: the packaged binary and docs; the user is made by postinst (a static user, so
# DynamicUser= would only move the cache under /var/cache/private).
sed -e 's|/usr/local/bin/webimage|/usr/bin/webimage|' \
    -e 's|^Documentation=.*|Documentation=file:///usr/share/doc/webimage/README.md|' \
    -e '/^DynamicUser=yes$/d' \
    -e 's|^# A user made for the service at start; the same name|# The webimage system user (made by the package); the same name|' \
    "$here/deploy/webimage.service" > "$root/lib/systemd/system/webimage@.service"
chmod 0644 "$root/lib/systemd/system/webimage@.service"
grep -q '^ExecStart=/usr/bin/webimage serve' "$root/lib/systemd/system/webimage@.service"
grep -q '^User=webimage$' "$root/lib/systemd/system/webimage@.service"

# Read by systemd as root; may hold the signing key.
install -m 0600 "$here/deploy/debian/webimage.env" "$root/etc/webimage/webimage.env"
echo /etc/webimage/webimage.env > "$root/DEBIAN/conffiles"
for s in postinst prerm postrm; do install -m 0755 "$here/deploy/debian/$s" "$root/DEBIAN/$s"; done

doc=$root/usr/share/doc/webimage
install -m 0644 "$here/README.md" "$doc/README.md"
install -m 0644 "$here/deploy/README.md" "$doc/README.deploy.md"
# The maintainer: DEBFULLNAME/DEBEMAIL, else the author of the last commit.
maintainer="${DEBFULLNAME:-$(git -C "$here" log -1 --format=%an)} <${DEBEMAIL:-$(git -C "$here" log -1 --format=%ae)}>"
date=$(date -R -u -d "@${SOURCE_DATE_EPOCH:-$(git -C "$here" log -1 --format=%ct 2>/dev/null || date +%s)}")
printf 'webimage (%s) unstable; urgency=medium\n\n  * Release %s, built from the WebImage repository.\n\n -- %s  %s\n' \
  "$version" "$version" "$maintainer" "$date" | gzip -9n > "$doc/changelog.gz"
cat > "$doc/copyright" <<COPY
webimage, packaged from the WebImage repository.

The binary links the Swift runtime and Foundation statically (Apache License 2.0 with
Runtime Library Exception), and the Swift packages the repository's Package.swift lists
(SwiftNIO, AsyncHTTPClient, swift-crypto with BoringSSL, Hummingbird, swift-otel and
others; Apache License 2.0, BoringSSL's parts under the OpenSSL/ISC licences).

The WebImage sources carry no licence file of their own.
COPY
chmod 0644 "$doc/copyright"

# The Swift toolchain's static Foundation (--static-swift-stdlib) carries its own zlib.
install -d "$root/usr/share/lintian/overrides"
cat > "$root/usr/share/lintian/overrides/webimage" <<OVERRIDES
# The statically linked Swift Foundation brings its own zlib; the binary's own zlib use is Debian's libz.
webimage: embedded-library zlib [usr/bin/webimage]
OVERRIDES
chmod 0644 "$root/usr/share/lintian/overrides/webimage"

# Depends: the shared libraries the binary needs, as Debian packages (not the -dev ones).
mkdir -p "$work/src/debian"
printf 'Source: webimage\n\nPackage: webimage\nArchitecture: amd64\n' > "$work/src/debian/control"
depends=$(cd "$work/src" && dpkg-shlibdeps -O -e"$root/usr/bin/webimage" 2>/dev/null | sed -n 's/^shlibs:Depends=//p')
[ -n "$depends" ] || { echo "build-deb: dpkg-shlibdeps found no dependency" >&2; exit 1; }
size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@MAINTAINER@|$maintainer|" -e "s|@SIZE@|$size|" \
    -e "s|@DEPENDS@|$depends|" "$here/deploy/debian/control.in" > "$root/DEBIAN/control"
(cd "$root" && find . -type f ! -path './DEBIAN/*' ! -path './etc/*' -printf '%P\0' | sort -z | xargs -0 md5sum) \
  > "$root/DEBIAN/md5sums"

mkdir -p "$outdir"
deb=$outdir/webimage_${version}_amd64.deb
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
echo "$deb"
echo "Depends: $depends"
