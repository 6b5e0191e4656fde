"""Cases of check_e2e.py: fsmove's own budget on the host (docs/check.md#fsmoves-own-limits).
Module code decides how much the host process takes in (the paths its calls name, the trace
it makes): past a limit the check stops taking more, ends incomplete (exit 3) and says which
limit, its value and the flag that raises it, instead of growing until the machine kills it."""
import glob
import json
import os
import subprocess
import sys
import tempfile

from e2e_lib import ARGS, check, fsmove

PATHS = 150000  # distinct paths the module stats
MAX_PATHS = 100000


def case_host_budget():
    """One check, two limits: an exec whose perl looks up 150,000 distinct paths (the shape that
    took the host process from 49 MB to 2.5 GB at 2 M paths) against --max-paths 100000, and
    --save-trace against --max-saved-trace 1M. Today's code has neither limit."""
    loop = (f"for my \\$i (1..{PATHS}) "
            "{ stat(qq{/srv/fsmove-budget/d} . int(\\$i / 1000) . qq{/f\\$i}) }")
    code = (f"exec {{ 'stat loop': command => '/usr/bin/perl -e \"{loop}\"', timeout => 0 }}\n"
            "file { '/etc/fsmove-after-loop': content => \"x\\n\", require => Exec['stat loop'] }\n")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        saved = os.path.join(tmp, "trace.zst")
        p = fsmove("check", "-q", "--json-output", out, "--max-paths", str(MAX_PATHS),
                   "--save-trace", saved, "--max-saved-trace", "1M", "-e", code)
        check(p.returncode == 3, f"exit code {p.returncode}, expected 3 (incomplete)")
        with open(out, encoding="utf-8") as fh:
            report = json.load(fh)
        text = subprocess.run(["zstd", "-dcq", saved], capture_output=True, check=True).stdout
    # Puppet itself did everything: the limits alone make it incomplete.
    check(report["run"]["puppet_exit_code"] == 0, f"puppet exit code {report['run']['puppet_exit_code']}")
    check(report["run"]["failed_resources"] == [], repr(report["run"]["failed_resources"]))
    check(report["summary"]["incomplete"], "the report does not say incomplete")
    limits = {l["limit"]: l for l in report["completeness"]["limits_hit"]}
    check(set(limits) == {"paths", "saved_trace"}, f"limits hit: {sorted(limits)}")
    check(limits["paths"]["value"] == MAX_PATHS and limits["paths"]["flag"] == "--max-paths",
          repr(limits["paths"]))
    check(limits["saved_trace"]["value"] == 1 << 20, repr(limits["saved_trace"]))
    # One sentence each: which limit, its value, the flag that raises it.
    for sentence in (f"the analysis stopped at its limit of {MAX_PATHS} distinct paths (--max-paths)",
                     "raise it with --max-paths N",
                     f"the saved trace {saved} stops at its limit of 1 MiB of trace text "
                     "(--max-saved-trace)",
                     "so the check is incomplete (exit 3",
                     # ... and at once, when it was reached, not only in the report.
                     f"the saved trace {saved} reached its limit of 1 MiB (--max-saved-trace): "
                     "the rest of the trace is analysed but not saved"):
        check(sentence in p.stderr, f"not said: {sentence!r}")
    # The analysis stopped growing at the limit: the later resource's file is not in it.
    paths = report["stats"]["model"]["paths"]
    check(paths == MAX_PATHS, f"paths recorded: {paths}")
    check(report["stats"]["model"]["over_budget_constructs"] > 0, repr(report["stats"]["model"]))
    # The saved trace is its start, in whole lines, within the cap.
    check(0 < len(text) <= 1 << 20 and text.endswith(b"\n"), f"saved trace: {len(text)} bytes")
    print(f"ok: stopped at {paths} paths, saved {len(text)} bytes of trace", file=sys.stderr)


def case_scan_budget():
    """fsmove scan gives each module's check its limits: the run of a tiny module past
    --max-inodes 100 is apply-failed with the limit's sentence; a value no check could read
    stops the scan before any check starts."""
    module = os.path.join(ARGS.source, "fixtures", "scan", "scan_ok")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "scan")
        p = fsmove("scan", "-q", "-o", out, "--max-inodes", "100", module)
        check(p.returncode == 1, f"exit code {p.returncode}")
        statuses = glob.glob(os.path.join(out, "*", "status.json"))
        check(len(statuses) == 1, f"status files: {statuses}")
        with open(statuses[0], encoding="utf-8") as fh:
            status = json.load(fh)
        check(status["status"] == "apply-failed" and status["check_exit"] == 3
              and "limit of 100 names" in status["error"] and "--max-inodes" in status["error"],
              f"the module's check did not stop at the scan's limit: {status}")
        bad = os.path.join(tmp, "bad")
        p = fsmove("scan", "-q", "-o", bad, "--max-paths", "0", module)
        check(p.returncode == 2 and "--max-paths 0: expected a whole number above 0" in p.stderr,
              f"exit code {p.returncode}: {p.stderr}")
        check(not os.path.exists(bad), "the scan started with a limit it cannot read")
    print("ok: the scan's limits reach each module's check", file=sys.stderr)
