#!/usr/bin/env bash
# The Debian package, installed as a user would: `apt-get install ./fsmove_*.deb` in a fresh
# Debian root (a copy of the pinned root fsmove keeps in /var/cache/fsmove/roots, or a plain
# mmdebstrap one), then, inside it: `fsmove --version`, `fsmove analyze` on a recorded trace
# (exit 1 and its finding), `man fsmove` from the gzipped pages, bash completing `fsmove ch`
# from the installed completions, the changelog's version, and nothing under /usr/local.
# Needs root (chroot, mounts) and the network (apt); exits 77 (skipped) without root, without
# mmdebstrap or a cached root, or without the packaging tools.
# Usage: package_test.sh [--debian 12|13] [--deb FILE | --deb-dir DIR | --build-dir DIR] SOURCE_DIR
#   --deb FILE       install this package
#   --deb-dir DIR    install DIR/fsmove_VERSION_*.deb for the source's version (its
#                    packaging/changelog), skipped (77) if there is none: the Debian 13 test
#                    takes what tools/build-debian13 --package left in dist/debian-13
#   --build-dir DIR  package that (configured) build with cpack, no rebuild (what CTest does)
#   none of these    build it with tools/package (a build directory of its own)
# Env: FSMOVE_MIRROR (default http://deb.debian.org/debian)
set -uo pipefail
release=12 deb="" deb_dir="" build_dir=""
while [ $# -gt 1 ]; do
  case $1 in
    --debian) release=$2; shift 2 ;;
    --deb) deb=$(realpath "$2"); shift 2 ;;
    --deb-dir) deb_dir=$2; shift 2 ;;
    --build-dir) build_dir=$2; shift 2 ;;
    *) break ;;
  esac
done
src=$(realpath "${1:?usage: package_test.sh [--debian 12|13] [--deb FILE | --deb-dir DIR | --build-dir DIR] SOURCE_DIR}")
case $release in
  12) suite=bookworm ;;
  13) suite=trixie ;;
  *) echo "package_test: --debian 12 or 13" >&2; exit 2 ;;
esac
skip() { echo "SKIP: $*"; exit 77; }
[ "$(id -u)" -eq 0 ] || skip "needs root (chroot and mounts)"
if [ -n "$deb_dir" ]; then
  command -v dpkg-parsechangelog >/dev/null || skip "dpkg-parsechangelog is missing (dpkg-dev)"
  want=$(dpkg-parsechangelog -l "$src/packaging/changelog" -S Version)
  debs=("$deb_dir"/fsmove_"$want"_*.deb)
  [ -f "${debs[0]}" ] || skip "no fsmove $want package in $deb_dir: make one with" \
    "tools/build-debian$release --package (12 to 25 min from scratch on 2 cores)"
  deb=$(realpath "${debs[0]}")
  echo "package_test: $deb, built $(date -r "$deb" '+%F %T')"
fi
cached=/var/cache/fsmove/roots/debian-$release
if [ ! -d "$cached/usr/bin" ] && ! command -v mmdebstrap >/dev/null; then
  skip "no cached root $cached and no mmdebstrap to make one"
fi
if [ -z "$deb" ]; then
  for tool in cpack dpkg-shlibdeps dpkg-deb; do
    command -v "$tool" >/dev/null || skip "$tool is missing (dpkg-dev), cannot build the package"
  done
fi

tmp=$(mktemp -d /var/tmp/fsmove-package-test.XXXXXX)
rootdir=$tmp/root
mounts=()
cleanup() {
  local i
  for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount -l "${mounts[$i]}" 2>/dev/null; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
fail() { echo "FAIL: $*" >&2; exit 1; }
t0=$(date +%s)
step() { echo "[$(( $(date +%s) - t0 )) s] $*"; }

# 1. The package.
if [ -z "$deb" ]; then
  if [ -n "$build_dir" ]; then
    step "packaging $build_dir with cpack"
    (cd "$build_dir" && cpack -G DEB -B "$tmp/cpack" >"$tmp/cpack.log" 2>&1) \
      || { cat "$tmp/cpack.log" >&2; fail "cpack"; }
    debs=("$tmp"/cpack/fsmove_*.deb)
    deb=${debs[0]}
  else
    step "building the package with tools/package"
    deb=$(FSMOVE_DIST="$tmp/dist" "$src/tools/package" "$tmp/build") || fail "tools/package"
  fi
  [ -f "$deb" ] || fail "no fsmove_*.deb was made"
fi
step "package: $deb"
dpkg-deb --field "$deb" Package Version Architecture Depends Suggests
# Read whole (grep -q would stop dpkg-deb early: SIGPIPE, a failed pipeline under pipefail).
contents=$(dpkg-deb --contents "$deb") || fail "dpkg-deb --contents $deb"
if grep -q '\./usr/local/' <<<"$contents"; then
  fail "the package installs under /usr/local"
fi

# 2. A fresh Debian root.
if [ -d "$cached/usr/bin" ]; then
  step "copying the cached root $cached"
  cp -a "$cached" "$rootdir" || fail "copying $cached"
else
  step "making a $suite root with mmdebstrap"
  mmdebstrap --variant=apt "$suite" "$rootdir" "${FSMOVE_MIRROR:-http://deb.debian.org/debian}" \
    >"$tmp/mmdebstrap.log" 2>&1 || { tail -20 "$tmp/mmdebstrap.log" >&2; fail "mmdebstrap"; }
fi
mount -t proc proc "$rootdir/proc" || fail "mounting /proc"
mounts+=("$rootdir/proc")
mount --bind /dev "$rootdir/dev" || fail "bind-mounting /dev"
mounts+=("$rootdir/dev")
rm -f "$rootdir/etc/resolv.conf"
cp /etc/resolv.conf "$rootdir/etc/resolv.conf"
mkdir -p "$rootdir/tmp/pkg" "$rootdir/tmp/trace"
cp "$deb" "$rootdir/tmp/pkg/"
cp "$src"/traces/faults-configure-use-bad/{trace.zst,catalog.json} "$rootdir/tmp/trace/"
in_root() {
  chroot "$rootdir" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 \
    DEBIAN_FRONTEND=noninteractive "$@"
}
apt_opts=(-o Acquire::Retries=3 -o APT::Sandbox::User=root)

# 3. apt installs it with the dependencies it declares.
step "apt-get update"
in_root apt-get "${apt_opts[@]}" update -qq >"$tmp/apt.log" 2>&1 || { cat "$tmp/apt.log" >&2; fail "apt-get update"; }
step "apt-get install ./$(basename "$deb")"
in_root sh -c "cd /tmp/pkg && apt-get ${apt_opts[*]} install -y -qq --no-install-recommends ./fsmove_*.deb" \
  >"$tmp/apt.log" 2>&1 || { tail -30 "$tmp/apt.log" >&2; fail "apt-get install of the package"; }
for cmd in fsmove strace mmdebstrap slirp4netns newuidmap unshare; do
  in_root sh -c "command -v $cmd" >/dev/null || fail "$cmd is not installed with the package"
done
[ -x "$rootdir/usr/bin/fsmove" ] || fail "/usr/bin/fsmove is missing"
[ -f "$rootdir/usr/share/doc/fsmove/copyright" ] || fail "/usr/share/doc/fsmove/copyright is missing"
[ -f "$rootdir/usr/share/doc/fsmove/examples/action.yml" ] || fail "the CI recipes are missing"
[ -f "$rootdir/usr/share/zsh/vendor-completions/_fsmove" ] || fail "the zsh completion is missing"
[ -x "$rootdir/usr/libexec/fsmove/run-check" ] \
  || fail "/usr/libexec/fsmove/run-check (what the GitLab job runs) is missing"
if grep -E '/usr/share/man/man1/[^ ]*\.1$' <<<"$contents"; then
  fail "manual pages not gzipped"
fi
changelog=$rootdir/usr/share/doc/fsmove/changelog.gz
[ -f "$changelog" ] || fail "/usr/share/doc/fsmove/changelog.gz is missing"
top=$(zcat "$changelog" | head -1)
[ "$top" != "${top#fsmove ($(dpkg-deb --field "$deb" Version)) }" ] \
  || fail "the changelog's newest entry is '$top', not this package's version"

# 4. It runs.
step "fsmove --version"
version=$(dpkg-deb --field "$deb" Version)
out=$(in_root fsmove --version 2>&1) || fail "fsmove --version: $out"
echo "  $out"
grep -qF "$version" <<<"$out" || fail "fsmove --version does not print $version"

step "fsmove analyze on traces/faults-configure-use-bad"
out=$(in_root fsmove analyze --trace /tmp/trace/trace.zst --catalog /tmp/trace/catalog.json 2>&1)
status=$?
[ "$status" -eq 1 ] || { echo "$out" >&2; fail "fsmove analyze exited $status, expected 1 (findings)"; }
if ! grep -qF 'File[/etc/app/app.conf]' <<<"$out" || ! grep -qF 'Exec[use config]' <<<"$out"; then
  echo "$out" >&2
  fail "fsmove analyze did not report File[/etc/app/app.conf] and Exec[use config]"
fi
echo "  exit 1, finding: File[/etc/app/app.conf] / Exec[use config]"

step "bash completes fsmove ch"
out=$(in_root bash --norc -c 'source /usr/share/bash-completion/completions/fsmove &&
  COMP_WORDS=(fsmove ch) COMP_CWORD=1 && _fsmove && echo "${COMPREPLY[*]}"' 2>&1)
[ "$out" = check ] || fail "bash completion of 'fsmove ch': '$out', expected check"
echo "  check"

if grep -q '/usr/share/man/man1/fsmove' <<<"$contents"; then
  step "man fsmove"
  if [ ! -x "$rootdir/usr/bin/man" ]; then
    in_root apt-get "${apt_opts[@]}" install -y -qq --no-install-recommends man-db \
      >"$tmp/apt.log" 2>&1 || { tail -20 "$tmp/apt.log" >&2; fail "apt-get install man-db"; }
  fi
  # mmdebstrap roots exclude /usr/share/man through dpkg's path-exclude; the package's pages
  # must still be there.
  ls "$rootdir"/usr/share/man/man1/fsmove* >/dev/null 2>&1 \
    || fail "the package's man pages are not installed (dpkg path-exclude?)"
  out=$(in_root env MANPAGER=cat MANWIDTH=80 man fsmove 2>&1) || { echo "$out" >&2; fail "man fsmove"; }
  grep -qi 'fsmove' <<<"$out" || fail "man fsmove printed no page"
  echo "  $(grep -m1 -i 'fsmove' <<<"$out")"
else
  fail "no manual pages in the package"
fi
step "ok: installed and ran on Debian $release ($suite)"
