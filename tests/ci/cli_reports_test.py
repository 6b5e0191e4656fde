#!/usr/bin/env python3
"""The report options end to end, through the fsmove binary on recorded runs: exit codes,
several reports from one run, the baseline workflow, .fsmove.json (and its errors), the
suppressed counts in text, JSON and SARIF, and the "did you mean" of a mistyped command or
option.

Usage: cli_reports_test.py FSMOVE SOURCE_DIR
"""
import json
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

from ci_support import commented_code


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def main():
    fsmove, source_dir = sys.argv[1], Path(sys.argv[2])
    traces = source_dir / "traces"

    def analyze(trace, *extra, status):
        args = [fsmove, "analyze", "--trace", str(traces / trace / "trace.zst"),
                "--catalog", str(traces / trace / "catalog.json"), *map(str, extra)]
        proc = subprocess.run(args, capture_output=True, text=True, timeout=300)
        if proc.returncode != status:
            fail(f"{' '.join(args)}: exit {proc.returncode}, expected {status}\n"
                 f"stdout:\n{proc.stdout}\nstderr:\n{proc.stderr}")
        return proc

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)

        # Exit codes: findings 1, none 0.
        analyze("faults-configure-use-fixed", "--format", "sarif", status=0)
        # All four reports from one run.
        proc = analyze("faults-generate-use-bad", "--json-output", tmp / "r.json",
                       "--sarif-output", tmp / "r.sarif", "--junit-output", tmp / "r.xml",
                       status=1)
        report = json.loads((tmp / "r.json").read_text())
        sarif = json.loads((tmp / "r.sarif").read_text())
        junit = ET.parse(tmp / "r.xml").getroot()
        if "2 missing ordering relationships, 0 missing notifiers" not in proc.stdout:
            fail(f"text report summary:\n{proc.stdout}")
        if report["summary"] != {"MOR": 2, "MN": 0, "suppressed": 0, "incomplete": False}:
            fail(f"JSON summary {report['summary']}")
        fingerprints = [f["fingerprint"] for f in report["faults"]]
        sarif_fps = [r["partialFingerprints"]["fsmoveFinding/v1"]
                     for r in sarif["runs"][0]["results"]]
        if sorted(fingerprints) != sorted(sarif_fps) or len(set(fingerprints)) != 2:
            fail(f"JSON fingerprints {fingerprints} vs SARIF {sarif_fps}")
        if junit.find("testsuite").get("failures") != "2":
            fail("JUnit: expected two failing resources")
        print("ok: one run, four reports, same findings")

        # Baseline workflow: write, then only new findings fail.
        baseline = tmp / "baseline.json"
        proc = analyze("faults-generate-use-bad", "--write-baseline", baseline, status=1)
        if f"wrote 2 findings to baseline {baseline}" not in proc.stderr:
            fail(f"--write-baseline message: {proc.stderr}")
        doc = json.loads(baseline.read_text())
        if doc["fsmove_baseline"] != 1 or sorted(f["fingerprint"] for f in doc["findings"]) \
                != sorted(fingerprints):
            fail(f"baseline content {doc}")
        for entry in doc["findings"]:
            if not (entry["kind"] == "MOR" and entry["source"]["resource"] == "Exec[generate]"
                    and entry["target"]["resource"] and entry["paths"]):
                fail(f"baseline entry lacks context: {entry}")
        proc = analyze("faults-generate-use-bad", "--baseline", baseline, "--json-output",
                       tmp / "b.json", "--sarif-output", tmp / "b.sarif", status=0)
        if "0 missing ordering relationships, 0 missing notifiers, 2 suppressed" not in proc.stdout:
            fail(f"text with baseline:\n{proc.stdout}")
        if f"2 suppressed findings (2 in baseline {baseline}):" not in proc.stdout:
            fail(f"text suppressed list:\n{proc.stdout}")
        b = json.loads((tmp / "b.json").read_text())
        if b["faults"] or len(b["suppressed"]) != 2 or b["summary"]["suppressed"] != 2 \
                or b["baseline"]["suppressed"] != 2 or b["baseline"]["absent"]:
            fail(f"JSON with baseline: {b['summary']} {b.get('baseline')}")
        bs = json.loads((tmp / "b.sarif").read_text())["runs"][0]
        if bs["results"] or bs["properties"]["summary"]["suppressed"] != 2:
            fail("SARIF with baseline: suppressed results must be counted, not listed")

        # A baseline from another run: its finding is absent, this run's findings are new.
        other = tmp / "other.json"
        analyze("faults-configure-use-bad", "--write-baseline", other, status=1)
        proc = analyze("faults-generate-use-bad", "--baseline", other, "--sarif-output",
                       tmp / "o.sarif", status=1)
        if "1 baseline finding no longer found" not in proc.stdout:
            fail(f"absent baseline entry not reported:\n{proc.stdout}")
        states = {r["baselineState"] for r in
                  json.loads((tmp / "o.sarif").read_text())["runs"][0]["results"]}
        if states != {"new"}:
            fail(f"baselineState {states}")
        print("ok: baseline written, applied, absent entries reported")

        # .fsmove.json: pairs suppress with their reason; mistakes exit 2 naming the pointer.
        config = tmp / "config.json"
        config.write_text(json.dumps({"ignore_pairs": [
            {"source": "Exec[use generated]", "target": "Exec[generate]",
             "reason": "use generated tolerates a stale release file"}]}))
        proc = analyze("faults-generate-use-bad", "--config", config, "--format", "json",
                       status=1)
        j = json.loads(proc.stdout)
        if len(j["faults"]) != 1 or j["suppressed"][0]["suppression"] != {
                "kind": "ignore_pair",
                "justification": "use generated tolerates a stale release file"}:
            fail(f"ignore_pairs: {j['faults']} {j['suppressed']}")
        config.write_text(json.dumps({"ignore_pairs": [
            {"source": "Exec[generate]", "target": "Exec[use generated]", "reason": ""}]}))
        proc = analyze("faults-generate-use-bad", "--config", config, status=2)
        if f"{config}: /ignore_pairs/0/reason: must not be empty" not in proc.stderr:
            fail(f"bad config message: {proc.stderr}")
        config.write_text('{"package_notify": true,}')
        proc = analyze("faults-package-service-bad", "--config", config, status=2)
        if f"{config}:1:25: not valid JSON" not in proc.stderr:
            fail(f"syntax error message: {proc.stderr}")
        # Command-line options add to the file's: --package-notify is on either way.
        config.write_text('{"package_notify": true}')
        analyze("faults-package-service-bad", "--config", config, status=1)
        config.write_text('{"package_notify": false}')
        analyze("faults-package-service-bad", "--config", config, status=0)
        analyze("faults-package-service-bad", "--config", config, "--package-notify", status=1)
        config.write_text(json.dumps({"ignore_paths": ["/etc/app/**"]}))
        analyze("faults-configure-use-bad", "--config", config, status=0)
        analyze("faults-configure-use-bad", "--config", tmp / "missing.json", status=2)
        analyze("faults-configure-use-bad", "--baseline", config, status=2)
        print("ok: .fsmove.json applied and validated")

        # Puppet's own graph (--puppet-graph): the same findings on a recorded run whose
        # graph Puppet wrote, the report names the graph; bad graphs fail with file:line.
        dot = source_dir / "tests" / "data" / "puppet-graphs" / "faults-autorequire-bad.expanded.dot"
        plain = json.loads(analyze("faults-autorequire-bad", "--format", "json", status=1).stdout)
        proc = analyze("faults-autorequire-bad", "--format", "json", "--puppet-graph", dot, status=1)
        graphed = json.loads(proc.stdout)
        if graphed["graph"]["model"] != "puppet" or graphed["graph"]["puppet_graph"] != str(dot):
            fail(f"JSON graph {graphed['graph']}")
        if plain["graph"]["model"] == "puppet":
            fail(f"JSON graph without --puppet-graph {plain['graph']}")
        if [f["fingerprint"] for f in graphed["faults"]] != [f["fingerprint"] for f in plain["faults"]]:
            fail("findings differ with Puppet's graph")
        proc = analyze("faults-autorequire-bad", "--puppet-graph", dot, status=1)
        if f"Graph: Puppet's own ({dot})" not in proc.stdout:
            fail(f"text report does not name the graph:\n{proc.stdout}")
        bad = tmp / "bad.dot"
        bad.write_text('digraph Relationships {\n  "File[/srv/app]" -> \n}\n')
        proc = analyze("faults-autorequire-bad", "--puppet-graph", bad, status=2)
        if f"{bad}:3: expected a node name after '->'" not in proc.stderr:
            fail(f"bad graph error:\n{proc.stderr}")
        ghost = tmp / "ghost.dot"
        ghost.write_text(dot.read_text().replace('"Exec[write into app dir]" [',
                                                 '"Exec[ghost]" -> "Exec[write into app dir]"\n'
                                                 '"Exec[write into app dir]" [', 1))
        proc = analyze("faults-autorequire-bad", "--puppet-graph", ghost, status=1)
        if "Exec[ghost] is not in the catalog" not in proc.stderr:
            fail(f"no warning for an unknown vertex:\n{proc.stderr}")
        analyze("faults-autorequire-bad", "--puppet-graph", tmp / "missing.dot", status=2)
        print("ok: --puppet-graph used, named in the reports, bad graphs rejected")

        # A run in which a resource failed saw only part of the apply: exit 3 with its findings
        # (the report says both), in every format; --allow-failed judges the findings alone.
        reversed_run = "faults-configure-use-bad-reversed"
        proc = analyze(reversed_run, "--json-output", tmp / "i.json", "--sarif-output",
                       tmp / "i.sarif", status=3)
        if ("Incomplete check: Puppet did not apply the whole catalog: 1 resource failed"
                not in proc.stdout or "Exec[use config]" not in proc.stdout
                or "evidence lost: its block stops where it failed" not in proc.stdout
                or "1 missing ordering relationship" not in proc.stdout):
            fail(f"text report of an incomplete check:\n{proc.stdout}")
        report = json.loads((tmp / "i.json").read_text())
        gaps = report["completeness"]
        if (report["summary"]["incomplete"] is not True or gaps["complete"]
                or [g["resource"] for g in gaps["failed"]] != ["Exec[use config]"]
                or "returned 1" not in gaps["failed"][0]["message"] or len(report["faults"]) != 1):
            fail(f"JSON completeness {gaps}")
        run = json.loads((tmp / "i.sarif").read_text())["runs"][0]
        levels = [n["level"] for n in run["invocations"][0]["toolExecutionNotifications"]
                  if n["message"]["text"].startswith("Incomplete check")]
        if levels != ["error"] or run["properties"]["summary"]["incomplete"] is not True:
            fail(f"SARIF: incomplete notification levels {levels}")
        analyze(reversed_run, "--allow-failed", status=1)
        print("ok: an incomplete check exits 3 and says what it did not see")

        # A mistyped command or option: exit 2 and the nearest name, none for a far word.
        for args, expected in [(["chek", "x"], "'chek' is not an fsmove command. Did you mean "
                                 "'check'?"),
                               (["analyse"], "Did you mean 'analyze'?"),
                               (["install"], "'install' is not an fsmove command.\n"),
                               (["check", "--formt", "json", "x"], "Did you mean '--format'?"),
                               (["check", "--confrim", "x"], "Did you mean '--confirm'?")]:
            proc = subprocess.run([fsmove, *args], capture_output=True, text=True, timeout=60)
            if proc.returncode != 2 or expected not in proc.stderr:
                fail(f"fsmove {' '.join(args)}: exit {proc.returncode}, stderr:\n{proc.stderr}")
        print("ok: a mistyped command or option gets the nearest one")

        # A `# fsmove:ignore:RULE reason` comment in the code (--source-root: the manifest
        # recorded in another checkout is found by its name there) suppresses its rule's
        # finding at that declaration: exit 0, JSON and SARIF say where and why; a comment
        # for another rule suppresses nothing and is named.
        for rule, status in [("missing-ordering", 0), ("missing-notifier", 1)]:
            code = commented_code(source_dir, tmp, rule)
            proc = analyze("faults-configure-use-bad", "--source-root", code, "--show-suppressed",
                           "--format", "json", "--sarif-output", tmp / "s.sarif", status=status)
            j = json.loads(proc.stdout)
            sarif_results = json.loads((tmp / "s.sarif").read_text())["runs"][0]["results"]
            if status == 1:
                if len(j["faults"]) != 1 or j["suppressed"] or "bad.pp:15: `# fsmove:ignore:" \
                        "missing-notifier` suppresses no finding of this run" not in proc.stderr:
                    fail(f"a comment for another rule: {j['faults']}\n{proc.stderr}")
                continue
            sup = j["suppressed"][0]["suppression"] if len(j["suppressed"]) == 1 else None
            if j["faults"] or sup is None or sup["kind"] != "in_source" or \
                    sup["justification"] != "reads it if it is there" or sup["line"] != 15:
                fail(f"in-source suppression in JSON: {j['faults']} {j['suppressed']}")
            sarif_sup = sarif_results[0]["suppressions"] if len(sarif_results) == 1 else None
            if sarif_sup is None or sarif_sup[0]["kind"] != "inSource" or \
                    sarif_sup[0]["location"]["physicalLocation"]["region"]["startLine"] != 15:
                fail(f"in-source suppression in SARIF: {sarif_results}")
        print("ok: a comment in the code suppresses its rule's finding, and names itself if none")


if __name__ == "__main__":
    main()
