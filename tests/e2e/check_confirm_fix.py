"""Cases of check_e2e.py: --confirm (replays that force the other order) and --fix-diff/--fix
(verified patches that apply, parse, lint and re-check clean)."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from check_lib import (check_sound_run, findings_of, fixture_args, read_expected, run_json,
                       valid_report)
from e2e_lib import ARGS, check, fsmove


def case_confirm(name):
    """--confirm on a recorded fault fixture: every MOR it has is confirmed by a replay forcing
    the other order, with the differences named (a failure or an end state: outcomes); with
    --fix-diff too, each confirmed MOR's patch is verified by its confirming replay made again
    on the patched code, where the forced order is now a cycle Puppet refuses."""
    with tempfile.TemporaryDirectory() as tmp:
        code, report = run_json(["--confirm", "-j", "2", "--fix-diff", os.path.join(tmp, "d")]
                                + fixture_args(name))
    expected = read_expected(os.path.join(ARGS.source, "traces", name, "expected-findings.txt"))
    got = findings_of(report, confidence=True)
    check(got == expected, f"findings {got} != {expected}")
    check_sound_run(report)
    mor = [f for f in report["faults"] if f["kind"] == "MOR"]
    for f in mor:
        c = f["confirmation"]
        check(f["confirmed"] is True, f"not confirmed: {f['source']['resource']} -> "
              f"{f['target']['resource']}: {c}")
        check(c["differences"], "confirmed without differences")
        check(" before " in c["forced"], f"forced {c['forced']!r}")
        p = f["patch"]
        check(p["verdict"] == "failed" and "no fix in the checked code" in p["reason"]
              or p["verdict"] == "verified"
              and "is a dependency cycle Puppet refuses on the patched code" in p["reason"],
              f"the confirmed MOR's patch lacks its replay's proof: {p['verdict']}: {p['reason']}")
    # A missing notifier is confirmed only when the daemon kept running with the file as it
    # was before its source changed it, and restarting it changes what it does (a command
    # line, a socket). These fixtures run memcached through Debian 12's init script, whose
    # restart looks for another pid file than its daemon writes: the refresh stops nothing,
    # and the MN stays unconfirmed with that reason (case_confirm_example confirms it under
    # systemd). A package held back makes its service start in the second apply: not stale.
    mn = [f for f in report["faults"] if f["kind"] == "MN"]
    for f in mn:
        c = f["confirmation"]
        check(f["confirmed"] is False and c["reason"], f"MN confirmed through an init script: {c}")
        if not f["source"]["resource"].startswith("Package["):
            check("stopped no process" in c["reason"], f"MN: {c}")
    check(mor or mn, "nothing to confirm")
    check(report["summary"]["confirmed"] == sum(1 for f in mor + mn if f["confirmed"]),
          f"summary {report['summary']}")
    check(report["run"]["confirm"] is True, "run.confirm not set")


def patched_files(diff):
    return sorted({l[6:].rstrip("\n") for l in diff.splitlines(True) if l.startswith("+++ b/")})


def lint_counts(path):
    """puppet-lint's problems in `path`, counted per check (None without puppet-lint)."""
    if shutil.which("puppet-lint") is None:
        return None
    p = subprocess.run(["puppet-lint", "--json", path], capture_output=True, text=True)
    counts = {}
    for per_file in json.loads(p.stdout[p.stdout.index("["):]):
        for problem in per_file:
            counts[problem["check"]] = counts.get(problem["check"], 0) + 1
    return counts


def fix_diff_run(args, tmp, tag):
    """fsmove check --fix-diff on ARGS (target last): (report, diff text)."""
    out, diff = os.path.join(tmp, tag + ".json"), os.path.join(tmp, tag + ".diff")
    p = fsmove("check", "-q", "--format", "json", "-o", out, "--allow-failed",
               "--fix-diff", diff, *args)
    check(p.returncode in (0, 1), f"exit code {p.returncode}, expected 0 or 1")
    with open(out, encoding="utf-8") as fh:
        report = valid_report(json.load(fh))
    with open(diff, encoding="utf-8") as fh:
        return report, fh.read()


def check_fix(args, expected, module=False, root=None):
    """--fix-diff on one target: each finding gets a verified patch (or none, saying the code
    to change is not the checked code's); the diff applies with git apply in a copy, parses,
    adds no puppet-lint warning; the patched copy has none of the findings and an empty diff.
    `root`: where the diff applies, when not the module or the manifest's directory."""
    target = args[-1]
    root = root or (target if module else os.path.dirname(target))
    with tempfile.TemporaryDirectory() as tmp:
        report, diff = fix_diff_run(args, tmp, "first")
        got = findings_of(report, confidence=True)
        check(got == expected, f"findings {got} != {expected}")
        check_sound_run(report)
        fixed = []
        for f in report["faults"]:
            p = f.get("patch")
            check(p is not None, f"no patch object: {f['fix']}")
            if p["verdict"] == "failed":
                check(not p["diff"] and "no fix in the checked code" in p["reason"],
                      f"patch failed: {p['reason']}")
                continue
            check(p["verdict"] == "verified", f"patch {p['verdict']}: {p['reason']}")
            check(p["root"] == os.path.realpath(root) or p["root"] == os.path.abspath(root),
                  f"patch root {p['root']}")
            # Its own diff applies alone; in the whole diff it may be merged with another
            # finding's change of the same declaration.
            check(p["diff"] and set(patched_files(p["diff"])) <= set(patched_files(diff)),
                  "the finding's file is not in the diff")
            check(p["edits"] and all(e["file"].endswith("/" + f) for e, f in
                                     zip(p["edits"], patched_files(p["diff"]))), f"edits {p['edits']}")
            fixed.append(f"{f['kind']}\t{f['source']['resource']}\t{f['target']['resource']}")
        if not fixed:
            check(diff == "", "a diff without verified patches")
            return
        copy = os.path.join(tmp, "copy", os.path.basename(root))
        shutil.copytree(root, copy, symlinks=True)
        with open(os.path.join(tmp, "fix.diff"), "w", encoding="utf-8") as fh:
            fh.write(diff)
        for cmd in (["git", "apply", "--check", "-v", os.path.join(tmp, "fix.diff")],
                    ["git", "apply", os.path.join(tmp, "fix.diff")]):
            p = subprocess.run(cmd, cwd=copy, capture_output=True, text=True)
            check(p.returncode == 0, f"{' '.join(cmd)}: {p.stderr}")
        for rel in patched_files(diff):
            p = subprocess.run(["puppet", "parser", "validate", os.path.join(copy, rel)],
                               capture_output=True, text=True)
            check(p.returncode == 0, f"puppet parser validate {rel}: {p.stdout}{p.stderr}")
            before, after = lint_counts(os.path.join(root, rel)), lint_counts(os.path.join(copy, rel))
            worse = {k: v for k, v in (after or {}).items() if v > (before or {}).get(k, 0)}
            check(not worse, f"puppet-lint warns more on the patched {rel}: {worse}")
        patched_target = copy if module else os.path.join(copy, os.path.relpath(target, root))
        again, again_diff = fix_diff_run(args[:-1] + [patched_target], tmp, "again")
        left = [x for x in findings_of(again) if x in fixed]
        check(not left, f"the patched code still has {left}")
        check(again_diff == "", "--fix-diff on the patched code is not empty:\n" + again_diff)
        print(f"ok: {len(fixed)} finding(s) fixed by a verified patch", file=sys.stderr)


def case_fix_fixtures(only=None):
    """--fix-diff on every recorded fault fixture (check_fix), the fixed twins (an empty
    diff), and the bundled example module (the diff applies from the module's directory)."""
    traces = os.path.join(ARGS.source, "traces")
    names = sorted(n for n in os.listdir(traces) if n.startswith("faults-")
                   and os.path.exists(os.path.join(traces, n, "expected-findings.txt")))
    if only:
        names = [n for n in names if n == only]
    if only == "example":
        names = []
    for name in names:
        expected = read_expected(os.path.join(traces, name, "expected-findings.txt"))
        if expected:
            check_fix(fixture_args(name), expected)
        else:
            with tempfile.TemporaryDirectory() as tmp:
                report, diff = fix_diff_run(fixture_args(name), tmp, "fixed")
                check(not report["faults"] and diff == "", f"{name}: findings or a diff")
    if only in (None, "example"):
        target = os.path.join(ARGS.source, "fixtures", "example", "cachedemo")
        expected = read_expected(os.path.join(ARGS.source, "fixtures", "example", "EXPECTED.txt"))
        # The module itself as the target: --fix makes the verified patches in place, and its
        # --fix-diff applies with git apply (check_fix_in_place). A manifest of the module's
        # examples/ checks the module too: its fixes go into the same files of the module's own
        # manifests, and the diff applies from the module's directory, where check_fix also
        # parses and lints them and checks the patched copy again (the same patches as the
        # module's: a third check_fix of the module itself took about 130 s more).
        check_fix_in_place(target)
        with tempfile.TemporaryDirectory() as tmp:
            module = os.path.join(tmp, "cachedemo")
            shutil.copytree(target, module, symlinks=True)
            os.makedirs(os.path.join(module, "examples"), exist_ok=True)
            example = os.path.join(module, "examples", "fsmove.pp")
            with open(example, "w", encoding="utf-8") as fh:
                fh.write("include cachedemo\n")
            check_fix([example], expected, root=module)


def check_fix_in_place(module):
    """--fix on a copy of a module: the verified patches are made in its files (the same
    change as git apply of --fix-diff's diff), each marked applied, and the findings they fixed
    no longer fail the run: exit 0 when every finding was fixed."""
    with tempfile.TemporaryDirectory() as tmp:
        copy = os.path.join(tmp, "inplace", os.path.basename(module))
        shutil.copytree(module, copy, symlinks=True)
        diffed = os.path.join(tmp, "diffed", os.path.basename(module))
        shutil.copytree(module, diffed, symlinks=True)
        out, diff = os.path.join(tmp, "fix.json"), os.path.join(tmp, "fix.diff")
        p = fsmove("check", "-q", "--format", "json", "-o", out, "--fix", "--fix-diff", diff, copy)
        with open(out, encoding="utf-8") as fh:
            report = json.load(fh)
        patches = [f["patch"] for f in report["faults"]]
        check(patches and all(x["verdict"] == "verified" and x["applied"] for x in patches),
              "not every patch verified and made in place: " + repr(patches))
        check(p.returncode == 0, f"exit code {p.returncode} after --fix fixed every finding")
        g = subprocess.run(["git", "apply", diff], cwd=diffed, capture_output=True, text=True)
        check(g.returncode == 0, f"git apply: {g.stderr}")
        d = subprocess.run(["diff", "-r", diffed, copy], capture_output=True, text=True)
        check(d.returncode == 0, "--fix made other changes than its diff:\n" + d.stdout)
        print("ok: --fix made the verified patches in place; exit 0", file=sys.stderr)


def case_confirm_example():
    """The bundled example with --confirm. Its MOR (a race on the log's creation) is not
    confirmed: in either order the log ends memcache's, 0640; only Puppet's messages differ
    ("ensure created" against "owner, group, mode changed"), which proves nothing. Through
    Debian 12's init script, whose restart misses the daemon, its MN is not confirmed, and
    says why (under systemd it is: e2e.confirm-example-systemd)."""
    target = os.path.join(ARGS.source, "fixtures", "example", "cachedemo")
    code, report = run_json(["--confirm", target])
    check(code == 1, f"exit code {code}")
    check_sound_run(report)
    kinds = sorted((f["kind"], f["confirmed"]) for f in report["faults"])
    check(kinds == [("MN", False), ("MOR", False)], f"confirmations {kinds}")
    mn = [f for f in report["faults"] if f["kind"] == "MN"][0]
    check("stopped no process" in mn["confirmation"]["reason"], f"MN: {mn['confirmation']}")
    mor = [f for f in report["faults"] if f["kind"] == "MOR"][0]["confirmation"]
    check(mor["outcome"] == "not-confirmed" and "only Puppet's messages differ" in mor["reason"]
          and mor["differences"], f"MOR: {mor}")


def case_confirm_example_systemd():
    """The bundled example with --confirm under systemd, and --fix-diff. Its MN is confirmed:
    memcached started with the package's configuration keeps running when the file changes, and
    a restart changes its command line (-m 64 to -m 32). Each confirmed finding's patch is
    verified only when its confirming replay, made again on the patched code, no longer
    breaks (slow: e2e.confirm-created-config makes the same checks on a created file in CI)."""
    target = os.path.join(ARGS.source, "fixtures", "example", "cachedemo")
    with tempfile.TemporaryDirectory() as tmp:
        diff = os.path.join(tmp, "fix.diff")
        code, report = run_json(["--confirm", "--init", "systemd", "--fix-diff", diff, target])
    check(code == 1, f"exit code {code}")
    mn = [f for f in report["faults"] if f["kind"] == "MN"]
    check(len(mn) == 1 and mn[0]["confirmed"] is True, f"MN under systemd: {mn}")
    differences = mn[0]["confirmation"]["differences"]
    check(any(d.startswith("memcached (pid ") and "still runs" in d for d in differences),
          f"no stale daemon shown: {differences}")
    check(any("-m 64" in d and "became" in d and "-m 32" in d for d in differences),
          f"no restart difference shown: {differences}")
    check_patches_verified(report, mn[0])


def check_patches_verified(report, confirmed_mn):
    """Every finding's patch is verified; the confirmed MN's by its confirming replay made
    again on the patched code (an unconfirmed finding's as any other: re-checked clean)."""
    for f in report["faults"]:
        p = f["patch"]
        check(p["verdict"] == "verified",
              f"{f['kind']} {f['source']['resource']}: patch {p['verdict']}: {p['reason']}")
    p = confirmed_mn["patch"]
    check("made again on the patched code, no longer shows a stale daemon" in p["reason"],
          f"MN: the patch's proof lacks its replay: {p['reason']}")


def case_confirm_created_config():
    """A missing notifier on a file the apply creates is confirmed (under systemd): portd reads
    its port from /etc/portd.conf at start. Its service's replay first holds back all three of
    its notifiers, so portd cannot start before the second apply and is never stale; each is
    then replayed alone: with the configuration alone held back, portd starts on the default
    port, the file is created without a refresh, and a restart moves it to the file's port. Its
    program and unit file, held back alone, keep it from starting at all: not confirmed."""
    target = os.path.join(ARGS.source, "fixtures", "replay", "created-config.pp")
    with tempfile.TemporaryDirectory() as tmp:
        diff = os.path.join(tmp, "fix.diff")
        code, report = run_json(["--confirm", "--init", "systemd", "--fix-diff", diff, target])
    check(code == 1, f"exit code {code}")
    check_sound_run(report)
    got = {f["source"]["resource"]: f for f in report["faults"] if f["kind"] == "MN"}
    check(sorted(got) == ["File[/etc/portd.conf]", "File[/etc/systemd/system/portd.service]",
                          "File[/usr/local/bin/portd]"], f"MN findings {sorted(got)}")
    conf = got["File[/etc/portd.conf]"]["confirmation"]
    check(got["File[/etc/portd.conf]"]["confirmed"] is True, f"not confirmed: {conf}")
    check(any("still runs" in d and "/etc/portd.conf" in d for d in conf["differences"])
          and any("127.0.0.1:7002" in d for d in conf["differences"]), f"differences {conf}")
    for source in ("File[/etc/systemd/system/portd.service]", "File[/usr/local/bin/portd]"):
        c = got[source]["confirmation"]
        check(got[source]["confirmed"] is False and "started after" in c["reason"],
              f"{source}: {c}")
    check(report["summary"]["confirmed"] == 1, f"summary {report['summary']}")
    # --fix-diff: the confirmed MN's patch (a notify) is verified by its replay made again.
    check_patches_verified(report, got["File[/etc/portd.conf]"])


def the_one_confirmed_mn(fixture, source):
    """Checks fixtures/replay/FIXTURE with --confirm under systemd: a sound run whose one
    confirmed finding is the MN from SOURCE; its confirmation."""
    target = os.path.join(ARGS.source, "fixtures", "replay", fixture)
    code, report = run_json(["--confirm", "--init", "systemd", target])
    check(code == 1, f"exit code {code}")
    check_sound_run(report)
    got = {f["source"]["resource"]: f for f in report["faults"] if f["kind"] == "MN"}
    check(source in got, f"MN findings {sorted(got)}")
    conf = got[source]["confirmation"]
    check(got[source]["confirmed"] is True, f"not confirmed: {conf}")
    check(report["summary"]["confirmed"] == 1, f"summary {report['summary']}")
    return conf


def case_confirm_lookup_table():
    """A missing notifier on a table a daemon keeps open is confirmed (under systemd), though a
    restart changes neither its command line nor its port: lookupd reads
    /etc/lookupd/table.json through the descriptor it opened at start, and Puppet renames the
    changed table over the old one. Before the refresh it still holds the replaced file, a
    minute later too (no reread on a clock); restarted, it holds the new one."""
    conf = the_one_confirmed_mn("lookup-table.pp", "File[/etc/lookupd/table.json]")
    check(any("still holds the replaced /etc/lookupd/table.json open" in d
              for d in conf["differences"]), f"differences {conf}")


def case_confirm_log_path():
    """A missing notifier on a configuration the daemon reads and closes is confirmed (under
    systemd) by where the restarted daemon writes: logd reads /etc/logd.conf at start and keeps
    its log open, a restart changes neither its command line nor its sockets, and it holds no
    replaced file; started again, it writes the log the changed file names, which the daemon
    that started before the change never opened."""
    conf = the_one_confirmed_mn("log-path.pp", "File[/etc/logd.conf]")
    check(any("writes /var/log/logd/requests.log, which no process it stopped had open" in d
              for d in conf["differences"]), f"differences {conf}")
    check(not any("logd.log" in d for d in conf["differences"]), f"differences {conf}")


def case_confirm_harmless():
    """A race whose order makes no visible difference stays unconfirmed: reported, with the
    reason; --fail-on confirmed then exits 0. --keep-replays keeps each replay's catalog and
    log, and plain `puppet apply --catalog` accepts the kept catalog."""
    target = os.path.join(ARGS.source, "fixtures", "replay", "harmless-race.pp")
    # Replays need a fresh copy of the OS each: never on the host itself.
    p = fsmove("check", "-q", "--confirm", "--sandbox", "none", target)
    check(p.returncode == 2 and "--confirm needs the overlay sandbox" in p.stderr,
          f"--confirm --sandbox none: exit {p.returncode}")
    with tempfile.TemporaryDirectory() as keep:
        code, report = run_json(["--confirm", "--keep-replays", keep, target])
        check(findings_of(report) == ["MOR\tFile[/etc/app-race.conf]\tExec[peek]"],
              f"findings {findings_of(report)}")
        f = report["faults"][0]
        check(f["confirmed"] is False, f"confirmed: {f['confirmation']}")
        check(f["confirmation"]["differences"] == [], f"differences {f['confirmation']}")
        check("no visible difference" in f["confirmation"]["reason"], f"reason {f['confirmation']}")
        check(code == 1, f"exit code {code} with --fail-on any")
        kept = sorted(os.listdir(keep))
        check(kept == ["00-reference.catalog.json", "00-reference.puppet.log", "01.catalog.json",
                       "01.puppet.log"], f"kept {kept}")
        with open(os.path.join(keep, "01.catalog.json"), encoding="utf-8") as fh:
            forced = json.load(fh)
        peek = [r for r in forced["resources"] if r["type"] == "File"
                and r["title"] == "/etc/app-race.conf"]
        check(peek and "Exec[peek]" in json.dumps(peek[0]["parameters"].get("require")),
              "the kept catalog does not force Exec[peek] first")
        check(f["confirmation"]["kept"].startswith(keep), f"kept {f['confirmation']}")
        code, _ = run_json(["--confirm", "--fail-on", "confirmed", target])
        check(code == 0, f"exit code {code} with --fail-on confirmed and nothing confirmed")


FIX_BENEATH_INIT = """class fixbeneath {
  file { '/etc/app': ensure => directory }
  file { '/etc/app/app.conf':
    ensure  => file,
    content => "greeting = hello\\n",
  }
  exec { 'use config':
    command => "/bin/sh -c 'cat /etc/app/app.conf > /var/tmp/app-out'",
  }
  fixbeneath::relocate()
}
"""

# Compile-time Ruby of the module: both resources of the MOR claim to be declared in
# manifests/sub/canary.pp, which a link in the module leads to a directory of the host.
FIX_BENEATH_FUNCTION = """Puppet::Functions.create_function(:'fixbeneath::relocate') do
  def relocate
    file = File.expand_path('../../../../../manifests/sub/canary.pp', __FILE__)
    catalog = closure_scope.catalog
    { 'File[/etc/app/app.conf]' => 1, 'Exec[use config]' => 4 }.each do |ref, line|
      r = catalog.resource(ref)
      r.file = file
      r.line = line
    end
    nil
  end
end
"""

FIX_BENEATH_CANARY = """file { '/etc/app/app.conf':
  ensure => file,
}
exec { 'use config':
  command => '/bin/true',
}
"""


def case_fix_beneath():
    """A module ships a link into a dependency module shown beside it (manifests/sub ->
    ../../dep/manifests, holding a canary .pp), which the sandbox allows: it leads into a
    module it shows. Compile-time Ruby points its MOR's two resources into the link: --fix-diff
    and --fix write nothing there (the fix opens files only beneath the module, with no link
    followed: base/beneath.h); the finding gets no patch, and the reason names the link."""
    with tempfile.TemporaryDirectory() as tmp:
        module = os.path.join(tmp, "fixbeneath")
        dep = os.path.join(tmp, "dep")
        outside = os.path.join(dep, "manifests")
        os.makedirs(os.path.join(module, "manifests"))
        os.makedirs(os.path.join(module, "lib", "puppet", "functions", "fixbeneath"))
        os.makedirs(outside)
        with open(os.path.join(module, "metadata.json"), "w", encoding="utf-8") as fh:
            json.dump({"name": "test-fixbeneath", "version": "1.0.0", "author": "test",
                       "source": "none", "license": "Apache-2.0",
                       "dependencies": [{"name": "test-dep"}]}, fh)
        with open(os.path.join(dep, "metadata.json"), "w", encoding="utf-8") as fh:
            json.dump({"name": "test-dep", "version": "1.0.0", "author": "test",
                       "source": "none", "license": "Apache-2.0", "dependencies": []}, fh)
        with open(os.path.join(module, "manifests", "init.pp"), "w", encoding="utf-8") as fh:
            fh.write(FIX_BENEATH_INIT)
        with open(os.path.join(module, "lib", "puppet", "functions", "fixbeneath",
                               "relocate.rb"), "w", encoding="utf-8") as fh:
            fh.write(FIX_BENEATH_FUNCTION)
        canary = os.path.join(outside, "canary.pp")
        with open(canary, "w", encoding="utf-8") as fh:
            fh.write(FIX_BENEATH_CANARY)
        os.symlink("../../dep/manifests", os.path.join(module, "manifests", "sub"))
        before = os.stat(canary)
        out, diff = os.path.join(tmp, "report.json"), os.path.join(tmp, "fix.diff")
        p = fsmove("check", "-q", "--format", "json", "-o", out, "--allow-failed",
                   "--fix", "--fix-diff", diff, module)
        with open(canary, encoding="utf-8") as fh:
            check(fh.read() == FIX_BENEATH_CANARY, "the canary behind the link was rewritten")
        after = os.stat(canary)
        check((after.st_ino, after.st_mtime_ns) == (before.st_ino, before.st_mtime_ns),
              "the canary behind the link was replaced")
        check(os.listdir(outside) == ["canary.pp"], f"files left beside it: {os.listdir(outside)}")
        # The link leads into a module the sandbox shows: the check runs, and the patch's
        # own refusal is what holds.
        check(p.returncode in (0, 1), f"exit code {p.returncode}: {p.stderr}")
        with open(out, encoding="utf-8") as fh:
            report = json.load(fh)
        mor = [f for f in report["faults"] if f["kind"] == "MOR"
               and f["source"]["resource"] == "File[/etc/app/app.conf]"
               and f["target"]["resource"] == "Exec[use config]"]
        check(mor, f"the MOR was not found: {findings_of(report)}")
        check(mor[0]["source"]["file"].endswith("manifests/sub/canary.pp"),
              f"the resource was not relocated into the link: {mor[0]['source']}")
        patch = mor[0]["patch"]
        check(patch["verdict"] == "failed" and not patch["diff"] and not patch["applied"],
              f"a patch through the link: {patch}")
        check("manifests/sub is a symbolic link, never followed" in patch["reason"],
              f"the reason does not name the link: {patch['reason']}")
        with open(diff, encoding="utf-8") as fh:
            check("canary" not in fh.read(), "the diff patches the file behind the link")
        print("ok: no patch through the module's link into its dependency; the canary is "
              "untouched", file=sys.stderr)
