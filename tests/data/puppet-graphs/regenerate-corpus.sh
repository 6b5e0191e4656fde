#!/bin/sh
# Records Puppet's own expanded relationship graph for the catalog of every run of the
# hand-judged corpus (../shared/corpus beside the checkout, read-only: nothing is written
# there) into corpus/NAME.expanded.dot.
#
# Nothing is applied: --noop and a tag that no resource has, so every resource is skipped;
# Puppet still builds and writes the whole graph first. Provider prefetch and eval_generate
# still run (read-only queries). Each run's modules.tar.zst gives the custom types the
# catalog uses. Puppet's own state goes to a temporary directory.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
corpus=${1:-$(cd "$here/../../../.." && pwd)/shared/corpus}
work=$(mktemp -d /tmp/fsmove-corpus-graphs.XXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
mkdir -p "$here/corpus"

for run in "$corpus"/*/; do
  name=$(basename "$run")
  [ -f "$run/catalog.json" ] || continue
  echo "graphing $name" >&2
  w="$work/$name"
  mkdir -p "$w/modules"
  zstd -dc "$run/modules.tar.zst" | tar -x -C "$w/modules"
  puppet apply --noop --tags fsmove_graph_only_no_such_tag --graph --graphdir "$w/graphs" \
    --catalog "$run/catalog.json" --modulepath "$w/modules" --log_level err \
    --confdir "$w/conf" --vardir "$w/var" --codedir "$w/code" --logdir "$w/log" \
    --rundir "$w/run" --publicdir "$w/public" >"$w/apply.log" 2>&1 || true
  if [ ! -f "$w/graphs/expanded_relationships.dot" ]; then
    cat "$w/apply.log" >&2
    exit 1
  fi
  cp "$w/graphs/expanded_relationships.dot" "$here/corpus/$name.expanded.dot"
done
