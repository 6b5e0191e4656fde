#!/usr/bin/env python3
"""Validates fsmove's real SARIF output against the official SARIF 2.1.0 JSON schema.

Runs `fsmove analyze --format sarif` on recorded runs under traces/ (findings inside and
outside the source root, a missing notifier, a run with awkward resource titles and no
findings, suppressed results with a baseline) and checks each document with python3-jsonschema's
validator for the schema's own draft (draft-04, format checks on). Then checks that the
validator rejects broken variants of a real document, so this test can fail.

Usage: sarif_schema_test.py FSMOVE SCHEMA SOURCE_DIR
"""
import sys
import tempfile
from pathlib import Path

import jsonschema

from ci_support import (analyze_recorded, check_mutations_rejected, commented_code, fail,
                        recorded_root, schema_validator, setting, validated_documents, without)


def main():
    fsmove, schema_path, source_dir = sys.argv[1], Path(sys.argv[2]), Path(sys.argv[3])
    validator = schema_validator(schema_path, jsonschema.Draft4Validator)

    traces = source_dir / "traces"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        baseline = tmp / "generate-baseline.json"
        cases = [
            # (name, trace, extra options, expected exit status)
            ("mor-in-root", "faults-configure-use-bad",
             ["--source-root", recorded_root(traces / "faults-configure-use-bad/catalog.json")], 1),
            ("mn-outside-root", "faults-config-service-bad", ["--source-root", str(tmp)], 1),
            ("package-notify", "faults-package-service-bad", ["--package-notify"], 1),
            ("awkward-titles", "analyzer-files", [], 0),
            ("suppressed", "faults-generate-use-bad",
             ["--baseline", str(baseline), "--show-suppressed"], 0),
            ("in-source", "faults-configure-use-bad",
             ["--source-root", str(commented_code(source_dir, tmp)), "--show-suppressed"], 0),
        ]
        analyze_recorded(fsmove, traces / "faults-generate-use-bad",
                         ["--write-baseline", baseline, "-o", tmp / "ignored.txt"], 1)
        documents = validated_documents(fsmove, validator, traces, tmp, "sarif", cases)

    # The documents exercise what they are meant to.
    if documents["mor-in-root"]["runs"][0]["results"][0]["locations"][0]["physicalLocation"][
            "artifactLocation"].get("uriBaseId") != "%SRCROOT%":
        fail("mor-in-root: the location is not relative to %SRCROOT%")
    suppressed = documents["suppressed"]["runs"][0]["results"]
    if len(suppressed) != 2 or any(not r["suppressions"] for r in suppressed):
        fail("suppressed: expected two results, both with suppressions")
    in_source = documents["in-source"]["runs"][0]["results"]
    if len(in_source) != 1 or in_source[0]["suppressions"][0]["kind"] != "inSource":
        fail(f"in-source: expected one result suppressed in the source: {in_source}")
    if {r["baselineState"] for r in suppressed} != {"unchanged"}:
        fail("suppressed: expected baselineState unchanged")

    # And the validator is not a rubber stamp: broken variants of a real document fail.
    good = documents["mor-in-root"]

    result = ["runs", 0, "results", 0]
    mutations = {
        "no version": without(["version"]),
        "wrong version": setting(["version"], "2.0.0"),
        "no tool": without(["runs", 0, "tool"]),
        "unknown level": setting([*result, "level"], "fatal"),
        "no message": without([*result, "message"]),
        "line 0": setting([*result, "locations", 0, "physicalLocation", "region", "startLine"], 0),
        "fingerprint not a string": setting([*result, "partialFingerprints", "fsmoveFinding/v1"], 7),
        "bad suppression kind": setting([*result, "suppressions"], [{"kind": "silenced"}]),
        "bad baselineState": setting([*result, "baselineState"], "old"),
        "unknown top-level key": setting(["results"], []),
        "informationUri not a URI": setting(["runs", 0, "tool", "driver", "informationUri"],
                                            "not a uri"),
    }
    check_mutations_rejected(validator, good, mutations)


if __name__ == "__main__":
    main()
