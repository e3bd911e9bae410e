#!/usr/bin/env bash
# The container image's tests: builds the image from this checkout, then runs
# test/container/*.container-test.ts against it (the image, `podman run`, the
# compose file). Slow (a cold build takes minutes), so not part of `npm test`.
#
# Needs podman (and runc), and debootstrap to make a stand-in for the Node.js base
# image where no container registry is reachable; docker-compose and
# podman-compose for the compose file. Without podman it skips, except with
# CI=true, where it fails.
#
#   STATUSBOT_TEST_NODE_IMAGE  the base to build on (default: a stand-in made here)
#   STATUSBOT_TEST_IMAGE       the image's tag (default localhost/statusbot:test)
set -euo pipefail
cd "$(dirname "$0")/../.."

if ! command -v podman >/dev/null; then
  if [ "${CI:-}" = true ]; then
    echo 'container tests: podman is missing (apt-get install podman buildah runc debootstrap)' >&2
    exit 1
  fi
  echo 'container tests skipped: podman is not installed (apt-get install podman buildah runc debootstrap)'
  exit 0
fi

# Where the default runtime (crun) or raised ulimits are refused, as in some
# sandboxes: runc and the limits the machine allows, for every podman started
# from here (podman-compose's too).
conf=$(mktemp "${TMPDIR:-/tmp}/statusbot-containers.XXXXXX.conf")
trap 'rm -f "$conf"' EXIT
runtime=crun
command -v runc >/dev/null && runtime=runc
cat >"$conf" <<CONF
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]
[engine]
runtime = "$runtime"
CONF
export CONTAINERS_CONF=$conf

base=${STATUSBOT_TEST_NODE_IMAGE:-localhost/statusbot-test-node:20}
if ! podman image exists "$base"; then
  if [ -n "${STATUSBOT_TEST_NODE_IMAGE:-}" ]; then
    echo "container tests: no image $base" >&2
    exit 1
  fi
  bash test/container/make-test-base.sh "$base"
fi

image=${STATUSBOT_TEST_IMAGE:-localhost/statusbot:test}
version=$(node -p "require('./package.json').version")
revision=$(git rev-parse HEAD 2>/dev/null || echo unknown)
echo "container tests: building $image on $base (version $version, revision $revision)"
start=$(date +%s)
nice -n 19 podman build --format docker \
  --build-arg "NODE_IMAGE=$base" --build-arg "VERSION=$version" --build-arg "REVISION=$revision" \
  -t "$image" . >"${TMPDIR:-/tmp}/statusbot-image-build.log" 2>&1 || {
  tail -40 "${TMPDIR:-/tmp}/statusbot-image-build.log" >&2
  echo "container tests: the build failed (log: ${TMPDIR:-/tmp}/statusbot-image-build.log)" >&2
  exit 1
}
echo "container tests: built in $(($(date +%s) - start)) s"

STATUSBOT_TEST_IMAGE=$image STATUSBOT_TEST_NODE_IMAGE=$base STATUSBOT_TEST_VERSION=$version STATUSBOT_TEST_REVISION=$revision \
  npx vitest run --config test/container/vitest.config.ts
