#!/usr/bin/env python3
"""Validates fsmove's real JSON reports against docs/json-report.schema.json, the schema the
package installs in /usr/share/fsmove.

Runs `fsmove analyze --format json` on recorded runs under traces/: missing orderings, a
missing notifier, no findings, suppressed findings with a baseline, an incomplete run (a
resource failed) and the patches of --fix-diff, and checks each document with
python3-jsonschema's validator for the schema's draft (2020-12, format checks on). The e2e
tests validate every live check's report the same way (tests/e2e/check_lib.py), which adds the
"run" section. Then checks that the validator rejects broken variants of a real document, so
this test can fail.

Usage: json_schema_test.py FSMOVE SCHEMA SOURCE_DIR
"""
import json
import sys
import tempfile
from pathlib import Path

import jsonschema

from ci_support import (analyze_recorded, check_mutations_rejected, check_valid, commented_code,
                        fail, run_fsmove, schema_validator, setting, validated_documents,
                        without)


def main():
    fsmove, schema_path, source_dir = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    validator = schema_validator(schema_path, jsonschema.Draft202012Validator)

    traces = source_dir / "traces"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        baseline = tmp / "generate-baseline.json"
        generate = traces / "faults-generate-use-bad"
        cases = [
            # (name, trace, extra options, expected exit status)
            ("mor", "faults-configure-use-bad", [], 1),
            ("mn", "faults-config-service-bad", ["--package-notify"], 1),
            ("none", "analyzer-files", [], 0),
            ("suppressed", "faults-generate-use-bad",
             ["--baseline", str(baseline), "--show-suppressed"], 0),
            ("in-source", "faults-configure-use-bad",
             ["--source-root", str(commented_code(source_dir, tmp)), "--show-suppressed"], 0),
            ("incomplete", "faults-configure-use-bad-reversed", [], 3),
            ("patches", "faults-generate-use-bad",
             ["--source-root", str(source_dir), "--fix-diff", str(tmp / "fix.diff")], 1),
        ]
        analyze_recorded(fsmove, generate,
                         ["--write-baseline", baseline, "-o", tmp / "ignored.txt"], 1)
        documents = validated_documents(fsmove, validator, traces, tmp, "json", cases)

    # The documents exercise what they are meant to.
    if {f["kind"] for f in documents["mn"]["faults"]} != {"MN"}:
        fail("mn: expected missing notifiers only")
    if documents["none"]["faults"] or len(documents["suppressed"]["suppressed"]) != 2:
        fail("none/suppressed: expected no faults, and two suppressed findings")
    if "baseline" not in documents["suppressed"]:
        fail("suppressed: no baseline section")
    in_source = documents["in-source"]["suppressed"]
    if len(in_source) != 1 or in_source[0]["suppression"]["kind"] != "in_source":
        fail(f"in-source: expected one finding suppressed by a comment: {in_source}")
    if documents["incomplete"]["completeness"]["complete"] is not False:
        fail("incomplete: the completeness section says complete")
    if any(f["patch"] is None for f in documents["patches"]["faults"]):
        fail("patches: a finding without its patch")

    # And the validator is not a rubber stamp: broken variants of a real document fail.
    good = documents["patches"]

    fault = ["faults", 0]
    mutations = {
        "no schema_version": without(["schema_version"]),
        "schema_version 2": setting(["schema_version"], 2),
        "unknown top-level key": setting(["findings"], []),
        "unknown kind": setting([*fault, "kind"], "MX"),
        "unknown rule": setting([*fault, "rule"], "missing-order"),
        "no fingerprint": without([*fault, "fingerprint"]),
        "short fingerprint": setting([*fault, "fingerprint"], "abc"),
        "line 0": setting([*fault, "source", "line"], 0),
        "unknown field of a fault": setting([*fault, "severity"], "high"),
        "unknown effect": setting([*fault, "paths", 0, "source", "effect"], "read"),
        "unknown patch verdict": setting([*fault, "patch", "verdict"], "maybe"),
        "summary count negative": setting(["summary", "MOR"], -1),
        "summary count a string": setting(["summary", "MN"], "0"),
        "no graph model": without(["graph", "model"]),
    }
    check_mutations_rejected(validator, good, mutations)

    # A finding weakened by a row of a knowledge table cites the rule and the row (saz-timezone:
    # Package[cron] reads /etc/localtime, which every program reads in passing).
    cited = cited_document(fsmove, traces / "corpus-rerecorded" / "saz-timezone")
    check_valid(validator, "cited", cited)
    paths = [(i, j) for i, f in enumerate(cited["faults"])
             for j, p in enumerate(f["paths"]) if "citations" in p]
    if not paths:
        fail("cited: no evidence cites a knowledge table's row")
    i, j = paths[0]
    citation = cited["faults"][i]["paths"][j]["citations"][0]
    if (citation["rule"], citation["row"]) != ("ambient-configuration", "ambient.localtime"):
        fail(f"cited: expected ambient-configuration's row ambient.localtime, got {citation}")
    print("ok: cited is a valid json document whose weakened evidence cites its row")
    at = ["faults", i, "paths", j, "citations"]
    check_mutations_rejected(validator, cited, {
        "empty citations": setting(at, []),
        "citation without source": without([*at, 0, "source"]),
        "unknown field of a citation": setting([*at, 0, "url"], "x"),
        "unknown match of a citation": setting([*at, 0, "match"], "prefix"),
    })


def cited_document(fsmove, trace_dir):
    """The --all JSON report of a recorded run whose trace is trace.strace.zst."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cited.json"
        run_fsmove(fsmove, ["analyze", "--trace", str(trace_dir / "trace.strace.zst"),
                            "--catalog", str(trace_dir / "catalog.json"), "--all",
                            "--format", "json", "-o", str(out)], 1)
        return json.loads(out.read_text())


if __name__ == "__main__":
    main()
