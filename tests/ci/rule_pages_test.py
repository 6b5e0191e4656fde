#!/usr/bin/env python3
"""A page per rule (docs/rules/ID.md): every rule of the SARIF driver has its page, with its
sections (what it means, an example, the fix, suppressing it, its limits), and every report
links it: SARIF's helpUri, rdjson's code.url and the markdown comment's headings, under the
FSMOVE_RULES_URI the environment names (a slash added). Each page's Puppet examples parse
(`puppet parser validate`, when Puppet is here), and the method is cited by its free preprint.

Usage: rule_pages_test.py FSMOVE SOURCE_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from ci_support import fail

SECTIONS = ["## What it means", "## Example", "## How to fix it", "## Suppressing it",
            "## Limits"]
BASE = "https://example.org/fsmove/docs/rules"


def report(fsmove, traces, trace, fmt):
    env = dict(os.environ, FSMOVE_RULES_URI=BASE)
    proc = subprocess.run([fsmove, "analyze", "--trace", str(traces / trace / "trace.zst"),
                           "--catalog", str(traces / trace / "catalog.json"), "--format", fmt],
                          capture_output=True, text=True, timeout=300, env=env)
    if proc.returncode != 1:
        fail(f"analyze {trace} --format {fmt}: exit {proc.returncode}\n{proc.stderr}")
    return proc.stdout


def main():
    fsmove, source = sys.argv[1], Path(sys.argv[2])
    traces, pages = source / "traces", source / "docs" / "rules"

    sarif = json.loads(report(fsmove, traces, "faults-config-service-bad", "sarif"))
    rules = sarif["runs"][0]["tool"]["driver"]["rules"]
    if {r["id"] for r in rules} != {"missing-ordering", "missing-notifier", "not-idempotent"}:
        fail(f"SARIF rules: {[r['id'] for r in rules]}")
    if "arxiv.org/abs/1905.11070" not in sarif["runs"][0]["tool"]["driver"]["informationUri"]:
        fail("informationUri is not the paper's free preprint")
    for r in rules:
        if r["helpUri"] != f"{BASE}/{r['id']}.md":
            fail(f"{r['id']}: helpUri {r['helpUri']}")
        page = pages / f"{r['id']}.md"
        if not page.is_file():
            fail(f"{r['id']}: no page {page}")
        text = page.read_text()
        missing = [s for s in SECTIONS if f"\n{s}\n" not in text]
        if missing:
            fail(f"{page}: no section {missing}")
        if not text.startswith(f"# `{r['id']}`"):
            fail(f"{page}: the title does not name the rule id")
    index = (pages / "README.md").read_text()
    for r in rules:
        if f"]({r['id']}.md)" not in index:
            fail(f"docs/rules/README.md does not link {r['id']}")
    if "https://arxiv.org/abs/1905.11070" not in index:
        fail("docs/rules/README.md does not cite the free preprint")
    for page in sorted(pages.glob("*.md")):
        if "doi.org/10.1145" in page.read_text():
            fail(f"{page}: a paywalled link")
    print(f"ok: {len(rules)} rules, each with its page and helpUri")

    rdjson = json.loads(report(fsmove, traces, "faults-config-service-bad", "rdjson"))
    urls = {d["code"]["value"]: d["code"]["url"] for d in rdjson["diagnostics"]}
    if not urls or any(url != f"{BASE}/{rule}.md" for rule, url in urls.items()):
        fail(f"rdjson code.url: {urls}")
    markdown = report(fsmove, traces, "faults-configure-use-bad", "markdown")
    if f"### 1. Missing ordering relationship ([MOR]({BASE}/missing-ordering.md))" not in markdown:
        fail(f"markdown heading without its rule's page:\n{markdown}")
    print("ok: rdjson and markdown link the rules' pages")

    puppet = shutil.which("puppet")
    if puppet is None:
        print("skip: no puppet here to parse the pages' examples")
        return
    blocks = 0
    with tempfile.TemporaryDirectory() as tmp:
        for page in sorted(pages.glob("*.md")):
            for k, code in enumerate(re.findall(r"^ *```puppet\n(.*?)^ *```", page.read_text(),
                                                re.M | re.S)):
                pp = Path(tmp) / f"{page.stem}-{k}.pp"
                pp.write_text(code)
                proc = subprocess.run([puppet, "parser", "validate", str(pp)],
                                      capture_output=True, text=True, timeout=120)
                if proc.returncode != 0:
                    fail(f"{page} example {k + 1} does not parse:\n{code}\n{proc.stderr}")
                blocks += 1
    if blocks < 6:
        fail(f"only {blocks} Puppet examples in the pages")
    print(f"ok: the pages' {blocks} Puppet examples parse")


if __name__ == "__main__":
    main()
