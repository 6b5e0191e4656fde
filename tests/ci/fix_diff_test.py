#!/usr/bin/env python3
"""`fsmove analyze --fix-diff` on every recorded fault fixture (no sandbox, no root): the diff
names files relative to --source-root (the recordings name another checkout's paths), applies
with `git apply` to a copy of fixtures/, parses (`puppet parser validate`, when puppet is
installed) and adds no puppet-lint warning (when puppet-lint is); every patch is `not-run`
(analyze cannot verify); the fixed twins give an empty diff. `fsmove check --fix-diff`, which
verifies, is tests/e2e/check_e2e.py fix-fixtures.

Usage: fix_diff_test.py FSMOVE SOURCE_DIR
"""
import json
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def lint_counts(path):
    p = subprocess.run(["puppet-lint", "--json", str(path)], capture_output=True, text=True)
    counts = {}
    for per_file in json.loads(p.stdout[p.stdout.index("["):]):
        for problem in per_file:
            counts[problem["check"]] = counts.get(problem["check"], 0) + 1
    return counts


def main():
    fsmove, source = sys.argv[1], Path(sys.argv[2]).resolve()
    traces = sorted(p for p in (source / "traces").glob("faults-*") if (p / "catalog.json").exists())
    checked = 0
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for t in traces:
            diff, report = tmp / f"{t.name}.diff", tmp / f"{t.name}.json"
            args = [fsmove, "analyze", "--trace", str(t / "trace.zst"), "--catalog",
                    str(t / "catalog.json"), "--source-root", str(source), "--fix-diff", str(diff),
                    "--format", "json", "-o", str(report), "--allow-failed"]
            p = subprocess.run(args, capture_output=True, text=True, timeout=300)
            if p.returncode not in (0, 1):
                fail(f"{' '.join(args)}: exit {p.returncode}\n{p.stderr}")
            faults = json.loads(report.read_text())["faults"]
            text = diff.read_text()
            if not faults:
                if text:
                    fail(f"{t.name}: no finding but a diff:\n{text}")
                continue
            for f in faults:
                patch = f["patch"]
                if f["confidence"] == "low":  # what only --all shows gets no patch
                    if patch is not None:
                        fail(f"{t.name}: a patch for a low-confidence finding: {patch}")
                    continue
                if patch["verdict"] == "failed":
                    if "no fix in the checked code" not in patch["reason"]:
                        fail(f"{t.name}: {patch['reason']}")
                    continue
                if patch["verdict"] != "not-run" or "not verified" not in patch["reason"]:
                    fail(f"{t.name}: verdict {patch['verdict']}: {patch['reason']}")
                if Path(patch["root"]) != source:
                    fail(f"{t.name}: root {patch['root']}")
            if not text:
                continue
            copy = tmp / t.name
            shutil.copytree(source / "fixtures", copy / "fixtures")
            p = subprocess.run(["git", "apply", str(diff)], cwd=copy, capture_output=True, text=True)
            if p.returncode != 0:
                fail(f"{t.name}: git apply: {p.stderr}\n{text}")
            for line in text.splitlines():
                if not line.startswith("+++ b/"):
                    continue
                rel = line[6:]
                if shutil.which("puppet"):
                    v = subprocess.run(["puppet", "parser", "validate", str(copy / rel)],
                                       capture_output=True, text=True)
                    if v.returncode != 0:
                        fail(f"{t.name}: the patched {rel} does not parse: {v.stderr}")
                if shutil.which("puppet-lint"):
                    before, after = lint_counts(source / rel), lint_counts(copy / rel)
                    worse = {k: n for k, n in after.items() if n > before.get(k, 0)}
                    if worse:
                        fail(f"{t.name}: puppet-lint warns more on the patched {rel}: {worse}")
            checked += 1
    if checked < 5:
        fail(f"only {checked} fixtures gave a diff")
    print(f"ok: {checked} fixtures' diffs apply, parse and lint as their originals")


if __name__ == "__main__":
    main()
