#!/usr/bin/env python3
"""Parses fsmove's real JUnit output back with an XML parser and checks its structure.

`fsmove analyze --format junit` on recorded runs: one with a missing ordering relationship
(one failing testcase, on the target resource), one whose resources have awkward titles
(spaces, brackets, quotes, UTF-8, a newline: every testcase name must read back as exactly a
catalog resource reference), and one with the finding suppressed by a .fsmove.json pair
(skipped, exit 0). The counts in the suite attributes must match the testcases.

Usage: junit_xml_test.py FSMOVE SOURCE_DIR
"""
import json
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def junit(fsmove, trace_dir, extra, expected_status, out):
    args = [fsmove, "analyze", "--trace", str(trace_dir / "trace.zst"),
            "--catalog", str(trace_dir / "catalog.json"), "--format", "junit", "-o", str(out),
            *extra]
    proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
    if proc.returncode != expected_status:
        fail(f"{' '.join(args)} exited {proc.returncode}, expected {expected_status}\n{proc.stderr}")
    root = ET.parse(out).getroot()  # raises on malformed XML
    if root.tag != "testsuites":
        fail(f"{out}: root is <{root.tag}>")
    suites = root.findall("testsuite")
    if len(suites) != 1:
        fail(f"{out}: {len(suites)} testsuites")
    suite = suites[0]
    cases = suite.findall("testcase")
    failed = [c for c in cases if c.find("failure") is not None]
    skipped = [c for c in cases if c.find("skipped") is not None]
    for element in (root, suite):
        counts = {k: int(element.get(k)) for k in ("tests", "failures", "errors", "skipped")}
        if counts != {"tests": len(cases), "failures": len(failed), "errors": 0,
                      "skipped": len(skipped)}:
            fail(f"{out}: <{element.tag}> counts {counts} do not match its testcases")
    for case in cases:
        if not case.get("classname") or not case.get("name"):
            fail(f"{out}: testcase without classname or name")
    return suite, cases, failed, skipped


def catalog_refs(catalog_path):
    catalog = json.loads(catalog_path.read_text())
    return {f"{r['type']}[{r['title']}]" for r in catalog["resources"]}


def main():
    fsmove, source_dir = sys.argv[1], Path(sys.argv[2])
    traces = source_dir / "traces"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)

        bad = traces / "faults-configure-use-bad"
        _, cases, failed, skipped = junit(fsmove, bad, [], 1, tmp / "bad.xml")
        if [c.get("name") for c in failed] != ["Exec[use config]"] or skipped:
            fail(f"bad.xml: failing cases {[c.get('name') for c in failed]}")
        failure = failed[0].find("failure")
        if failure.get("type") != "missing-ordering":
            fail(f"bad.xml: failure type {failure.get('type')}")
        text = failure.text or ""
        for needle in ["File[/etc/app/app.conf]", "/etc/app/app.conf: produced by",
                       "fix: add `require => File['/etc/app/app.conf']`", "fingerprint: "]:
            if needle not in text:
                fail(f"bad.xml: failure text lacks {needle!r}:\n{text}")
        if not failed[0].get("classname").endswith("fixtures/faults/configure-use/bad.pp"):
            fail(f"bad.xml: classname {failed[0].get('classname')}")
        names = {c.get("name") for c in cases}
        if "File[/etc/app/app.conf]" not in names:
            fail("bad.xml: the source resource has no (passing) testcase")
        print(f"ok: bad.xml, {len(cases)} testcases, 1 failure")

        files = traces / "analyzer-files"
        _, cases, failed, _ = junit(fsmove, files, [], 0, tmp / "files.xml")
        refs = catalog_refs(files / "catalog.json")
        names = [c.get("name") for c in cases]
        unknown = [n for n in names if n not in refs]
        if unknown or failed:
            fail(f"files.xml: names not in the catalog {unknown!r}, failures {len(failed)}")
        awkward = [n for n in names if any(ch in n for ch in "\n\"'<>&") or not n.isascii()]
        if len(awkward) < 2:
            fail(f"files.xml: expected testcases with awkward titles, got {awkward!r}")
        print(f"ok: files.xml, {len(cases)} testcases read back exactly, "
              f"{len(awkward)} with awkward titles")

        config = tmp / "fsmove.json"
        config.write_text(json.dumps({"ignore_pairs": [
            {"source": "File[/etc/app/app.conf]", "target": "Exec[use config]",
             "reason": "the exec copes <without> it & says so"}]}))
        _, cases, failed, skipped = junit(fsmove, bad, ["--config", str(config)], 0,
                                          tmp / "suppressed.xml")
        if failed or [c.get("name") for c in skipped] != ["Exec[use config]"]:
            fail("suppressed.xml: expected Exec[use config] skipped and no failure")
        message = skipped[0].find("skipped").get("message")
        if "the exec copes <without> it & says so" not in message:
            fail(f"suppressed.xml: skipped message {message!r}")
        print("ok: suppressed.xml, the suppressed finding is a skipped testcase")


if __name__ == "__main__":
    main()
