#!/bin/sh
# Recompiles every src/NAME.pp into NAME.json with real Puppet, and records Puppet's own
# relationship graphs (NAME.relationships.dot, NAME.expanded.dot) as oracles for the tests.
#
# Puppet's own state goes to a temporary directory. The graph step runs apply with --noop
# on the compiled file (--catalog), so the graphs describe exactly the catalog checked in;
# the refresh oracle at the end applies notify_relay.json for real, which only creates and
# then removes /tmp/fsmove-nr. Hand-written catalogs live in handwritten/.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/fsmove-catalogs.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM

isolate="--confdir $work/conf --vardir $work/var --codedir $work/code --logdir $work/log \
  --rundir $work/run --publicdir $work/public"
certname=$(hostname -f)

# Catalogs whose graphs Puppet can build here (the cycle one makes apply fail after the
# graph is written, which is fine; its dot files are still useful).
oracles="chains containment stages aliases titles autorequire notify_relay cycle"

for manifest in "$here"/src/*.pp; do
  name=$(basename "$manifest" .pp)
  echo "compiling $name" >&2
  # shellcheck disable=SC2086
  puppet catalog find --terminus compiler --render-as json --log_level err $isolate \
    --manifest "$manifest" "$certname" 2>"$work/$name.err" >"$work/$name.json" || {
    grep -v Facter "$work/$name.err" >&2
    exit 1
  }
  mv "$work/$name.json" "$here/$name.json"
done

for name in $oracles; do
  echo "graphing $name" >&2
  rm -rf "$work/graphs"
  # Failures while evaluating (commands that do not exist, cycles) happen after the
  # graphs are written; only a missing graph is an error here.
  # shellcheck disable=SC2086
  puppet apply --noop --graph --graphdir "$work/graphs" --catalog "$here/$name.json" \
    --log_level err $isolate >"$work/$name.apply" 2>&1 || true
  if [ ! -f "$work/graphs/expanded_relationships.dot" ]; then
    grep -v Facter "$work/$name.apply" >&2
    exit 1
  fi
  cp "$work/graphs/relationships.dot" "$here/$name.relationships.dot"
  cp "$work/graphs/expanded_relationships.dot" "$here/$name.expanded.dot"
done

# Refresh oracle: apply notify_relay for real (it only creates files under /tmp/fsmove-nr,
# runs /bin/true and queries services and a package that do not exist) and keep the
# resources Puppet refreshed. Every File is created, so each refreshed resource is one
# that some File notifies through relaying resources.
echo "applying notify_relay" >&2
rm -rf /tmp/fsmove-nr
mkdir -p /tmp/fsmove-nr
# shellcheck disable=SC2086
puppet apply --catalog "$here/notify_relay.json" --verbose --color false $isolate \
  >"$work/notify_relay.log" 2>&1 || true
rm -rf /tmp/fsmove-nr
sed -n "s/^Notice: \(.*\/\)\{0,1\}\([A-Z][A-Za-z_:]*\[.*\]\): Triggered 'refresh' from .*/\2/p" \
  "$work/notify_relay.log" | sort >"$here/notify_relay.refreshed.txt"
