#!/usr/bin/env bash
# Makes a stand-in for node:20-bookworm-slim where no container registry is
# reachable: Debian bookworm (debootstrap, from Debian's mirror) with this
# machine's own Node.js, npm and Node.js headers in the official image's places
# (/usr/local). Usage: make-test-base.sh IMAGE_NAME
#
# The machine's CA bundle is copied in and named by NODE_EXTRA_CA_CERTS in the
# base only, so that npm reaches the registry through whatever proxy this
# machine trusts; the statusbot image built on it sets nothing of the kind.
set -euo pipefail
name=${1:?usage: make-test-base.sh IMAGE_NAME}
for tool in debootstrap podman node; do
  command -v "$tool" >/dev/null || { echo "make-test-base: $tool is missing" >&2; exit 1; }
done
node_bin=$(readlink -f "$(command -v node)")
prefix=$(dirname "$(dirname "$node_bin")")
npm_dir=$prefix/lib/node_modules/npm
headers=$prefix/include/node
[ -d "$npm_dir" ] || { echo "make-test-base: no npm at $npm_dir" >&2; exit 1; }
[ -d "$headers" ] || { echo "make-test-base: no Node.js headers at $headers (better-sqlite3 compiles against them)" >&2; exit 1; }
ca=/etc/ssl/certs/ca-certificates.crt
[ -f "$ca" ] || { echo "make-test-base: no CA bundle at $ca" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/var/tmp}/statusbot-test-base.XXXXXX")
trap 'rm -rf "$work"' EXIT
root=$work/rootfs
echo "make-test-base: debootstrap bookworm into $root (a few minutes)"
nice -n 19 debootstrap --variant=minbase bookworm "$root" >"$work/debootstrap.log" 2>&1 || {
  tail -20 "$work/debootstrap.log" >&2
  exit 1
}
install -D -m 0755 "$node_bin" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules" "$root/usr/local/include"
cp -a "$npm_dir" "$root/usr/local/lib/node_modules/npm"
cp -a "$headers" "$root/usr/local/include/node"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"
install -D -m 0644 "$ca" "$root/etc/ssl/certs/ca-certificates.crt"
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
tar -C "$root" -c . | podman import \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'CMD ["node"]' \
  - "$name" >/dev/null
echo "make-test-base: made $name"
