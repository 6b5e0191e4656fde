"""Cases of check_e2e.py: the findings of real runs. The recorded fault fixtures and the
bundled example (on each pinned root), modules as they come (files/ sources, Forge
checkouts, modulepaths of links, Debian's own concat), --idempotence, the CI driver, and what
--save-trace and fixtures/record-all keep."""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from check_lib import check_json, findings_of, fixture_args, read_expected, run_json
from e2e_lib import ARGS, check, fsmove


def case_fixture(name):
    d = os.path.join(ARGS.source, "traces", name)
    args = fixture_args(name)
    # The findings are checked against the graph Puppet applied (--graph), and fsmove's
    # static model of the same catalog must order every pair of resources as Puppet did.
    with tempfile.TemporaryDirectory() as tmp:
        dot, cat = os.path.join(tmp, "graph.dot"), os.path.join(tmp, "catalog.json")

        def same_graph(report):
            check(report["graph"]["model"] == "puppet", f"graph model {report['graph']}")
            check(report["graph"]["puppet_graph"] == dot, f"graph file {report['graph']}")
            q = fsmove("graph", "--catalog", cat, "--compare-puppet", dot)
            check(q.returncode == 0, "fsmove's static graph and Puppet's order pairs differently:\n"
                  + q.stdout)
        check_json(["--save-graph", dot, "--save-catalog", cat] + args,
                   read_expected(os.path.join(d, "expected-findings.txt")), same_graph)


CONCAT_MANIFEST = """\
# puppetlabs-concat's README usage: a motd from fragments, and a purged directory holding a
# second concat target. Concat generates a File for each target at apply time; nothing here
# lacks an order.
concat { '/etc/motd':
  ensure => present,
  owner  => 'root',
  group  => 'root',
  mode   => '0644',
}
concat::fragment { 'motd_header':
  target  => '/etc/motd',
  content => "Puppet modules on this server:\\n",
  order   => '01',
}
concat::fragment { 'motd_local':
  target  => '/etc/motd',
  content => "  -- local\\n",
  order   => '15',
}
file { '/etc/motd.d':
  ensure  => directory,
  recurse => true,
  purge   => true,
}
concat { '/etc/motd.d/10-site':
  ensure => present,
  mode   => '0644',
}
concat::fragment { 'site':
  target  => '/etc/motd.d/10-site',
  content => "site\\n",
}
"""


def case_concat_clean():
    """Debian's own concat module (puppet-module-puppetlabs-concat, installed by
    tools/bootstrap), used as its README says, has no fault: no finding at any confidence,
    with and without --confirm. Without --confirm it is the example of a module that declares
    concat in its metadata.json and is checked with no --modulepath: concat, and the stdlib
    concat declares, come from Debian's packages (module_sources.h)."""
    with tempfile.TemporaryDirectory() as tmp:
        mods = os.path.join(tmp, "mods")
        for name in ("concat", "stdlib"):
            src = os.path.join("/usr/share/puppet/modules", name)
            check(os.path.isdir(src), f"{src} missing: install puppet-module-puppetlabs-{name} (tools/bootstrap)")
            # Debian's modules are links through /etc/alternatives: copied with them resolved.
            shutil.copytree(src, os.path.join(mods, name), symlinks=False)
        site = os.path.join(tmp, "concat.pp")
        with open(site, "w", encoding="utf-8") as fh:
            fh.write(CONCAT_MANIFEST)
        demo = os.path.join(tmp, "home", "motddemo")
        os.makedirs(os.path.join(demo, "manifests"))
        with open(os.path.join(demo, "metadata.json"), "w", encoding="utf-8") as fh:
            json.dump({"name": "fsmove-motddemo", "version": "0.1.0", "author": "fsmove",
                       "summary": "concat's README usage", "license": "Apache-2.0",
                       "source": "tests/e2e/check_findings.py", "dependencies": [
                           {"name": "puppetlabs/concat", "version_requirement": ">= 7.0.0 < 10.0.0"}]}, fh)
        with open(os.path.join(demo, "manifests", "init.pp"), "w", encoding="utf-8") as fh:
            fh.write("class motddemo {\n" + CONCAT_MANIFEST + "}\n")
        for extra in ([], ["--confirm"]):
            target = [demo] if not extra else ["--modulepath", mods, site]
            code, report = run_json(extra + target)
            if not extra:
                resolved = [n for n in report["run"]["notes"] if n.startswith("dependency ")]
                check(len(resolved) == 2 and "puppetlabs-concat" in resolved[0]
                      and "puppetlabs-stdlib" in resolved[1],
                      f"dependencies not taken from Debian's packages: {resolved}")
            faults = [(f["kind"], f["source"]["resource"], f["target"]["resource"], f["confidence"])
                      for f in report["faults"]]
            check(code == 0 and not faults, f"{' '.join(extra) or 'plain'}: exit {code}, findings {faults}")
            check(not report["run"]["failed_resources"], f"resources failed: {report['run']['failed_resources']}")


def case_fixtures_repository():
    """A module whose dependency is a git repository of its .fixtures.yml (as
    puppetlabs_spec_helper's `repositories:`), checked with no --modulepath: the repository
    (a file:// one in a --module-source directory; an https one the same way where the
    network is) fetched at its tag into the cache and applied, so the module's missing order
    on the dependency's file is found."""
    check(shutil.which("git") is not None, "git is not installed (tools/bootstrap installs it)")
    with tempfile.TemporaryDirectory() as tmp:
        sources = os.path.join(tmp, "sources")
        repo = os.path.join(sources, "appconf.git")
        shutil.copytree(os.path.join(ARGS.source, "fixtures", "control-repo-modules", "appconf"),
                        repo)
        git = ["git", "-c", "user.name=fsmove", "-c", "user.email=fsmove@example.org", "-C", repo]
        for cmd in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "1.0.0"],
                    ["tag", "v1.0.0"]):
            subprocess.run(git + cmd, check=True, timeout=60)
        module = os.path.join(tmp, "src", "appreport")
        os.makedirs(os.path.join(module, "manifests"))
        with open(os.path.join(module, "metadata.json"), "w", encoding="utf-8") as fh:
            json.dump({"name": "fsmove-appreport", "version": "0.1.0", "author": "fsmove",
                       "summary": "reads appconf's file", "license": "Apache-2.0",
                       "source": "tests/e2e/check_findings.py", "dependencies": [
                           {"name": "example/appconf", "version_requirement": ">= 1.0.0 < 2.0.0"}]},
                      fh)
        with open(os.path.join(module, ".fixtures.yml"), "w", encoding="utf-8") as fh:
            fh.write("fixtures:\n  repositories:\n    appconf:\n"
                     f"      repo: 'file://{repo}'\n      ref: 'v1.0.0'\n")
        with open(os.path.join(module, "manifests", "init.pp"), "w", encoding="utf-8") as fh:
            fh.write("class appreport {\n  include appconf\n  exec { 'app report':\n"
                     "    command => \"/bin/sh -c 'cat /etc/app/app.conf > /var/tmp/report'\",\n"
                     "  }\n}\n")
        cache = dict(os.environ, FSMOVE_PUPPETFILE_CACHE=os.path.join(tmp, "cache"))
        p = fsmove("check", "-q", "--format", "json", "--allow-failed", "--module-source",
                   sources, module, env=cache)
        check(p.returncode == 1, f"exit code {p.returncode}")
        report = json.loads(p.stdout)
        check(findings_of(report) == ["MOR\tFile[/etc/app/app.conf]\tExec[app report]"],
              f"findings: {findings_of(report)}")
        notes = [n for n in report["run"]["notes"] if n.startswith("dependency ")]
        check(len(notes) == 1 and "example-appconf 1.0.0" in notes[0] and
              f".fixtures.yml's file://{repo}@v1.0.0" in notes[0], f"dependency notes: {notes}")


def case_user_switch():
    """Puppet changes its own effective user to make a symlink a File owns, and a process
    that changed its user is not dumpable: strace reads its paths from then on only because it
    holds CAP_SYS_PTRACE (nothing it traces does). The MOR after the switch is found, and no
    path is printed as an address (before, Puppet's every later call was, and the report said
    the catalog was not applied whole)."""
    manifest = os.path.join(ARGS.source, "fixtures", "users", "link-as-owner.pp")
    check_json([manifest],
               ["MOR\tFile[/etc/fsmove-app.conf]\tFile[/etc/fsmove-app.copy]"])


def case_preinstalled_package():
    """A Package the pinned root already has (cron) and a File of what it ships (/etc/crontab),
    unordered: the preparation removes cron and cron-daemon-common (only cron needs it) after
    downloading them, Puppet installs them under the trace, and the missing order is found;
    with --preinstalled keep the package does nothing and nothing is found."""
    manifest = os.path.join(ARGS.source, "fixtures", "preinstalled", "crontab.pp")

    def removed(report):
        notes = [n for n in report["run"]["notes"] if n.startswith("prep: ")]
        check(any(n.startswith("prep: removed cron cron-daemon-common (") for n in notes),
              f"prep notes: {notes}")

    check_json([manifest], ["MOR\tPackage[cron]\tFile[/etc/crontab]"], removed)
    check_json(["--preinstalled", "keep", manifest], [])


def case_idempotence():
    """--idempotence: an unguarded exec and a file embedding the compile time change on every
    apply; a file computed from what the first run created converges on the third apply; the
    guarded twins and a notify give nothing."""
    d = os.path.join(ARGS.source, "fixtures", "idempotence")
    expected = {
        "exec-unguarded.pp": [("Exec[stamp]", "changes-every-apply")],
        "file-time.pp": [("File[/etc/app-built]", "changes-every-apply")],
        "converges.pp": [("File[/etc/app-seen]", "converged-on-third-apply")],
        "idempotent.pp": [],
    }
    logs = tempfile.mkdtemp()
    for manifest, want in expected.items():
        log = os.path.join(logs, manifest + ".log")
        code, report = run_json(["--idempotence", "--puppet-log", log, os.path.join(d, manifest)])
        kept = sorted(os.listdir(logs))
        check(os.path.exists(log[:-4] + "-apply-2.log"), f"{manifest}: second apply's log not kept: {kept}")
        check(os.path.exists(log[:-4] + "-apply-3.log") == bool(want),
              f"{manifest}: third apply's log: {kept}")
        ni = [f for f in report["faults"] if f["kind"] == "NI"]
        got = [(f["source"]["resource"], f["behaviour"]) for f in ni]
        check(got == want, f"{manifest}: NI {got} != {want}")
        check(report["summary"]["NI"] == len(want), f"{manifest}: summary {report['summary']}")
        check(code == (1 if want else 0), f"{manifest}: exit code {code}")
        for f in ni:
            check(f["rule"] == "not-idempotent" and f["second_apply"], f"{manifest}: {f}")
            check(f["source"]["file"].endswith(manifest) and f["source"]["line"], f"{manifest}: {f}")
        runs = report["run"]["idempotence"]["exit_codes"]
        check(len(runs) == (2 if want else 1), f"{manifest}: applies after the first {runs}")
    shutil.rmtree(logs)


def case_example():
    """The bundled example on the default root (debian-12, Puppet 7)."""
    target = os.path.join(ARGS.source, "fixtures", "example", "cachedemo")

    def on_debian_12(report):
        run = report["run"]
        check(run["root"] == "debian-12", f"root {run['root']!r}")
        check((run["puppet_version"] or "").startswith("7."), f"Puppet {run['puppet_version']!r}")

    expected = read_expected(os.path.join(ARGS.source, "fixtures", "example", "EXPECTED.txt"))
    check_json([target], expected, on_debian_12)
    # Its examples/ manifest, as `fsmove scan` runs it: the module is on the modulepath.
    check_json([os.path.join(target, "examples", "init.pp")], expected)


def case_roots():
    """Pinned roots: the example gives its findings with Puppet 8 on debian-13, the host's
    files are out of sight on a pinned root (and in sight on --root host, so the probe can
    fail), and bad roots are refused before anything runs."""
    target = os.path.join(ARGS.source, "fixtures", "example", "cachedemo")
    expected = read_expected(os.path.join(ARGS.source, "fixtures", "example", "EXPECTED.txt"))

    def on_debian_13(report):
        run = report["run"]
        check(run["root"] == "debian-13", f"root {run['root']!r}")
        check((run["puppet_version"] or "").startswith("8."), f"Puppet {run['puppet_version']!r}")

    check_json(["--root", "debian-13", target], expected, on_debian_13)
    p = fsmove("root", "list")
    check(p.returncode == 0
          and re.search(r"^debian-13\t\S+\tPuppet 8\.\S+\t\d+ packages", p.stdout, re.M),
          "root list does not show debian-13: " + p.stdout)

    canary = f"/var/tmp/fsmove-root-canary-{os.getpid()}"
    with open(canary, "w", encoding="utf-8") as fh:
        fh.write("host secret\n")
    try:
        code = f"exec {{ 'look': command => '/usr/bin/test ! -e {canary}' }}\n"
        for root, visible in (("debian-12", False), ("host", True)):
            p = fsmove("check", "-q", "--format", "json", "--root", root, "--allow-failed", "-e", code)
            check(p.returncode in (0, 1), f"exit code {p.returncode}")
            failed = [f["resource"] for f in json.loads(p.stdout)["run"]["failed_resources"]]
            check(failed == (["Exec[look]"] if visible else []),
                  f"--root {root}: the host's {canary} is {'not ' if not visible else ''}"
                  f"expected in sight; failed: {failed}")
    finally:
        os.unlink(canary)

    for bad, message in (("ubuntu-99", "not a root fsmove knows (debian-12, debian-13)"),
                         ("/nonexistent/root", "--root /nonexistent/root: No such file"),
                         ("/var/tmp", "has no /usr/bin/puppet")):
        p = fsmove("check", "-q", "--root", bad, "-e", "notify { 'x': }")
        check(p.returncode == 2 and message in p.stderr, f"--root {bad}: {p.returncode} {p.stderr}")
    p = fsmove("check", "-q", "--root", "debian-12", "--sandbox", "none", "-e", "notify { 'x': }")
    check(p.returncode == 2 and "needs the overlay sandbox" in p.stderr,
          "--root debian-12 --sandbox none was not refused")


def case_module_file_source():
    """A module that ships its config in files/ and serves it as puppet:///modules/...: the
    File must apply (no "Could not retrieve information from environment"), and the fault
    next to it is found; its fixed twin is clean."""
    base = os.path.join(ARGS.source, "fixtures", "faults", "source-use")

    def served(report):
        check(not report["run"]["failed_resources"],
              "resources failed: " + repr(report["run"]["failed_resources"]))
        check(any("puppet:/// source served from the modulepath" in n for n in report["run"]["notes"]),
              "the run does not say it served the source: " + repr(report["run"]["notes"]))
    check_json([os.path.join(base, "bad", "sourcedemo")],
               ["MOR\tFile[/etc/sourcedemo.conf]\tExec[use sourcedemo config]"], served)
    check_json([os.path.join(base, "fixed", "sourcedemo")], [], served)


def case_forge_module():
    """A Forge-style checkout (`acme-tiny/`, module name `tiny` from metadata.json) under /tmp
    (not visible through the overlay, so bound read-only): it compiles, and findings point at
    the manifest on the host, not at the sandbox's view of it."""
    with tempfile.TemporaryDirectory() as tmp:
        mod = os.path.join(tmp, "acme-tiny")
        os.makedirs(os.path.join(mod, "manifests"))
        with open(os.path.join(mod, "metadata.json"), "w", encoding="utf-8") as fh:
            json.dump({"name": "acme-tiny", "version": "1.0.0", "author": "acme", "summary": "t",
                       "license": "MIT", "source": "https://example.invalid/acme-tiny",
                       "dependencies": []}, fh)
        with open(os.path.join(mod, "manifests", "init.pp"), "w", encoding="utf-8") as fh:
            fh.write("class tiny {\n  file { '/etc/tiny.conf': ensure => file, content => \"x\\n\" }\n"
                     "  exec { '/bin/cat /etc/tiny.conf': }\n}\n")
        def host_paths(report):
            for f in report["faults"]:
                for side in ("source", "target"):
                    check(f[side]["file"] == os.path.join(mod, "manifests", "init.pp"),
                          f"manifest path not mapped to the host: {f[side]['file']}")
        check_json([mod], ["MOR\tFile[/etc/tiny.conf]\tExec[/bin/cat /etc/tiny.conf]"], host_paths)


def case_modulepath_links():
    """A modulepath directory of symlinks, as Debian's /usr/share/puppet/modules is (each
    module a link through /etc/alternatives): under /tmp, which the sandbox covers with a
    tmpfs of its own, so the links lead nowhere there unless each module is shown at its
    link's name. The module compiles and its fault is found, reported at the path Puppet was
    given; a link to a file is refused before anything runs, by name."""
    with tempfile.TemporaryDirectory() as tmp:
        mod = os.path.join(tmp, "available", "acme-tiny")
        os.makedirs(os.path.join(mod, "manifests"))
        with open(os.path.join(mod, "manifests", "init.pp"), "w", encoding="utf-8") as fh:
            fh.write("class tiny {\n  file { '/etc/tiny.conf': ensure => file, content => \"x\\n\" }\n"
                     "  exec { '/bin/cat /etc/tiny.conf': }\n}\n")
        alternatives, modules = os.path.join(tmp, "alternatives"), os.path.join(tmp, "modules")
        os.makedirs(alternatives)
        os.makedirs(modules)
        os.symlink(mod, os.path.join(alternatives, "puppet-module-tiny"))
        os.symlink(os.path.join(alternatives, "puppet-module-tiny"), os.path.join(modules, "tiny"))

        def at_the_link(report):
            for f in report["faults"]:
                for side in ("source", "target"):
                    check(f[side]["file"] == os.path.join(modules, "tiny", "manifests", "init.pp"),
                          f"manifest path is not the modulepath's: {f[side]['file']}")
        check_json(["--modulepath", modules, "-e", "include tiny"],
                   ["MOR\tFile[/etc/tiny.conf]\tExec[/bin/cat /etc/tiny.conf]"], at_the_link)

        notes = os.path.join(tmp, "notes.txt")
        with open(notes, "w", encoding="utf-8") as fh:
            fh.write("not a module\n")
        os.symlink(notes, os.path.join(modules, "notes"))
        p = fsmove("check", "-q", "--modulepath", modules, "-e", "include tiny")
        check(p.returncode == 2 and os.path.join(modules, "notes") in p.stderr
              and "not a directory" in p.stderr,
              f"a link to a file was not refused by name: exit {p.returncode}")

        # Debian's own: the "Unknown resource type: 'concat'", with no copy made.
        debian = "/usr/share/puppet/modules"
        if not os.path.islink(os.path.join(debian, "concat")):
            print(f"note: {debian}/concat is not a link here (puppet-module-puppetlabs-concat, "
                  "tools/bootstrap): Debian's own directory not checked", file=sys.stderr)
            return
        site = os.path.join(tmp, "concat.pp")
        with open(site, "w", encoding="utf-8") as fh:
            fh.write(CONCAT_MANIFEST)
        # Puppet loads the custom facts of every module there, and some fail in the root (no
        # ssh): a log with errors is kept, here in the temporary directory.
        code, report = run_json(["--work-dir", tmp, "--modulepath", debian, site])
        check(not report["run"]["failed_resources"],
              f"resources failed: {report['run']['failed_resources']}")
        check(code == 0 and not report["faults"], f"exit {code}, findings {report['faults']}")


def case_modulepath_race():
    """An attack on the links of a modulepath directory (the way Debian's are followed): a
    user who owns a directory the modulepath's root-owned link goes through swaps a module
    directory there for a link of theirs to a directory they may not show (here a root-only
    one with a canary), over and over, while fsmove checks. fsmove follows only links root
    owns, and opens what it resolved with no link followed, so no run may compile with the
    canary: each shows the real module, or refuses and says why."""
    import ctypes
    libc = ctypes.CDLL(None, use_errno=True)
    rename_exchange = 2
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        manifest = "class tiny {\n  fail(\"canary: ${file('tiny/canary')}\")\n}\n"

        def module(path, canary):
            os.makedirs(os.path.join(path, "manifests"))
            os.makedirs(os.path.join(path, "files"))
            with open(os.path.join(path, "manifests", "init.pp"), "w", encoding="utf-8") as fh:
                fh.write(manifest)
            with open(os.path.join(path, "files", "canary"), "w", encoding="utf-8") as fh:
                fh.write(canary)
        secret = os.path.join(tmp, "secret")
        module(secret, "SECRET-CANARY")
        shared, modules = os.path.join(tmp, "shared"), os.path.join(tmp, "modules")
        module(os.path.join(shared, "tiny"), "public")
        for root, dirs, files in os.walk(shared):
            for name in dirs + files + ["."]:
                os.lchown(os.path.join(root, name), 65534, 65534)
        os.makedirs(modules)
        os.symlink(os.path.join(shared, "tiny"), os.path.join(modules, "tiny"))

        def racer():  # as nobody: a link of theirs, exchanged with the directory in a loop
            os.setgid(65534)
            os.setuid(65534)
            swap = os.path.join(shared, "tiny.swap").encode()
            os.symlink(secret, swap)
            here = os.path.join(shared, "tiny").encode()
            while True:
                libc.renameat2(-100, here, -100, swap, rename_exchange)
                time.sleep(0.0002)
        pid = os.fork()
        if pid == 0:
            try:
                racer()
            finally:
                os._exit(1)
        seen = {"public": 0, "refused": 0}
        try:
            for _ in range(6):
                p = fsmove("check", "-q", "--modulepath", modules, "-e", "include tiny",
                           timeout=300)
                out = p.stdout + p.stderr
                check("SECRET-CANARY" not in out, "the swapped-in link's canary was compiled")
                if "canary: public" in out:
                    seen["public"] += 1
                else:
                    check(p.returncode == 2 and any(why in out for why in (
                        "owned by uid 65534", "changed while fsmove ran",
                        "no Puppet module any more", "not a directory")),
                        f"neither the module nor a refusal that says why: exit {p.returncode}")
                    seen["refused"] += 1
        finally:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
        print(f"  runs: {seen}", file=sys.stderr)


def case_ci_module():
    """The CI driver behind action.yml and the GitLab job, on a real `fsmove check` run:
    SARIF with repository-relative locations, JUnit, and the job's exit status."""
    target = os.path.join(ARGS.source, "fixtures", "faults", "configure-use", "bad.pp")
    with tempfile.TemporaryDirectory() as tmp:
        sarif, junit = os.path.join(tmp, "r.sarif"), os.path.join(tmp, "r.xml")
        cmd = [os.path.join(ARGS.source, "tools", "ci", "run-check"), "--fsmove", ARGS.fsmove,
               "--module", target, "--source-root", ARGS.source, "--sarif", sarif, "--junit", junit]
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=900, cwd=tmp)
        print(f"  exit {p.returncode}\n  stderr: {p.stderr.strip()}", file=sys.stderr)
        check(p.returncode == 1, f"run-check exit code {p.returncode}, expected 1 (findings)")
        with open(sarif, encoding="utf-8") as fh:
            results = json.load(fh)["runs"][0]["results"]
        check(len(results) == 1 and results[0]["ruleId"] == "missing-ordering", f"SARIF results: {results}")
        loc = results[0]["locations"][0]["physicalLocation"]["artifactLocation"]
        check(loc == {"uri": "fixtures/faults/configure-use/bad.pp", "uriBaseId": "%SRCROOT%"},
              f"SARIF location not relative to the source root: {loc}")
        import xml.etree.ElementTree as ET
        failures = ET.parse(junit).getroot().iter("failure")
        check(len(list(failures)) == 1, "JUnit report should hold one failure")


def case_save_trace():
    """--save-trace/--save-catalog/--save-graph keep what was analysed: `fsmove analyze` on
    them agrees."""
    target = os.path.join(ARGS.source, "fixtures", "faults", "configure-use", "bad.pp")
    with tempfile.TemporaryDirectory() as tmp:
        trace, cat = os.path.join(tmp, "t.zst"), os.path.join(tmp, "c.json")
        log = os.path.join(tmp, "puppet.log")
        dot = os.path.join(tmp, "graph.dot")
        p = fsmove("check", "-q", "--format", "json", "--save-trace", trace, "--save-catalog", cat,
                   "--save-graph", dot, "--puppet-log", log, target)
        check(p.returncode == 1, f"exit code {p.returncode}")
        live = json.loads(p.stdout)
        check(live["run"]["puppet_log"] == log and os.path.getsize(log) > 0, "puppet log not kept")
        check(live["catalog"] == cat and live["trace_kept"] is True, "saved catalog/trace not named")
        with open(trace, "rb") as fh:
            check(fh.read(4) == b"\x28\xb5\x2f\xfd", "saved trace is not zstd")
        q = fsmove("analyze", "--format", "json", "--trace", trace, "--catalog", cat,
                   "--puppet-graph", dot)
        check(q.returncode == 1, f"analyze exit code {q.returncode}")
        offline = json.loads(q.stdout)
        check(findings_of(live) == findings_of(offline), "offline findings differ from the live ones")
        check(live["stats"]["lines"] == offline["stats"]["lines"], "line counts differ")
        check(live["graph"] == offline["graph"], f"graphs differ: {live['graph']} {offline['graph']}")


def case_record_fixture():
    """fixtures/record-all records the golden traces with fsmove itself (no sandbox of its
    own): a fixture recorded again with --strace-timestamps has the committed recording's
    shape (its meta.json's target, options, markers and catalog), each call line carries
    strace's -ttt time, and its findings are the fixture's expected ones."""
    name = "faults-configure-use-bad-reversed"
    with open(os.path.join(ARGS.source, "traces", name, "meta.json"), encoding="utf-8") as fh:
        committed = json.load(fh)
    with tempfile.TemporaryDirectory() as tmp:
        p = subprocess.run([sys.executable, os.path.join(ARGS.source, "fixtures", "record-all"),
                            "--fsmove", ARGS.fsmove, "--out-root", tmp, "--timestamps", name],
                           capture_output=True, text=True, timeout=600)
        print(p.stderr, file=sys.stderr)
        check(p.returncode == 0, f"record-all exit code {p.returncode}")
        d = os.path.join(tmp, name)
        check(sorted(os.listdir(tmp)) == [name], f"left in the output root: {os.listdir(tmp)}")
        with open(os.path.join(d, "meta.json"), encoding="utf-8") as fh:
            meta = json.load(fh)
        for key in ("target", "target_kind", "policy_rc", "filtered", "start_markers",
                    "catalog_resource_types"):
            check(meta[key] == committed[key], f"meta.json {key}: {meta[key]!r}, "
                  f"recorded before as {committed[key]!r}")
        check(meta["strace_extra_opts"] == "-ttt -T -yy" and meta["puppet_exit_code"] == 0,
              f"meta.json: {meta}")
        timed = re.compile(rb"^\d+ +\d{10}\.\d{6} ")
        with subprocess.Popen(["zstd", "-dcq", os.path.join(d, "trace.zst")],
                              stdout=subprocess.PIPE) as z:
            head = [z.stdout.readline() for _ in range(100)]
            z.kill()
        untimed = [l for l in head if not timed.match(l)]
        check(not untimed, f"lines without strace's -ttt time: {untimed[:3]}")
        q = fsmove("analyze", "--format", "json", "--trace", os.path.join(d, "trace.zst"),
                   "--catalog", os.path.join(d, "catalog.json"))
        expected = read_expected(os.path.join(ARGS.source, "traces", name, "expected-findings.txt"))
        got = findings_of(json.loads(q.stdout), confidence=True)
        check(got == expected, f"findings {got}, expected {expected}")


def case_in_source_suppression():
    """`fsmove check` reads the checked manifest's `# fsmove:ignore:RULE reason` comment (the
    form alone on the line above the declaration): the finding is suppressed with the reason,
    at the comment, and the check passes."""
    src = os.path.join(ARGS.source, "fixtures", "faults", "configure-use", "bad.pp")
    with open(src, encoding="utf-8") as fh:
        lines = fh.read().splitlines()
    check(lines[14].startswith("exec { 'use config':"), f"bad.pp line 15 moved: {lines[14]}")
    lines.insert(14, "# fsmove:ignore:missing-ordering the config is written in an earlier run")
    with tempfile.TemporaryDirectory() as tmp:
        target = os.path.join(tmp, "commented.pp")
        with open(target, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
        p = fsmove("check", "-q", "--format", "json", target)
        check(p.returncode == 0, f"exit code {p.returncode}, expected 0 (suppressed)")
        report = json.loads(p.stdout)
        check(not report["faults"] and len(report["suppressed"]) == 1, f"report: {report}")
        sup = report["suppressed"][0]["suppression"]
        check(sup == {"kind": "in_source", "file": target, "line": 15,
                      "justification": "the config is written in an earlier run"},
              f"suppression: {sup}")
