#!/usr/bin/env python3
"""Checks fsmove's review formats from the outside, on the real binary and recorded runs:

- rdjson (`--format rdjson`) against reviewdog's published JSON schemas (the DiagnosticResult
  document, and each diagnostic against the rdjsonl Diagnostic schema), draft-04 as published,
  plus what reviewdog's GitHub reporter needs for a suggestion (line-wise ranges equal to the
  comment's), and broken variants rejected so that the check can fail;
- GitLab Code Quality (`--format codequality`): no schema is published, so the keys and types
  GitLab's "Code Quality report format" requires (description, check_name, fingerprint,
  severity in info/minor/major/critical/blocker, location.path relative to the repository,
  location.lines.begin), unique fingerprints equal to the JSON report's;
- markdown (`--format markdown`): the heading and counts, balanced fences, and every Mermaid
  block (also `fsmove graph --around --format mermaid` on a catalog of hostile titles) parsed
  by a parser of the subset fsmove writes, labels inert;
- the same reports written alongside another with --rdjson-output, --codequality-output and
  --markdown-output, from one run;
- with FSMOVE_TESTS (the unit-test binary), the documents of a finding with a hand-made patch
  that ReviewDocumentsTest writes: SARIF with `fixes` against the SARIF 2.1.0 schema, rdjson
  with a suggestion against reviewdog's, the markdown with its diff block (the command line
  makes no patch until the fix layer fills Finding::patch).

Usage: review_formats_test.py FSMOVE SOURCE_DIR [FSMOVE_TESTS]
"""
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import jsonschema

from ci_support import fail, recorded_root, run_fsmove


def run(fsmove, args, expected_status):
    return run_fsmove(fsmove, args, expected_status).stdout


# The Mermaid subset fsmove writes.
NODE = re.compile(r'  (n\d+)\["([^"]*)"\]')
EDGE = re.compile(r"  (n\d+) (-->|-->\|[a-z]+\||==>\|missing [a-z]+\|) (n\d+)")
LINKSTYLE = re.compile(r"  linkStyle (\d+(?:,\d+)*) [a-z-]+:[#0-9a-z]+(,[a-z-]+:[#0-9a-z]+)*")
CLASSDEF = re.compile(r"  classDef [a-z]+ [a-z-]+:[#0-9a-z]+(,[a-z-]+:[#0-9a-z]+)*")
CLASS = re.compile(r"  class (n\d+(?:,n\d+)*) [a-z]+")


def mermaid_problem(text):
    lines = text.rstrip("\n").split("\n")
    if not lines or lines[0] != "flowchart LR":
        return "no flowchart LR header"
    nodes = set()
    edges = 0
    for line in lines[1:]:
        if m := NODE.fullmatch(line):
            label = re.sub(r"#\d+;", "", m.group(2)).replace("<br/>", "")
            if re.search(r"[\"`<>;|%{}&#\\]", label) or "-->" in label:
                return f"label not inert: {line!r}"
            nodes.add(m.group(1))
        elif m := EDGE.fullmatch(line):
            if not {m.group(1), m.group(3)} <= nodes:
                return f"edge to an undeclared node: {line!r}"
            edges += 1
        elif m := LINKSTYLE.fullmatch(line):
            if any(int(k) >= edges for k in m.group(1).split(",")):
                return f"style of a link not drawn: {line!r}"
        elif m := CLASS.fullmatch(line):
            if not set(m.group(1).split(",")) <= nodes:
                return f"class of an undeclared node: {line!r}"
        elif not CLASSDEF.fullmatch(line):
            return f"not in the subset: {line!r}"
    return "" if nodes else "no nodes"


def fenced_blocks(markdown):
    """(info, content) of each fenced block; fails on an unclosed fence."""
    blocks, fence, info, content = [], None, None, []
    for line in markdown.split("\n"):
        ticks = len(line) - len(line.lstrip("`"))
        if fence is None and ticks >= 3:
            fence, info, content = ticks, line[ticks:], []
        elif fence is not None and ticks >= fence and not line.strip("`"):
            blocks.append((info, "\n".join(content) + "\n"))
            fence = None
        elif fence is not None:
            content.append(line)
    if fence is not None:
        fail("markdown: unclosed fence")
    return blocks


def check_rdjson(name, document, validator, diagnostic_validator):
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    for error in errors[:10]:
        print(f"{name}: {'/'.join(map(str, error.path))}: {error.message}", file=sys.stderr)
    if errors:
        fail(f"{name}: {len(errors)} rdjson schema errors")
    for d in document["diagnostics"]:
        if not diagnostic_validator.is_valid(d):
            fail(f"{name}: a diagnostic is not a valid rdjsonl Diagnostic: {d}")
        if not d.get("message") or d.get("severity") not in ("ERROR", "WARNING", "INFO"):
            fail(f"{name}: diagnostic without message or severity: {d}")
        for s in d.get("suggestions", []):
            # reviewdog's GitHub reporter: line-wise, on the comment's own lines.
            r = s["range"]
            if "column" in r["start"] or "column" in r.get("end", {}):
                fail(f"{name}: a suggestion with columns: {s}")
            if r != d["location"]["range"]:
                fail(f"{name}: suggestion range differs from the comment's: {d}")


SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def check_codequality(name, issues, json_report):
    if not isinstance(issues, list):
        fail(f"{name}: Code Quality report is not a JSON array")
    for i in issues:
        for key, kind in (("description", str), ("check_name", str), ("fingerprint", str),
                          ("severity", str), ("location", dict)):
            if not isinstance(i.get(key), kind):
                fail(f"{name}: issue without {key} ({kind.__name__}): {i}")
        if i["severity"] not in SEVERITIES:
            fail(f"{name}: severity {i['severity']} is not one of GitLab's")
        location = i["location"]
        if not isinstance(location.get("path"), str) or not location["path"]:
            fail(f"{name}: issue without location.path: {i}")
        begin = location.get("lines", {}).get("begin")
        if not isinstance(begin, int) or isinstance(begin, bool) or begin < 1:
            fail(f"{name}: location.lines.begin must be a line number: {i}")
    fingerprints = [i["fingerprint"] for i in issues]
    if len(set(fingerprints)) != len(fingerprints):
        fail(f"{name}: fingerprints are not unique")
    expected = {f["fingerprint"] for f in json_report["faults"]}
    if set(fingerprints) != expected:
        fail(f"{name}: fingerprints {sorted(fingerprints)} differ from the JSON report's "
             f"{sorted(expected)}")


def check_markdown(name, markdown, faults):
    if not markdown.startswith("<!-- fsmove-report -->\n## fsmove: "):
        fail(f"{name}: markdown does not start with the marker and heading")
    heading = markdown.split("\n")[1]
    want = f"## fsmove: {faults} finding{'' if faults == 1 else 's'}" if faults else \
        "## fsmove: no findings"
    if heading != want:
        fail(f"{name}: heading {heading!r}, expected {want!r}")
    blocks = fenced_blocks(markdown)
    mermaid = [content for info, content in blocks if info == "mermaid"]
    if len(mermaid) != faults:
        fail(f"{name}: {len(mermaid)} Mermaid pictures for {faults} findings")
    for content in mermaid:
        if problem := mermaid_problem(content):
            fail(f"{name}: Mermaid: {problem}\n{content}")
        # The missing edge is drawn last, and its style is the thick red one.
        links = [line for line in content.split("\n") if EDGE.fullmatch(line)]
        if not links or not re.search(r" ==>\|missing (require|notify)\| ", links[-1]):
            fail(f"{name}: the missing edge is not the last link in\n{content}")
        if f"  linkStyle {len(links) - 1} stroke:#cc2222,stroke-width:4px" not in content:
            fail(f"{name}: the missing edge is not drawn thick and red in\n{content}")
    if markdown.count("\n### ") != faults:
        fail(f"{name}: expected {faults} finding sections")


def hostile_catalog(path):
    evil = 'x"] --> n9["`pwn` %%{init: {"theme":"dark"}}%% <img src=x>; click n0 alert'
    resources = [
        {"type": "Stage", "title": "main", "exported": False, "parameters": {"name": "main"}},
        {"type": "Class", "title": "main", "exported": False, "parameters": {"name": "main"}},
        {"type": "File", "title": "/etc/" + evil, "exported": False, "file": "/r/init.pp",
         "line": 3, "parameters": {}},
        {"type": "Exec", "title": evil, "exported": False, "file": "/r/init.pp", "line": 9,
         "parameters": {"subscribe": "Package[p]"}},
        {"type": "Package", "title": "p", "exported": False, "parameters": {}},
    ]
    edges = [{"source": "Stage[main]", "target": "Class[main]"}] + [
        {"source": "Class[main]", "target": f"{r['type']}[{r['title']}]"} for r in resources[2:]]
    path.write_text(json.dumps({"catalog_format": 2, "name": "hostile", "resources": resources,
                                "edges": edges}))
    return f"File[/etc/{evil}]", f"Exec[{evil}]"


def check_patched_documents(fsmove_tests, src, validator, diagnostic_validator):
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        proc = subprocess.run([fsmove_tests, "--gtest_filter=ReviewDocumentsTest.*"],
                              capture_output=True, text=True, timeout=300, cwd=src,
                              env={**os.environ, "FSMOVE_REVIEW_DOCUMENTS_DIR": str(tmp)})
        if proc.returncode != 0:
            fail(f"ReviewDocumentsTest failed:\n{proc.stdout[-3000:]}")
        sarif = json.loads((tmp / "sarif-with-fixes.sarif").read_text())
        rdjson = json.loads((tmp / "rdjson-with-suggestions.json").read_text())
        markdown = (tmp / "markdown-with-diff.md").read_text()
    sarif_schema = json.loads((src / "tests/data/sarif-schema-2.1.0.json").read_text())
    sarif_validator = jsonschema.Draft4Validator(
        sarif_schema, format_checker=jsonschema.Draft4Validator.FORMAT_CHECKER)
    errors = list(sarif_validator.iter_errors(sarif))
    for error in errors[:10]:
        print(f"patched SARIF: {'/'.join(map(str, error.path))}: {error.message}", file=sys.stderr)
    if errors:
        fail(f"patched SARIF: {len(errors)} schema errors")
    fixes = sarif["runs"][0]["results"][0].get("fixes", [])
    replacements = [r for f in fixes for c in f["artifactChanges"] for r in c["replacements"]]
    if not replacements or "insertedContent" not in replacements[0]:
        fail(f"patched SARIF: no replacement in fixes: {fixes}")
    # The schema's own checks of a fix: a broken one is rejected.
    broken = json.loads(json.dumps(sarif))
    broken["runs"][0]["results"][0]["fixes"][0]["artifactChanges"][0]["replacements"][0][
        "deletedRegion"]["startColumn"] = 0
    if sarif_validator.is_valid(broken):
        fail("patched SARIF: the validator accepted a region at column 0")
    check_rdjson("patched rdjson", rdjson, validator, diagnostic_validator)
    if not rdjson["diagnostics"][0].get("suggestions"):
        fail("patched rdjson: no suggestion")
    if [info for info, _ in fenced_blocks(markdown)] != ["mermaid", "diff"]:
        fail("patched markdown: expected a Mermaid block and a diff block")
    print("ok: a patched finding's SARIF fixes, rdjson suggestion and markdown diff")


def main():
    fsmove, src = sys.argv[1], Path(sys.argv[2])
    schemas = src / "tests/data"
    schema = json.loads((schemas / "reviewdog-rdjson-diagnostic-result.json").read_text())
    diagnostic_schema = json.loads((schemas / "reviewdog-rdjsonl-diagnostic.json").read_text())
    validator_class = jsonschema.validators.validator_for(schema)
    if validator_class is not jsonschema.Draft4Validator:
        fail(f"expected reviewdog's draft-04 schema, got {validator_class.__name__}")
    validator_class.check_schema(schema)
    validator = validator_class(schema)
    diagnostic_validator = jsonschema.Draft4Validator(diagnostic_schema)

    traces = src / "traces"
    cases = [
        # (name, trace, extra options, expected exit status, findings)
        ("mor-in-root", "faults-configure-use-bad",
         ["--source-root", recorded_root(traces / "faults-configure-use-bad/catalog.json")], 1, 1),
        ("mn", "faults-config-service-bad", [], 1, 1),
        ("package-notify", "faults-package-service-bad", ["--package-notify"], 1, None),
        ("awkward-titles", "analyzer-files", [], 0, 0),
    ]
    documents = {}
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for name, trace, options, status, faults in cases:
            base = ["analyze", "--trace", str(traces / trace / "trace.zst"),
                    "--catalog", str(traces / trace / "catalog.json"), *options]
            out = {f: tmp / f"{name}.{f}" for f in ("rdjson", "codequality", "markdown", "json")}
            run(fsmove, [*base, "--format", "json", "-o", str(out["json"]),
                         "--rdjson-output", str(out["rdjson"]),
                         "--codequality-output", str(out["codequality"]),
                         "--markdown-output", str(out["markdown"])], status)
            json_report = json.loads(out["json"].read_text())
            faults = len(json_report["faults"]) if faults is None else faults
            rdjson = json.loads(out["rdjson"].read_text())
            check_rdjson(name, rdjson, validator, diagnostic_validator)
            if len(rdjson["diagnostics"]) != faults:
                fail(f"{name}: {len(rdjson['diagnostics'])} diagnostics for {faults} findings")
            check_codequality(name, json.loads(out["codequality"].read_text()), json_report)
            markdown = out["markdown"].read_text()
            check_markdown(name, markdown, faults)
            # --format X on standard output is the same document as --X-output.
            for fmt in ("rdjson", "codequality", "markdown"):
                if run(fsmove, [*base, "--format", fmt], status) != out[fmt].read_text():
                    fail(f"{name}: --format {fmt} differs from --{fmt}-output")
            documents[name] = (rdjson, json.loads(out["codequality"].read_text()), markdown)
            print(f"ok: {name}: rdjson valid, Code Quality well-formed, markdown with "
                  f"{faults} Mermaid picture(s)")

        # Paths relative to the source root for GitLab and reviewdog.
        rdjson, codequality, _ = documents["mor-in-root"]
        if codequality[0]["location"]["path"] != "fixtures/faults/configure-use/bad.pp":
            fail(f"Code Quality path not relative to the root: {codequality[0]['location']}")
        if rdjson["diagnostics"][0]["location"]["path"] != "fixtures/faults/configure-use/bad.pp":
            fail("rdjson path not relative to the root")

        # fsmove graph --around on hostile titles: well-formed, inert Mermaid; DOT too.
        catalog = tmp / "hostile.json"
        file_ref, exec_ref = hostile_catalog(catalog)
        mermaid = run(fsmove, ["graph", "--catalog", str(catalog), "--around", file_ref,
                               "--and", exec_ref, "--format", "mermaid"], 0)
        if problem := mermaid_problem(mermaid):
            fail(f"graph --around mermaid: {problem}\n{mermaid}")
        if "<img" in mermaid or "%%" in mermaid:
            fail("graph --around mermaid: hostile text got through")
        dot = run(fsmove, ["graph", "--catalog", str(catalog), "--around", exec_ref], 0)
        if not dot.startswith("digraph neighbourhood {") or "Package[p]" not in dot:
            fail(f"graph --around dot:\n{dot}")
        run(fsmove, ["graph", "--catalog", str(catalog), "--format", "mermaid"], 2)
        run(fsmove, ["graph", "--catalog", str(catalog), "--around", "File[/nowhere]"], 2)
        print("ok: fsmove graph --around (mermaid and dot, hostile titles)")

    if len(sys.argv) > 3:
        check_patched_documents(sys.argv[3], src, validator, diagnostic_validator)

    # The rendered example in the documentation stays a comment fsmove would write.
    check_markdown("docs/example-comment.md", (src / "docs/example-comment.md").read_text(), 2)
    print("ok: docs/example-comment.md")

    # The validator is not a rubber stamp: broken variants of a real document fail.
    good = documents["mor-in-root"][0]
    broken = [
        ("severity", lambda d: d.__setitem__("severity", "FATAL")),
        ("diagnostics", lambda d: d.__setitem__("diagnostics", {})),
        ("line", lambda d: d["diagnostics"][0]["location"]["range"]["start"].__setitem__(
            "line", "15")),
        ("message", lambda d: d["diagnostics"][0].__setitem__("message", 3)),
        ("code", lambda d: d["diagnostics"][0]["code"].__setitem__("value", ["x"])),
    ]
    for name, mutate in broken:
        doc = json.loads(json.dumps(good))
        mutate(doc)
        if validator.is_valid(doc):
            fail(f"the rdjson validator accepted a broken document ({name})")
    print(f"ok: {len(broken)} broken rdjson variants rejected")


if __name__ == "__main__":
    main()
