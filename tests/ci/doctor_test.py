#!/usr/bin/env python3
"""`fsmove doctor` on the machine that runs the tests: it exits 0 (check can run) or 1
(something is missing), prints one line per check (ok, missing, warning) and a last line that
agrees with its exit code, and --format json says the same. What this machine has is not
asserted: the test runs on developers' machines, in CI and in containers alike.

Usage: doctor_test.py FSMOVE
"""
import json
import subprocess
import sys

STATES = ("ok", "missing", "warning")


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run(fsmove, *args):
    return subprocess.run([fsmove, "doctor", *args], capture_output=True, text=True, timeout=120)


def main():
    fsmove = sys.argv[1]
    text = run(fsmove)
    if text.returncode not in (0, 1):
        fail(f"fsmove doctor: exit {text.returncode}\n{text.stdout}{text.stderr}")
    lines = text.stdout.splitlines()
    if len(lines) < 2:
        fail(f"fsmove doctor printed {len(lines)} lines:\n{text.stdout}")
    *checks, verdict = lines
    for line in checks:
        state = line.split(" ", 1)[0]
        if state not in STATES or ": " not in line:
            fail(f"not a check line: {line!r}")
        if state == "missing" and "; fix: " not in line:
            fail(f"a missing check without its fix: {line!r}")
    if (text.returncode == 0) != verdict.endswith("can run here"):
        fail(f"exit {text.returncode} but the verdict says {verdict!r}")
    if text.returncode == 1 and not any(l.startswith("missing") for l in checks):
        fail("exit 1 without a missing check")

    js = run(fsmove, "--format", "json")
    if js.returncode != text.returncode:
        fail(f"--format json: exit {js.returncode}, text said {text.returncode}")
    doc = json.loads(js.stdout)
    if len(doc["checks"]) != len(checks):
        fail(f"{len(doc['checks'])} checks in JSON, {len(checks)} lines in text")
    if doc["ready"] != (js.returncode == 0):
        fail(f"ready={doc['ready']} with exit {js.returncode}")
    for c in doc["checks"]:
        if set(c) != {"name", "ok", "required", "detail", "fix"}:
            fail(f"check fields: {sorted(c)}")

    for args in (["--format", "xml"], ["--no-such-option"]):
        bad = run(fsmove, *args)
        if bad.returncode != 2:
            fail(f"fsmove doctor {' '.join(args)}: exit {bad.returncode}, expected 2 (usage)")
    print(f"ok: {len(checks)} checks, exit {text.returncode}")


if __name__ == "__main__":
    main()
