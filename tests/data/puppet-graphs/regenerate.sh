#!/bin/sh
# Records Puppet's own expanded relationship graph for the catalog of every recorded run in
# traces/ (traces/NAME/catalog.json -> NAME.expanded.dot), and compiles src/NAME.pp (with
# Debian's modules in /usr/share/puppet/modules) into NAME.json and its graph, for
# tests/graph/puppet_graph_test.cc.
#
# `puppet apply --noop --graph --catalog` builds and writes the graph of exactly that catalog
# before evaluating anything; --noop keeps this machine unchanged (the recorded catalogs have
# no exec `onlyif`/`unless` commands; services and packages are only queried). Puppet's own
# state goes to a temporary directory.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
traces=$(cd "$here/../../../traces" && pwd)
work=$(mktemp -d /tmp/fsmove-puppet-graphs.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
isolate="--confdir $work/conf --vardir $work/var --codedir $work/code --logdir $work/log \
  --rundir $work/run --publicdir $work/public"

modules=/usr/share/puppet/modules
for manifest in "$here"/src/*.pp; do
  name=$(basename "$manifest" .pp)
  echo "compiling $name" >&2
  # shellcheck disable=SC2086
  puppet catalog find --terminus compiler --render-as json --log_level err $isolate \
    --manifest "$manifest" --modulepath "$modules" "$(hostname -f)" >"$here/$name.json"
done

graph() {  # CATALOG NAME
  echo "graphing $2" >&2
  rm -rf "$work/graphs"
  # shellcheck disable=SC2086
  puppet apply --noop --graph --graphdir "$work/graphs" --catalog "$1" --log_level err \
    --modulepath "$modules" $isolate >"$work/$2.apply" 2>&1 || true
  if [ ! -f "$work/graphs/expanded_relationships.dot" ]; then
    cat "$work/$2.apply" >&2
    exit 1
  fi
  cp "$work/graphs/expanded_relationships.dot" "$here/$2.expanded.dot"
}

for manifest in "$here"/src/*.pp; do
  name=$(basename "$manifest" .pp)
  graph "$here/$name.json" "$name"
done

for catalog in "$traces"/*/catalog.json; do
  graph "$catalog" "$(basename "$(dirname "$catalog")")"
done
