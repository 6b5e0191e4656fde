#!/usr/bin/env bash
# tools/ci/run-check on recorded runs: it must write the SARIF and JUnit reports, record its
# outputs for GitHub, and return 1 on findings (0 with --fail-on-findings false), 0 on a clean
# run or when every finding is baselined, and 2 on errors.
# Usage: run_check_test.sh FSMOVE SOURCE_DIR
set -uo pipefail
fsmove=$1
src=$2
script="$src/tools/ci/run-check"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}
# expect STATUS NAME -- ARGS...: runs run-check, checks its exit status.
expect() {
  local want=$1 name=$2
  shift 3
  "$script" --fsmove "$fsmove" "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
  local got=$?
  if [ "$got" -ne "$want" ]; then
    fail "$name: exit $got, expected $want"
    sed 's/^/  | /' "$tmp/$name.err" >&2
  else
    echo "ok: $name exits $want"
  fi
}
# offline NAME: the run-check (and fsmove) arguments for the recorded run traces/NAME.
offline() { run=(--trace "$src/traces/$1/trace.zst" --catalog "$src/traces/$1/catalog.json"); }

# Findings: exit 1, both reports written, GitHub outputs recorded.
export GITHUB_OUTPUT="$tmp/github-output"
: >"$GITHUB_OUTPUT"
mkdir -p out
offline faults-configure-use-bad
expect 1 findings -- "${run[@]}" --sarif out/r.sarif --junit out/r.xml
"${PYTHON:-python3}" - "$tmp/out/r.sarif" "$tmp/out/r.xml" <<'PY' || fail "findings: reports unreadable or wrong"
import json, sys, xml.etree.ElementTree as ET
sarif = json.load(open(sys.argv[1]))
assert sarif["version"] == "2.1.0"
assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["missing-ordering"]
suite = ET.parse(sys.argv[2]).getroot().find("testsuite")
assert suite.get("failures") == "1", suite.attrib
PY
grep -qx "exit-code=1" "$GITHUB_OUTPUT" || fail "findings: no exit-code=1 in GITHUB_OUTPUT"
grep -qx "sarif-file=out/r.sarif" "$GITHUB_OUTPUT" || fail "findings: no sarif-file output"
grep -qx "junit-file=out/r.xml" "$GITHUB_OUTPUT" || fail "findings: no junit-file output"
grep -q "Missing ordering relationship (MOR)" "$tmp/findings.out" || fail "findings: no text report"

# The review formats, when asked: written from the same run and recorded for the next steps.
: >"$GITHUB_OUTPUT"
expect 1 review -- "${run[@]}" --sarif "" --junit "" --rdjson out/r.rdjson \
  --codequality out/r.codequality.json --markdown out/r.md
"${PYTHON:-python3}" - "$tmp/out/r.rdjson" "$tmp/out/r.codequality.json" <<'PY' || fail "review: rdjson or Code Quality unreadable or wrong"
import json, sys
rd = json.load(open(sys.argv[1]))
assert [d["code"]["value"] for d in rd["diagnostics"]] == ["missing-ordering"], rd
cq = json.load(open(sys.argv[2]))
assert [i["check_name"] for i in cq] == ["missing-ordering"], cq
PY
grep -q "^## fsmove: 1 finding" out/r.md || fail "review: no markdown heading"
grep -qx "rdjson-file=out/r.rdjson" "$GITHUB_OUTPUT" || fail "review: no rdjson-file output"
grep -qx "codequality-file=out/r.codequality.json" "$GITHUB_OUTPUT" || fail "review: no codequality-file output"
grep -qx "markdown-file=out/r.md" "$GITHUB_OUTPUT" || fail "review: no markdown-file output"
grep -q "sarif-file=" "$GITHUB_OUTPUT" && fail "review: sarif-file output without a SARIF report"

# The same with --fail-on-findings false: exit 0, reports still written.
rm -f out/r.sarif out/r.xml
: >"$GITHUB_OUTPUT"
expect 0 lenient -- "${run[@]}" --sarif out/r.sarif --junit out/r.xml --fail-on-findings false
if [ ! -s out/r.sarif ] || [ ! -s out/r.xml ]; then fail "lenient: reports not written"; fi
grep -qx "exit-code=0" "$GITHUB_OUTPUT" || fail "lenient: no exit-code=0"
grep -qx "fsmove-exit-code=1" "$GITHUB_OUTPUT" || fail "lenient: no fsmove-exit-code=1"

# A clean run, default report names in the current directory.
offline faults-configure-use-fixed
expect 0 clean -- "${run[@]}"
if [ ! -s fsmove.sarif ] || [ ! -s fsmove-junit.xml ]; then
  fail "clean: default reports not written"
fi

# A baseline accepts the findings: exit 0.
offline faults-configure-use-bad
"$fsmove" analyze "${run[@]}" --write-baseline base.json >/dev/null 2>&1
expect 0 baselined -- "${run[@]}" --baseline base.json
grep -q "1 suppressed" "$tmp/baselined.out" || fail "baselined: no suppressed count"

# Errors: exit 2, and no stale report left behind from the runs above.
echo '{"ignore_pairs": 3}' >bad.json
: >"$GITHUB_OUTPUT"
expect 2 bad-config -- "${run[@]}" --config bad.json
grep -q "bad.json: /ignore_pairs: expected an array" "$tmp/bad-config.err" ||
  fail "bad-config: error does not name the pointer"
[ ! -e fsmove.sarif ] || fail "bad-config: a stale fsmove.sarif is still there"
grep -qx "exit-code=2" "$GITHUB_OUTPUT" || fail "bad-config: no exit-code=2"
grep -q "sarif-file=" "$GITHUB_OUTPUT" && fail "bad-config: sarif-file output without a file"
expect 2 bad-flag -- "${run[@]}" --fail-on-findings maybe
expect 2 half-offline -- --trace "$src/traces/faults-configure-use-bad/trace.zst"

# --module needs `fsmove check`; without it, a clear error (with it, this run would apply
# Puppet, which is the executor's tests' business).
subcommands=$("$fsmove" --help 2>&1)
if ! grep -qE '^[[:space:]]+check([[:space:]]|$)' <<<"$subcommands"; then
  expect 2 no-check -- --module "$src/fixtures/faults/configure-use"
  grep -q "has no \`check\` command" "$tmp/no-check.err" || fail "no-check: unclear error"
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "all run-check cases passed"
