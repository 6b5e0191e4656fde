"""Cases of check_e2e.py: fsmove's own budget on the host (docs/check.md#fsmoves-own-limits).
Module code decides how much the host process takes in (the paths its calls name, the trace
it makes): past a limit the check stops taking more, ends incomplete (exit 3) and says which
limit, its value and the flag that raises it, instead of growing until the machine kills it."""
import json
import os
import subprocess
import sys
import tempfile

from e2e_lib import check, fsmove

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
                     "so the check is incomplete (exit 3"):
        check(sentence in p.stderr, f"not said: {sentence!r}")
    # The analysis stopped growing at the limit: the later resource's file is not in it.
    paths = report["stats"]["model"]["paths"]
    check(paths == MAX_PATHS, f"paths recorded: {paths}")
    check(report["stats"]["model"]["over_budget_constructs"] > 0, repr(report["stats"]["model"]))
    # The saved trace is its start, in whole lines, within the cap.
    check(0 < len(text) <= 1 << 20 and text.endswith(b"\n"), f"saved trace: {len(text)} bytes")
    print(f"ok: stopped at {paths} paths, saved {len(text)} bytes of trace", file=sys.stderr)
