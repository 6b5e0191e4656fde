#!/usr/bin/env python3
"""End-to-end tests of `fsmove scan` and `fsmove merge`: real checks of the tiny modules in
fixtures/scan/ (one ok, one with a MOR, one that does not compile, one that hangs).

  scan_e2e.py --fsmove BIN --source DIR CASE
  scan      one scan with -j 2 records each module's status and goes on; a rerun skips all;
            after deleting one status.json and corrupting another module's report only those
            two are redone; a progress line on a terminal only; --shard 1/2 and 2/2 merged
            equal the full scan; bad --shard and an empty scan are usage errors.
  runs      a module's include, example and acceptance-spec runs, each with its source; a
            compile's error is its own, a failing custom fact a warning; the fault both the
            example and the spec find is shown once in report.html, naming both runs.
  statuses  a module whose resource fails is resources-failed (exit 1, not ok) and one whose
            directory is not there is missing; a rerun skips the first and retries the second.
  links     modules that link out of the modules directory to a private file (an example,
            .fsmove.json, metadata.json): each link refused by name, the file's text nowhere.
Exit 77 (CTest's skip code) when not root: the sandbox needs namespaces and overlayfs.
"""
import json
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
import time

import e2e_lib
from e2e_lib import ARGS, check, fail, main, running


def fsmove(*args, **kw):
    return e2e_lib.fsmove(*args, show_stdout=True, **kw)

MODULES = ["scan_broken", "scan_hang", "scan_mor", "scan_ok"]
EXPECTED = {"scan_ok": "ok", "scan_mor": "findings", "scan_broken": "compile-failed", "scan_hang": "timeout"}


def summary(out_dir):
    with open(os.path.join(out_dir, "summary.json"), encoding="utf-8") as fh:
        return json.load(fh)["modules"]


def outcome(out_dir):
    """The summary without timings and sizes: what must agree between runs."""
    return [(m["module"], m["status"], m["mor"], m["mn"], m["error"]) for m in summary(out_dir)]


def folder(out_dir, module):
    for d in os.listdir(out_dir):
        st = os.path.join(out_dir, d, "status.json")
        if os.path.exists(st):
            with open(st, encoding="utf-8") as fh:
                if json.load(fh)["module"] == module:
                    return os.path.join(out_dir, d)
    fail(f"no folder for {module} in {out_dir}")


def browser_check(out_dir, runs, label):
    """report.html's rendered DOM (rendered_dom) shows every run, scan_mor's MOR and the
    compile error."""
    dom = rendered_dom(out_dir, label)
    rows = dom.count('<tr class="run"')
    check(rows == runs, f"report.html ({label}) shows {rows} runs, expected {runs}")
    check(f"{runs} of {runs} runs shown" in dom, f"report.html ({label}): no run count")
    check('data-kind="MOR"' in dom and "fixtures/scan/scan_mor" in dom,
          f"report.html ({label}) does not show scan_mor's MOR")
    check('data-status="compile-failed"' in dom and "Syntax error" in dom,
          f"report.html ({label}) does not show the compile error")
    print(f"  report.html ({label}): {rows} runs in Chromium's DOM", file=sys.stderr)


def rendered_dom(out_dir, label):
    """Opens OUT/report.html in headless Chromium (Debian's chromium, installed by
    tools/bootstrap), returns the DOM its script rendered, and keeps a screenshot as a test
    artifact (build/tests/artifacts/scan-report-LABEL.png)."""
    chromium = shutil.which("chromium")
    check(chromium is not None, "chromium is not installed (tools/bootstrap installs it)")
    page = "file://" + os.path.abspath(os.path.join(out_dir, "report.html"))
    with tempfile.TemporaryDirectory() as profile:
        # --no-sandbox: Chromium's own sandbox refuses to run as root.
        base = [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                f"--user-data-dir={profile}", "--virtual-time-budget=5000"]
        p = subprocess.run(base + ["--dump-dom", page], capture_output=True, text=True, timeout=180)
        check(p.returncode == 0, f"chromium --dump-dom exited {p.returncode}: {p.stderr[-2000:]}")
        dom = p.stdout
        artifacts = os.path.join(os.getcwd(), "artifacts")
        os.makedirs(artifacts, exist_ok=True)
        shot = os.path.join(artifacts, f"scan-report-{label}.png")
        p = subprocess.run(base + [f"--screenshot={shot}", "--window-size=1280,1400", page],
                           capture_output=True, text=True, timeout=180)
        check(p.returncode == 0 and os.path.getsize(shot) > 10000,
              f"no screenshot of the report: {p.stderr[-2000:]}")
    print(f"  report.html ({label}): screenshot {shot}", file=sys.stderr)
    return dom


def case_scan():
    with tempfile.TemporaryDirectory() as tmp:
        # Relative paths in a list file, in no particular order, with comments and a duplicate.
        cwd = ARGS.source
        listing = os.path.join(tmp, "modules.txt")
        with open(listing, "w", encoding="utf-8") as fh:
            fh.write("# the scan fixtures\nfixtures/scan/scan_ok\n\nfixtures/scan/scan_hang/\n"
                     "fixtures/scan/scan_mor\n./fixtures/scan/scan_ok\nfixtures/scan/scan_broken\n")
        full = os.path.join(tmp, "full")
        # 60 s: long enough for a real run on a loaded 2-core CI machine (two e2e tests run at
        # once), short enough for the hanging module.
        common = ["--list", listing, "--timeout", "60", "-q"]

        # 1. One scan, two at a time: every module recorded with its status, the scan goes on.
        p = fsmove("scan", "-j", "2", "-o", full, *common, cwd=cwd)
        check(p.returncode == 1, f"exit code {p.returncode}, expected 1 (findings)")
        got = {m["module"].split("/")[-1]: m for m in summary(full)}
        check(sorted(got) == MODULES, f"modules in the summary: {sorted(got)}")
        for name, status in EXPECTED.items():
            check(got[name]["status"] == status, f"{name}: {got[name]['status']}, expected {status}: {got[name]}")
        check(got["scan_mor"]["mor"] == 1 and got["scan_mor"]["mn"] == 0, f"scan_mor counts: {got['scan_mor']}")
        check(got["scan_ok"]["error"] == "" and got["scan_ok"]["trace_bytes"] > 0, f"scan_ok: {got['scan_ok']}")
        check("Syntax error" in got["scan_broken"]["error"], f"compile error: {got['scan_broken']['error']}")
        check("did not finish within 60 s" in got["scan_hang"]["error"], f"timeout error: {got['scan_hang']['error']}")
        # fsmove's own time, not the 60 s it waited for the hanging apply.
        check(got["scan_hang"]["analysis_seconds"] < 30, f"analysis_seconds includes the apply: {got['scan_hang']}")
        check(got["scan_ok"]["module"] == "fixtures/scan/scan_ok", "module not recorded as given")
        with open(os.path.join(full, "summary.csv"), encoding="utf-8") as fh:
            rows = fh.read().splitlines()
        check(rows[0] == "module,status,mor,mn,confirmed,ni,trace_bytes,apply_seconds,analysis_seconds,error"
              and len(rows) == 5, f"summary.csv: {rows}")
        d = folder(full, "fixtures/scan/scan_mor")
        for f in ("report.json", "catalog.json", "puppet.log", "check.log", "status.json"):
            check(os.path.exists(os.path.join(d, f)), f"{f} missing in {d}")
        with open(os.path.join(d, "report.json"), encoding="utf-8") as fh:
            check(json.load(fh)["summary"]["MOR"] == 1, "report.json does not hold the MOR")
        check("could not compile" in open(os.path.join(folder(full, "fixtures/scan/scan_broken"), "check.log")).read(),
              "check.log lacks check's stderr")
        check("findings        fixtures/scan/scan_mor: 1 MOR, 0 MN" in p.stdout, "findings not listed")
        check("2 of 4 modules had a run that compiled and applied" in p.stdout, f"no coverage line: {p.stdout}")
        browser_check(full, 4, "scan")
        # CPU placement: scan_hang starts first (the scan takes modules in name order, two at a
        # time: scan_broken and scan_hang), so a check that ended before it (status.json's time)
        # ran alongside it, and on a CPU of its own. On a loaded machine scan_broken and
        # scan_mor can outlast scan_hang's 60 s; a check started after it ended may take its CPU.
        cpus, ended = {}, {}
        for m in ("scan_hang", "scan_ok", "scan_mor"):
            d = folder(full, "fixtures/scan/" + m)
            with open(os.path.join(d, "report.json"), encoding="utf-8") as fh:
                notes = json.load(fh)["run"]["notes"]
            cpus[m] = [n for n in notes if n.startswith("strace and the traced apply ran on CPU")]
            ended[m] = os.path.getmtime(os.path.join(d, "status.json"))
        if len(os.sched_getaffinity(0)) >= 2:
            check(all(cpus.values()), f"no CPU note: {cpus}")
            alongside = [m for m in ("scan_ok", "scan_mor") if ended[m] < ended["scan_hang"]]
            print(f"  ran alongside scan_hang: {alongside}; CPUs {cpus}", file=sys.stderr)
            check(all(cpus["scan_hang"] != cpus[m] for m in alongside),
                  f"two checks at once traced on one CPU: {cpus}, alongside scan_hang: {alongside}")

        # 2. A rerun skips every module, quickly; on a terminal it shows the progress line.
        stamps = {m: os.path.getmtime(os.path.join(folder(full, "fixtures/scan/" + m), "status.json")) for m in MODULES}
        cmd = [ARGS.fsmove, "scan", "-o", full, "--list", listing, "--timeout", "60"]
        t0 = time.time()
        p = subprocess.run(["script", "-qefc", " ".join(shlex.quote(c) for c in cmd), "/dev/null"],
                           capture_output=True, text=True, timeout=120, cwd=cwd)
        print(f"  rerun on a pty: exit {p.returncode} after {time.time() - t0:.1f} s: {p.stdout!r}", file=sys.stderr)
        check(p.returncode == 1, f"rerun exit code {p.returncode}")
        check(time.time() - t0 < 15, "a rerun with every module done was not fast")
        check("4/4 done" in p.stdout and "1 with findings" in p.stdout, "no progress line on a terminal")
        check("4 skipped" in p.stdout, "rerun did not skip")
        p = fsmove("scan", "-o", full, *common, cwd=cwd)
        check(p.returncode == 1 and "\x1b[K" not in p.stderr and "done," not in p.stderr,
              "progress shown although stderr is not a terminal")
        check(outcome(full)[0][1] == "compile-failed", "summary changed by a rerun")

        # 3. A deleted status.json and a corrupted report: exactly those two are redone.
        os.remove(os.path.join(folder(full, "fixtures/scan/scan_ok"), "status.json"))
        mor_dir = folder(full, "fixtures/scan/scan_mor")
        with open(os.path.join(mor_dir, "report.json"), "r+", encoding="utf-8") as fh:
            fh.truncate(10)
        before = outcome(full)
        p = fsmove("scan", "-j", "2", "-o", full, *common, cwd=cwd)
        check(p.returncode == 1, f"exit code {p.returncode}")
        check("2 skipped" in p.stdout, "not exactly two modules were redone")
        check("redoing fixtures/scan/scan_mor" in p.stderr, "corrupt folder not reported as redone")
        for m in ("scan_broken", "scan_hang"):
            after = os.path.getmtime(os.path.join(folder(full, "fixtures/scan/" + m), "status.json"))
            check(after == stamps[m], f"{m} was redone")
        for m in ("scan_ok", "scan_mor"):
            after = os.path.getmtime(os.path.join(folder(full, "fixtures/scan/" + m), "status.json"))
            check(after > stamps[m], f"{m} was not redone")
        check(outcome(full) == before, f"results differ after redoing: {outcome(full)} vs {before}")

        # 4. Shards: each shard's folder starts as a copy of the full scan without scan_ok's
        # module folder, so the shard holding scan_ok runs it and the other only resumes;
        # merged, they equal the full scan.
        shards = []
        ok_dir = os.path.basename(folder(full, "fixtures/scan/scan_ok"))
        for i in (1, 2):
            sd = os.path.join(tmp, f"shard{i}")
            shutil.copytree(full, sd)
            shutil.rmtree(os.path.join(sd, ok_dir))
            os.remove(os.path.join(sd, "summary.json"))
            # Given in another order: the slice must not change.
            args = ["--list", listing] if i == 1 else [f"fixtures/scan/{m}" for m in reversed(MODULES)]
            p = fsmove("scan", "--shard", f"{i}/2", "-o", sd, "--timeout", "60", "-q", *args, cwd=cwd)
            check(p.returncode in (0, 1), f"shard {i} exit code {p.returncode}")
            check(len(summary(sd)) == 2, f"shard {i} holds {len(summary(sd))} modules, expected 2")
            shards.append(sd)
        mods = [m for sd in shards for (m, *_ ) in outcome(sd)]
        check(sorted(mods) == sorted(m for (m, *_) in outcome(full)), f"shards do not partition: {mods}")
        merged = os.path.join(tmp, "merged")
        p = fsmove("merge", *shards, "-o", merged)
        check(p.returncode == 1, f"merge exit code {p.returncode}")
        check(outcome(merged) == outcome(full), f"merged {outcome(merged)} != full {outcome(full)}")
        browser_check(merged, 4, "merge")
        check(os.path.exists(os.path.join(folder(merged, "fixtures/scan/scan_mor"), "report.json")),
              "merged folder lacks the module folders")
        # The merged folder is a whole scan: resuming into it skips everything.
        p = fsmove("scan", "-o", merged, *common, cwd=cwd)
        check(p.returncode == 1 and "4 skipped" in p.stdout, "the merged folder does not resume")
        # Merging a shard twice is reported.
        p = fsmove("merge", shards[0], shards[0], shards[1], "-o", os.path.join(tmp, "dup"))
        check(p.returncode == 2 and "duplicate" in p.stderr and "shard 1/2 was given 2 times" in p.stderr,
              "a repeated shard was not reported")
        p = fsmove("merge", shards[0], "-o", os.path.join(tmp, "half"))
        check(p.returncode == 2 and "shard 2/2 is missing" in p.stderr, "a missing shard was not reported")

        # 5. Usage errors.
        for bad in ("0/2", "3/2", "x"):
            p = fsmove("scan", "--shard", bad, "-o", os.path.join(tmp, "bad"), "fixtures/scan/scan_ok", cwd=cwd)
            check(p.returncode == 2 and "--shard" in p.stderr, f"--shard {bad} accepted")
        p = fsmove("scan", "-o", os.path.join(tmp, "bad"), "--modules-dir", tmp)
        check(p.returncode == 2 and "no modules to scan" in p.stderr, "an empty scan was not a usage error")


def case_statuses():
    with tempfile.TemporaryDirectory() as tmp:
        cwd = ARGS.source
        out = os.path.join(tmp, "out")
        gone = os.path.join(tmp, "later", "scan_ok")  # the module's name: it is copied there later
        args = ["scan", "-o", out, "--timeout", "120", "-q", "fixtures/scan/scan_fails", gone]
        p = fsmove(*args, cwd=cwd)
        check(p.returncode == 1, f"exit code {p.returncode}, expected 1 (not every module ok)")
        got = {m["module"].split("/")[-1]: m for m in summary(out)}
        check(got["scan_fails"]["status"] == "resources-failed", f"scan_fails: {got['scan_fails']}")
        check("Exec[fails]" in got["scan_fails"]["error"], f"failed resource not named: {got['scan_fails']}")
        check(got["scan_ok"]["status"] == "missing", f"missing module: {got['scan_ok']}")
        check("resources-failed fixtures/scan/scan_fails: 0 MOR, 0 MN; 1 resource failed: Exec[fails]" in p.stdout,
              "resources-failed not listed with its counts and cause")
        check("1 resources-failed" in p.stdout and "1 missing" in p.stdout, "counts per status")
        # A rerun skips the finished module and retries the missing one, which is there now.
        shutil.copytree(os.path.join(cwd, "fixtures/scan/scan_ok"), gone)
        p = fsmove(*args, cwd=cwd)
        check("1 skipped" in p.stdout and "retrying " + gone in p.stderr, "missing module not retried")
        got = {m["module"].split("/")[-1]: m for m in summary(out)}
        check(got["scan_ok"]["status"] == "ok", f"retried module: {got['scan_ok']}")
        check(got["scan_fails"]["status"] == "resources-failed", "the finished module changed")


def case_runs():
    """A module is run as its users use it: its include (which needs a parameter here, so it
    does not compile, for the parameter's reason and not the custom fact that fails in every
    run), its example and its acceptance spec's literal manifest, each with its source."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        p = fsmove("scan", "-j", "2", "-o", out, "--timeout", "120", "-q", "fixtures/scan/scan_uses",
                   cwd=ARGS.source)
        check(p.returncode == 1, f"exit code {p.returncode}, expected 1 (a run did not compile)")
        runs = {m["source"]: m for m in summary(out)}
        check(sorted(runs) == ["acceptance", "example", "include"], f"runs: {summary(out)}")
        inc = runs["include"]
        check(inc["status"] == "compile-failed" and "message" in inc["error"]
              and "fact" not in inc["error"], f"include run: {inc}")
        check(any("scan_uses_broken" in w for w in inc["warnings"]), f"the failing fact is no warning: {inc}")
        for source in ("example", "acceptance"):
            r = runs[source]
            check(r["status"] == "findings" and r["mor"] == 1 and r["module_dir"] == "fixtures/scan/scan_uses",
                  f"{source} run: {r}")
        check(runs["example"]["module"] == "fixtures/scan/scan_uses/examples/init.pp", f"{runs['example']}")
        check(runs["acceptance"]["module"].startswith("fixtures/scan/scan_uses/spec/acceptance/scan_uses_spec.rb:"),
              f"{runs['acceptance']}")
        with open(os.path.join(folder(out, runs["acceptance"]["module"]), "manifest.pp"), encoding="utf-8") as fh:
            check("from the acceptance spec" in fh.read(), "the spec's manifest was not what ran")
        with open(os.path.join(folder(out, runs["example"]["module"]), "catalog.json"), encoding="utf-8") as fh:
            check("from the example" in fh.read(), "the example's parameter is not in its catalog")
        check("1 of 1 module had a run that compiled and applied" in p.stdout, f"coverage: {p.stdout}")
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as fh:
            cov = json.load(fh)["coverage"]
        check(cov == {"runs": 3, "modules": 1, "modules_applied": 1}, f"coverage in summary.json: {cov}")
        # The MOR both runs found is shown once, under the first run, naming both.
        dom = rendered_dom(out, "runs")
        shown = dom.count('data-kind="MOR"')
        check(shown == 1, f"report.html shows the shared MOR {shown} times")
        check("found by 2 runs of this module: " in dom and "1 finding shown above, under another run of this module" in dom,
              "report.html does not name both runs of the shared MOR")


SECRET = "fsmove-canary-SECRET-5521"


def case_links():
    """A modules directory whose modules link out of it to a private (0600) file of the host:
    an example (examples/init.pp), a .fsmove.json and a metadata.json. Each link is refused
    with an error naming it, and the file's content appears nowhere: not in the scan's
    folder (catalogs, Puppet's logs, graphs, reports), not on stdout or stderr."""
    with tempfile.TemporaryDirectory() as tmp:
        private = os.path.join(tmp, "private")
        os.makedirs(private, mode=0o700)
        canary = os.path.join(private, "canary.pp")
        with open(canary, "w", encoding="utf-8") as fh:
            fh.write(f"notify {{ '{SECRET}': }}\n")
        os.chmod(canary, 0o600)
        mods = os.path.join(tmp, "mods")
        layout = {
            # No class to include: the example is its only run.
            "exlink": ("manifests/thing.pp", "define exlink::thing {}\n", "examples/init.pp"),
            "cfglink": ("manifests/init.pp", "class cfglink {}\n", ".fsmove.json"),
            "metalink": ("manifests/init.pp", "class metalink {}\n", "metadata.json"),
        }
        for name, (manifest, code, link) in layout.items():
            path = os.path.join(mods, name, manifest)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as fh:
                fh.write(code)
            os.makedirs(os.path.dirname(os.path.join(mods, name, link)), exist_ok=True)
            os.symlink(canary, os.path.join(mods, name, link))
        out = os.path.join(tmp, "out")
        p = fsmove("scan", "-o", out, "--timeout", "120", "-q", "--modules-dir", mods)
        check(SECRET not in p.stdout and SECRET not in p.stderr, "the secret is on stdout or stderr")
        for root, _, files in os.walk(out):
            for f in files:
                with open(os.path.join(root, f), "rb") as fh:
                    check(SECRET.encode() not in fh.read(),
                          f"the secret is in {os.path.relpath(os.path.join(root, f), out)}")
        got = {m["module"].split(mods + "/")[-1]: m for m in summary(out)}
        check(sorted(got) == ["cfglink", "exlink/examples/init.pp", "metalink"],
              f"runs: {sorted(got)}")
        for run, link in (("exlink/examples/init.pp", "examples/init.pp"),
                          ("cfglink", ".fsmove.json"), ("metalink", "metadata.json")):
            r = got[run]
            check(r["status"] not in ("ok", "findings"), f"{run} ran: {r}")
            check(f"{link} is a symbolic link, never followed" in r["error"],
                  f"{run}: the link is not named as refused: {r['error']!r}")
        print("ok: every link refused, the secret nowhere", file=sys.stderr)


def case_killed():
    """A scan killed outright (SIGKILL) stops the check it was running, and while that check
    runs, a second scan of the same results folder leaves the module alone."""
    with tempfile.TemporaryDirectory() as tmp:
        module = os.path.join(tmp, "scan_killed")
        os.makedirs(os.path.join(module, "manifests"))
        with open(os.path.join(module, "manifests", "init.pp"), "w", encoding="utf-8") as fh:
            # Its own duration, so that no other test's sleep is taken for it.
            fh.write("class scan_killed {\n  exec { 'hang': command => '/bin/sleep 593', timeout => 0 }\n}\n")
        out = os.path.join(tmp, "out")
        cmd = [ARGS.fsmove, "scan", "-o", out, "--timeout", "300", "-q", module]
        print("+ " + " ".join(cmd), file=sys.stderr)
        first = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.time() + 300
        while not running("/bin/sleep 593"):
            check(time.time() < deadline and first.poll() is None, "the module's exec never ran")
            time.sleep(0.5)
        p = fsmove("scan", "-o", out, "--timeout", "300", "-q", module)
        check("another scan is checking it now" in p.stderr, "the second scan did not leave the module alone")
        check(running("/bin/sleep 593"), "the second scan disturbed the running check")
        first.kill()
        first.wait()
        deadline = time.time() + 90
        while running("/bin/sleep 593") or running(f"check -q --format json") and running(module):
            check(time.time() < deadline, "the check outlived its killed scan: " +
                  repr(running("/bin/sleep 593")))
            time.sleep(0.5)
        # The lock went with the check: a new scan checks the module (it fails no more than
        # it hangs: a short timeout ends it).
        p = fsmove("scan", "-o", out, "--timeout", "5", "--kill-after", "60", "-q", module)
        check("another scan is checking it now" not in p.stderr, "the lock outlived the check")


if __name__ == "__main__":
    sys.exit(main(globals()))
