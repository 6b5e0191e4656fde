#!/usr/bin/env bash
# tools/ci/install-fsmove chooses the quickest way to the package, in order: the package
# installed already at this version, the CI cache, the release's asset for this OS, a build
# from source; and its cache key names the version, the OS and the architecture. Run with
# --dry-run against a fake os-release, a fake dpkg-query and a release served from a file://
# URL: nothing is installed, nothing is built.
# Usage: install_fsmove_test.sh SOURCE_DIR
set -uo pipefail
src=$(realpath "${1:?usage: install_fsmove_test.sh SOURCE_DIR}")
script=$src/tools/ci/install-fsmove
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v curl >/dev/null || { echo "SKIP: curl is missing"; exit 77; }

version=$(sed -n '1s/^fsmove (\([^)]*\)).*/\1/p' "$src/packaging/changelog")
[ -n "$version" ] || fail "no version in packaging/changelog"
arch=$(dpkg --print-architecture 2>/dev/null || uname -m)
printf 'ID=debian\nVERSION_ID="12"\n' >"$tmp/os-release"
export FSMOVE_OS_RELEASE=$tmp/os-release
name=fsmove_${version}_debian12_${arch}.deb

# dpkg-query as this test says: fsmove not installed, or installed at some version.
mkdir -p "$tmp/bin"
cat >"$tmp/bin/dpkg-query" <<'EOF'
#!/bin/sh
[ -n "${FAKE_INSTALLED:-}" ] || exit 1
printf 'install ok installed %s' "$FAKE_INSTALLED"
EOF
chmod +x "$tmp/bin/dpkg-query"
export PATH=$tmp/bin:$PATH

run() { "$script" --dry-run "$@" 2>"$tmp/stderr"; }
expect() {  # WHAT OUTPUT-FIRST-WORD ARGS...
  local what=$1 want=$2 got
  shift 2
  got=$(run "$@") || fail "$what: exit $? ($(cat "$tmp/stderr"))"
  [ "${got%%:*}" = "$want" ] || fail "$what: '$got', expected $want"
  echo "ok: $what: $got"
}

key=$("$script" --print-key) || fail "--print-key: exit $?"
[ "$key" = "key=fsmove-$version-debian12-$arch" ] || fail "--print-key printed '$key'"
echo "ok: $key"

mkdir -p "$tmp/cache" "$tmp/release/v$version"
expect "nothing anywhere" build --cache "$tmp/cache" --release-url "file://$tmp/release"
expect "no release URL" build --cache "$tmp/cache" --release-url ""
: >"$tmp/release/v$version/fsmove_${version}_debian13_${arch}.deb"
expect "a release asset for another OS only" build --cache "$tmp/cache" \
  --release-url "file://$tmp/release"
: >"$tmp/release/v$version/$name"
expect "the release's asset" release --cache "$tmp/cache" --release-url "file://$tmp/release"
mkdir -p "$tmp/gitlab/v$version/downloads"
: >"$tmp/gitlab/v$version/downloads/$name"
expect "a release URL template (GitLab's)" release --cache "$tmp/cache" \
  --release-url "file://$tmp/gitlab/{tag}/downloads/{file}"
: >"$tmp/cache/$name"
expect "the cache before the release" cache --cache "$tmp/cache" --release-url "file://$tmp/release"
FAKE_INSTALLED=0.0.1 expect "another version installed" cache --cache "$tmp/cache" \
  --release-url "file://$tmp/release"
FAKE_INSTALLED=$version expect "this version installed" installed --cache "$tmp/cache" \
  --release-url "file://$tmp/release"
