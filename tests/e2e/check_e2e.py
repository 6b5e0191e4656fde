#!/usr/bin/env python3
"""End-to-end tests of `fsmove check`: real Puppet, real strace, the real sandbox.

Each CTest test runs one case:  check_e2e.py --fsmove BIN --source DIR CASE [ARG]
  fixture NAME     fsmove check on the manifest recorded in traces/NAME (its meta.json gives
                   the target and the policy-rc.d mode) must report exactly
                   traces/NAME/expected-findings.txt. Those files were written from full
                   (unfiltered) traces, so this also proves that the kernel-filtered trace
                   `fsmove check` records gives the same findings as a full trace.
  example          the bundled example module gives fixtures/example/EXPECTED.txt
  fix-fixtures [N] --fix-diff on every fault fixture (or traces/N, or `example`): verified
                   patches that apply, parse, pass puppet-lint and leave a clean re-check
  <failure case>   see the functions named case_* below
Exit 77 (CTest's skip code) when not root: the sandbox needs namespaces and overlayfs.
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from e2e_lib import ARGS, SKIP, check, fail, fsmove, main, processes


def findings_of(report):
    return sorted(f"{f['kind']}\t{f['source']['resource']}\t{f['target']['resource']}"
                  for f in report["faults"])


def read_expected(path):
    with open(path, encoding="utf-8") as fh:
        return sorted(l.rstrip("\n") for l in fh if l.strip() and not l.startswith("#"))


def check_json(args, expected, extra_checks=None, env=None):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        # Judged on its findings: a recorded fixture may fail resources (exit 3 otherwise).
        p = fsmove("check", "-q", "--format", "json", "-o", out, "--allow-failed", *args, env=env)
        check(p.returncode in (0, 1), f"exit code {p.returncode}, expected 0 or 1")
        with open(out, encoding="utf-8") as fh:
            report = json.load(fh)
    got = findings_of(report)
    if got != expected:
        fail("findings differ\n  expected: " + repr(expected) + "\n  got:      " + repr(got))
    check(p.returncode == (1 if expected else 0), f"exit code {p.returncode} for {len(got)} findings")
    check(report["stats"]["unparsed_lines"] == 0, "unparsed lines in the trace")
    check(report["run"]["trace_complete"], "trace incomplete")
    check(report["run"]["puppet_exit_code"] == 0, "puppet apply failed: " + repr(report["run"]))
    check(report["stats"]["markers"]["begin"] > 0, "no evaltrace markers seen")
    if extra_checks:
        extra_checks(report)
    print(f"ok: {len(got)} finding(s) as expected", file=sys.stderr)


# ---- processes and mounts ----------------------------------------------------------------

def descendants(root):
    procs = processes()
    result = {}
    for pid, (ppid, cmd) in procs.items():
        p, seen = pid, set()
        while p in procs and p not in seen:
            seen.add(p)
            if procs[p][0] == root:
                result[pid] = cmd
                break
            p = procs[p][0]
    return result


def wait_for_descendant(root, pattern, limit=300):
    """The first process under `root` whose command line matches `pattern`. Anchor patterns
    at the start: fsmove's own forks carry its command line (and so the manifest code) until
    they exec."""
    deadline = time.time() + limit
    while time.time() < deadline:
        for pid, cmd in descendants(root).items():
            if re.search(pattern, cmd):
                return pid
        time.sleep(0.2)
    fail(f"no process matching {pattern!r} appeared under {root} within {limit} s")


def cgroups_of(fsmove_pid):
    """The memory cgroups fsmove process `fsmove_pid` made (fsmove-<pid>-<run>) and left."""
    out = subprocess.run(["find", "/sys/fs/cgroup", "-maxdepth", "5", "-type", "d",
                          "-name", f"fsmove-{fsmove_pid}-*"], capture_output=True, text=True).stdout
    return out.split()


def assert_nothing_left(marker, fsmove_pid=None):
    time.sleep(1)
    if fsmove_pid is not None:
        left = cgroups_of(fsmove_pid)
        check(not left, "cgroups left behind: " + " ".join(left))
    left = [f"{pid} {cmd}" for pid, (_, cmd) in processes().items()
            if marker in cmd and not cmd.startswith(ARGS.fsmove)]
    check(not left, "processes outlived the run: " + "; ".join(left))
    with open("/proc/mounts", encoding="utf-8") as fh:
        mounts = [l for l in fh if "fsmove-root" in l or "fsmove-sandbox" in l]
    check(not mounts, "sandbox mounts left on the host: " + "".join(mounts))


def start_check(*args, **kw):
    cmd = [ARGS.fsmove, "check", "-q", *args]
    print("+ " + " ".join(cmd), file=sys.stderr)
    return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)


def finish(p, limit):
    try:
        out, err = p.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        p.kill()
        fail(f"fsmove did not end within {limit} s")
    print(f"  exit {p.returncode}\n  stderr: {err.strip()}", file=sys.stderr)
    return out, err


# ---- cases -------------------------------------------------------------------------------

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


def fixture_args(name):
    """fsmove check arguments that run the target recorded in traces/NAME as it was recorded:
    its policy-rc.d mode, modulepath (a module's own parent excepted) and check-options."""
    d = os.path.join(ARGS.source, "traces", name)
    with open(os.path.join(d, "meta.json"), encoding="utf-8") as fh:
        meta = json.load(fh)
    target = os.path.join(ARGS.source, meta["target"])
    args = ["--policy-rc", meta.get("policy_rc") or "allow"]
    for m in (meta.get("modulepath") or "").split(":"):
        if not m:
            continue
        # Recorded in another checkout: the repository-relative part is what counts.
        at = m.find("/fixtures/")
        if at >= 0:
            m = os.path.join(ARGS.source, m[at + 1:])
        if meta["target_kind"] == "module" and m == os.path.dirname(target):
            continue
        args += ["--modulepath", m]
    opts = os.path.join(d, "check-options")
    if os.path.exists(opts):
        with open(opts, encoding="utf-8") as fh:
            args += fh.read().split()
    return args + [target]


def run_json(args):
    """fsmove check -q --format json ARGS: (exit code, report)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        # Judged on its findings: a recorded fixture may fail resources (exit 3 otherwise).
        p = fsmove("check", "-q", "--format", "json", "-o", out, "--allow-failed", *args)
        check(p.returncode in (0, 1), f"exit code {p.returncode}, expected 0 or 1")
        with open(out, encoding="utf-8") as fh:
            return p.returncode, json.load(fh)


def case_confirm(name):
    """--confirm on a recorded fault fixture: every MOR it has is confirmed by a replay forcing
    the other order, with the differences named; MN findings are not replayed."""
    code, report = run_json(["--confirm", "-j", "2"] + fixture_args(name))
    expected = read_expected(os.path.join(ARGS.source, "traces", name, "expected-findings.txt"))
    check(findings_of(report) == expected, f"findings {findings_of(report)} != {expected}")
    mor = [f for f in report["faults"] if f["kind"] == "MOR"]
    for f in mor:
        c = f["confirmation"]
        check(f["confirmed"] is True, f"not confirmed: {f['source']['resource']} -> "
              f"{f['target']['resource']}: {c}")
        check(c["differences"], "confirmed without differences")
        check(" before " in c["forced"], f"forced {c['forced']!r}")
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


# ---- --fix-diff -------------------------------------------------------------------------

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
        report = json.load(fh)
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
        check(findings_of(report) == expected, f"findings {findings_of(report)} != {expected}")
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
        check_fix([target], expected, module=True)
        check_fix_in_place(target)
        # A manifest of the module's examples/ checks the module: its fixes go into the
        # module's own manifests, and the diff applies from the module's directory.
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
    """The bundled example with --confirm: its MOR (a write-write race on the log) is
    confirmed. Its MN is confirmed under systemd: memcached started with the package's
    configuration keeps running when the file changes, and a restart changes its command line
    (-m 64 to -m 32). Through Debian 12's init script, whose restart misses the daemon, the
    MN is not confirmed, and says why."""
    target = os.path.join(ARGS.source, "fixtures", "example", "cachedemo")
    code, report = run_json(["--confirm", target])
    check(code == 1, f"exit code {code}")
    kinds = sorted((f["kind"], f["confirmed"]) for f in report["faults"])
    check(kinds == [("MN", False), ("MOR", True)], f"confirmations {kinds}")
    mn = [f for f in report["faults"] if f["kind"] == "MN"][0]
    check("stopped no process" in mn["confirmation"]["reason"], f"MN: {mn['confirmation']}")
    # With --fix-diff as well: each confirmed finding's patch is verified only when its
    # confirming replay, made again on the patched code, no longer breaks.
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
    proofs = {"MOR": "is a dependency cycle Puppet refuses on the patched code",
              "MN": "made again on the patched code, no longer shows a stale daemon"}
    for f in report["faults"]:
        p = f["patch"]
        check(f["confirmed"] and p["verdict"] == "verified" and proofs[f["kind"]] in p["reason"],
              f"{f['kind']}: the patch's proof lacks its replay: {p['verdict']}: {p['reason']}")


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
    with and without --confirm."""
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
        for extra in ([], ["--confirm"]):
            code, report = run_json(extra + ["--modulepath", mods, site])
            faults = [(f["kind"], f["source"]["resource"], f["target"]["resource"], f["confidence"])
                      for f in report["faults"]]
            check(code == 0 and not faults, f"{' '.join(extra) or 'plain'}: exit {code}, findings {faults}")
            check(not report["run"]["failed_resources"], f"resources failed: {report['run']['failed_resources']}")


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


ROOTLESS_USER = "fsmove-e2e"


def rootless_user():
    """An unprivileged user with a subordinate id range of its own, made once and kept (its
    rootless OS root, built by mmdebstrap --mode=unshare into its ~/.cache, is reused by the
    next run): a login-less system account, with no password."""
    import pwd
    try:
        pwd.getpwnam(ROOTLESS_USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--create-home", "--shell", "/usr/sbin/nologin",
                        ROOTLESS_USER], check=True)
    for kind, file in (("--add-subuids", "/etc/subuid"), ("--add-subgids", "/etc/subgid")):
        with open(file, encoding="utf-8") as fh:
            have = any(l.startswith(ROOTLESS_USER + ":") for l in fh)
        if not have:
            subprocess.run(["usermod", kind, "1100000000-1100065535", ROOTLESS_USER], check=True)
    return pwd.getpwnam(ROOTLESS_USER)


def case_rootless():
    """fsmove check run by an ordinary user with a subordinate id range: the sandbox is
    rootless (its own user namespace through newuidmap, a root built by mmdebstrap's unshare
    mode in the user's cache), the bundled example gives its two findings, and the host is
    untouched (the module writes /etc/memcached.conf, installs memcached)."""
    user = rootless_user()
    # slirp4netns opens /dev/net/tun as the user: Debian's udev makes it 0666, this machine's
    # may not (put back afterwards).
    tun_mode = os.stat("/dev/net/tun").st_mode & 0o777
    os.chmod("/dev/net/tun", 0o666)
    try:
        rootless_example(user)
    finally:
        os.chmod("/dev/net/tun", tun_mode)


def cgroup2_mount_point():
    with open("/proc/self/mountinfo", encoding="utf-8") as fh:
        for line in fh:
            head, _, tail = line.partition(" - ")
            if tail.startswith("cgroup2 ") and head.split()[3] == "/":
                return head.split()[4]
    return None


def case_rootless_systemd():
    """Rootless with systemd as PID 1. Without a cgroup2 tree of the user's own it is refused
    with the reason; with one delegated to the user, as systemd's user@.service (Delegate=yes)
    does, the bundled example gives its two findings and the host is untouched."""
    user = rootless_user()
    mount_point = cgroup2_mount_point()
    if mount_point is None:
        print("skip: no cgroup2 hierarchy on this machine", file=sys.stderr)
        sys.exit(77)
    tun_mode = os.stat("/dev/net/tun").st_mode & 0o777
    os.chmod("/dev/net/tun", 0o666)
    deleg = os.path.join(mount_point, f"fsmove-e2e-deleg-{os.getpid()}")
    try:
        # Not delegated: the user's processes are in a cgroup of root's.
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o755)
            binary = os.path.join(tmp, "fsmove")
            shutil.copy(ARGS.fsmove, binary)
            p = subprocess.run(
                ["setpriv", f"--reuid={user.pw_uid}", f"--regid={user.pw_gid}", "--init-groups",
                 "--", binary, "check", "-q", "--init", "systemd", "-e", "notify { 'x': }"],
                capture_output=True, text=True, timeout=900, cwd="/",
                env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": user.pw_dir,
                     "LANG": "C.UTF-8"})
        check(p.returncode == 2, f"not delegated: exit code {p.returncode}")
        check("not delegated" in p.stderr and "Delegate=yes" in p.stderr,
              f"not delegated: no reason given: {p.stderr[-1500:]}")
        # Delegated: the cgroup and the files a delegate writes are the user's.
        os.mkdir(deleg)
        for name in ("", "cgroup.procs", "cgroup.subtree_control", "cgroup.threads"):
            os.chown(os.path.join(deleg, name) if name else deleg, user.pw_uid, user.pw_gid)
        # Under systemd, Debian's unit runs a wrapper that never opens the log file: only the
        # missing notifier is left (case_systemd).
        report = rootless_example(
            user, ("--init", "systemd"),
            ("sh", "-c", f'echo $$ > {deleg}/cgroup.procs && exec "$@"', "sh"),
            ["MN\tFile[/etc/memcached.conf]\tService[memcached]"])
        check(report["run"]["init"] == "systemd", f"init {report['run']['init']!r}")
        check(any(n.startswith("systemd booted") for n in report["run"]["notes"]),
              "no boot note: " + repr(report["run"]["notes"]))
        left = [d for d, _, _ in os.walk(deleg) if d != deleg]
        check(not left, "systemd's cgroups left behind: " + " ".join(left))
    finally:
        os.chmod("/dev/net/tun", tun_mode)
        if os.path.isdir(deleg):
            for d, subdirs, _ in sorted(os.walk(deleg), key=lambda w: -w[0].count("/")):
                os.rmdir(d)


def rootless_example(user, extra=(), outer=(), expected=None):
    if expected is None:
        expected = read_expected(os.path.join(ARGS.source, "fixtures", "example", "EXPECTED.txt"))
    before = os.path.exists("/etc/memcached.conf")
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        binary = os.path.join(tmp, "fsmove")
        shutil.copy(ARGS.fsmove, binary)
        os.chmod(binary, 0o755)
        module = os.path.join(tmp, "cachedemo")
        shutil.copytree(os.path.join(ARGS.source, "fixtures", "example", "cachedemo"), module)
        outputs = os.path.join(tmp, "out")
        os.mkdir(outputs)
        os.chown(outputs, user.pw_uid, user.pw_gid)
        out = os.path.join(outputs, "report.json")
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": user.pw_dir, "LANG": "C.UTF-8"}
        # The binary under test, as a copy the user can run wherever the build is.
        tested, ARGS.fsmove = ARGS.fsmove, binary
        try:
            p = fsmove("check", "-q", "--format", "json", "-o", out, module, *extra,
                       prefix=[*outer, "setpriv", f"--reuid={user.pw_uid}",
                               f"--regid={user.pw_gid}", "--init-groups", "--"],
                       env=env, cwd=tmp, timeout=1800)
        finally:
            ARGS.fsmove = tested
        check(p.returncode == 1, f"exit code {p.returncode}: {p.stderr[-3000:]}")
        with open(out, encoding="utf-8") as fh:
            report = json.load(fh)
    got = findings_of(report)
    check(got == expected, f"findings differ: {got} against {expected}")
    check(report["run"]["sandbox"] == "overlay", f"sandbox {report['run']['sandbox']}")
    check(os.path.exists("/etc/memcached.conf") == before, "/etc/memcached.conf changed on the host")
    print("ok: the example's findings, rootless", file=sys.stderr)
    return report


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


def case_graph_symlink():
    """Module code in the sandbox replaces the graph Puppet wrote with a symlink to a host
    file: too late, the graph was caught from its FIFO as Puppet wrote it, before the first
    resource. The check uses Puppet's own graph, and nothing of the host file is read."""
    code = ("file { '/run/fsmove/graphs/expanded_relationships.dot':\n"
            "  ensure => link, target => '/etc/shadow', force => true,\n}\n"
            "exec { '/bin/cat /run/fsmove/graphs/relationships.dot': }\n")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        saved = os.path.join(tmp, "graph.dot")
        p = fsmove("check", "-q", "--format", "json", "-o", out, "--save-graph", saved, "-e", code)
        check(p.returncode in (0, 1), f"exit code {p.returncode}")
        with open(out, encoding="utf-8") as fh:
            report = json.load(fh)
        check(report["graph"]["model"] == "puppet", f"graph model {report['graph']}")
        with open("/etc/shadow", encoding="utf-8") as fh:
            shadow_first = fh.readline().strip()
        with open(saved, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        check("digraph" in text and shadow_first not in text, "the graph read is not Puppet's")


def case_host_untouched():
    """A manifest that writes, deletes, installs and adds a user leaves the host as it was."""
    canary = "/var/tmp/fsmove-e2e-canary"
    written = "/etc/fsmove-e2e-written"
    with open(canary, "w", encoding="utf-8") as fh:
        fh.write("keep me\n")
    if os.path.exists(written):
        os.remove(written)
    pkg = "hello"
    def installed():
        r = subprocess.run(["dpkg-query", "-W", "-f=${Status}", pkg], capture_output=True, text=True)
        return "install ok installed" in r.stdout
    with open("/etc/passwd", encoding="utf-8") as fh:
        passwd = fh.read()
    was_installed = installed()
    code = (f"file {{ '{written}': content => \"x\\n\" }}\n"
            f"file {{ '{canary}': ensure => absent }}\n"
            f"package {{ '{pkg}': ensure => installed }}\n"
            "user { 'fsmovee2e': ensure => present }\n"
            "exec { 'rm shell': command => '/bin/rm -f /etc/hostname.fsmove-none' }\n")
    with tempfile.TemporaryDirectory() as tmp:
        keep = os.path.join(tmp, "upper")
        os.mkdir(keep)
        p = fsmove("check", "-q", "--format", "json", "--keep-sandbox", keep, "-e", code)
        check(p.returncode in (0, 1), f"exit code {p.returncode}")
        report = json.loads(p.stdout)
        failed = report["run"]["failed_resources"]
        check(not failed, f"resources failed in the sandbox: {failed}")
        # Inside the sandbox it all happened...
        check(os.path.exists(keep + written), "the sandbox's changes were not kept")
        check(os.path.exists(os.path.join(keep, "usr/bin/hello")), "the package was not installed in the sandbox")
    # ...and on the host nothing did.
    with open(canary, encoding="utf-8") as fh:
        check(fh.read() == "keep me\n", "the canary file changed on the host")
    check(not os.path.exists(written), f"{written} was written on the host")
    check(installed() == was_installed, f"package {pkg} changed on the host")
    with open("/etc/passwd", encoding="utf-8") as fh:
        check(fh.read() == passwd, "/etc/passwd changed on the host")
    os.remove(canary)
    assert_nothing_left("fsmove-e2e")


def case_escapes():
    """Module code tries the ways out of the sandbox seen in an attack on the first executor;
    each leaves a harmless canary on the host (a file under /tmp, the domain name, SysV IPC
    objects, a cgroup) that must not appear; the attempts the sandbox blocks must fail."""
    tag = f"fsmove-canary-{os.getpid()}"
    canaries = {
        "proc1-root": f"/tmp/{tag}-proc1",
        "chroot": f"/tmp/{tag}-chroot",
        "nsenter": f"/tmp/{tag}-nsenter",
        "dev": f"/dev/{tag}",
    }
    cgroup = f"/sys/fs/cgroup/{tag}"
    domain_before = open("/proc/sys/kernel/domainname", encoding="utf-8").read()
    ipcs_before = subprocess.run(["ipcs", "-m"], capture_output=True, text=True).stdout
    chroot_escape = (
        "import os\n"
        "os.makedirs('/var/tmp/jail', exist_ok=True)\n"
        "os.chroot('/var/tmp/jail')\n"
        "for _ in range(64): os.chdir('..')\n"
        "os.chroot('.')\n"
        f"open('{canaries['chroot']}', 'w').write('escaped')\n")
    tries = {
        "proc1-root": f"/bin/sh -c 'echo escaped > /proc/1/root{canaries['proc1-root']}'",
        "nsenter": f"/usr/bin/nsenter -t 1 -m -- /bin/sh -c 'echo escaped > {canaries['nsenter']}'",
        "dev": f"/bin/sh -c 'echo x > /dev/{tag} && test -e /dev/sda -o -e /dev/vda && exit 1; exit 0'",
        "cgroup": f"/bin/mkdir {cgroup}",
        "domainname": f"/bin/domainname {tag}",
        "ipc": "/usr/bin/ipcmk -M 4096",
        "sysctl": "/bin/sh -c 'cat /proc/sys/kernel/printk_ratelimit > /proc/sys/kernel/printk_ratelimit'",
        "mknod": f"/bin/mknod /tmp/{tag}-disk b 8 0",
    }
    # The host's loopback (a service listening on it) is out of reach from the sandbox's own
    # network, directly and through slirp4netns's gateway.
    import socket
    listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    listener.setblocking(False)
    port = listener.getsockname()[1]
    for name, host in (("host-loopback", "127.0.0.1"), ("host-gateway", "10.0.2.2")):
        tries[name] = (f"/usr/bin/python3 -c 'import socket; "
                       f"socket.create_connection((\\\"{host}\\\", {port}), timeout=3)'")
    script = f"/var/tmp/{tag}-chroot.py"  # visible in the sandbox (its /tmp is its own)
    with open(script, "w", encoding="utf-8") as fh:
        fh.write(chroot_escape)
    tries["chroot"] = f"/usr/bin/python3 {script}"
    code = "".join(f"exec {{ 'try {name}': command => \"{cmd}\" }}\n" for name, cmd in tries.items())
    try:
        with tempfile.TemporaryDirectory() as tmp:
            # On the host's files, the most the sandbox ever shows (python3, the script above);
            # a pinned root shows none of them (case_roots).
            p = fsmove("check", "-q", "--format", "json", "--root", "host", "--allow-failed", "-e", code,
                       "--modulepath", tmp)
        report = json.loads(p.stdout) if p.stdout.strip() else {}
        failed = {f["resource"] for f in report.get("run", {}).get("failed_resources", [])}
        for name, path in canaries.items():
            check(not os.path.exists(path), f"escape '{name}': {path} appeared on the host")
        check(not os.path.exists(cgroup), f"escape 'cgroup': {cgroup} was created on the host")
        check(open("/proc/sys/kernel/domainname", encoding="utf-8").read() == domain_before,
              "escape 'domainname': the host's domain name changed")
        check(subprocess.run(["ipcs", "-m"], capture_output=True, text=True).stdout == ipcs_before,
              "escape 'ipc': a shared memory segment was left on the host")
        check(not os.path.exists(f"/tmp/{tag}-disk"), "escape 'mknod': a disk node appeared")
        try:
            conn, _ = listener.accept()
            conn.close()
            fail("escape 'host-loopback': the sandbox connected to a port on the host's loopback")
        except BlockingIOError:
            pass
        # Where the sandbox holds, the attempt itself fails inside. The others succeed in the
        # sandbox's own namespaces, harmlessly: `..` out of a chroot stops at the sandbox's
        # root, the domain name, IPC object and /dev file are the sandbox's own.
        for name in ("proc1-root", "nsenter", "cgroup", "sysctl", "mknod", "host-loopback",
                     "host-gateway"):
            check(f"Exec[try {name}]" in failed, f"escape '{name}' did not fail inside: {sorted(failed)}")
    finally:
        for path in list(canaries.values()) + [f"/tmp/{tag}-disk", script]:
            if os.path.exists(path) and not os.path.isdir(path):
                os.remove(path)
        if os.path.isdir(cgroup):
            os.rmdir(cgroup)
        with open("/proc/sys/kernel/domainname", "w", encoding="utf-8") as fh:
            fh.write(domain_before)
        listener.close()
    print("ok: no escape reached the host", file=sys.stderr)


def case_sandbox3():
    sandbox3_attacks(dict(os.environ))


def case_sandbox3_systemd():
    """The same attacks with systemd as PID 1, which keeps SYS_ADMIN (in the sandbox's user
    namespace) for its units: Puppet and its execs must not have it."""
    sandbox3_attacks(dict(os.environ), ("--init", "systemd"))


def sandbox3_attacks(env, extra=()):
    """The attacks of the third sandbox review, each in both phases: at compile time through
    Puppet's generate() function, at apply time as an exec. Each attempt prints ESCAPED-<what>
    when it got through, which Puppet's log then holds. Harmless canaries only: a key in a
    keyring, a global sysctl read before and put back in `finally`, a secret in fsmove's own
    environment, files written where the host's disk was reachable."""
    tag = f"fsmove-canary-{os.getpid()}"
    secret = f"fsmove-secret-{os.getpid()}"
    knob = "/proc/sys/kernel/printk_ratelimit_burst"
    with open(knob, encoding="utf-8") as fh:
        knob_before = fh.read()
    script = f"""#!/bin/sh
# a global sysctl: written directly, after a remount, and through a fresh proc
(echo 77 > {knob}) 2>/dev/null && echo ESCAPED-sysctl-write
(mount -o remount,rw /proc/sys && echo 77 > {knob}) 2>/dev/null && echo ESCAPED-sysctl-remount
mkdir -p /mnt/p /mnt/d
(mount -t proc proc /mnt/p && echo 77 > /mnt/p/sys/kernel/printk_ratelimit_burst) 2>/dev/null && echo ESCAPED-fresh-proc
# the host's disks
mount -t devtmpfs none /mnt/d 2>/dev/null && echo ESCAPED-devtmpfs
# a user namespace of its own, nested: the sandbox's mounts are locked in it (no read-write
# remount), and a fresh proc is refused while /proc has read-only parts
unshare -Urm true 2>/dev/null && echo nested-userns-made || echo nested-userns-refused
unshare -Urm sh -c 'mount -o remount,rw /proc/sys && echo 77 > {knob}' 2>/dev/null && echo ESCAPED-nested-remount
unshare -Urmpf sh -c 'mount -t proc proc /proc && echo 77 > {knob}' 2>/dev/null && echo ESCAPED-nested-proc
unshare -Urm sh -c 'umount -l /proc/sys && echo 77 > {knob}' 2>/dev/null && echo ESCAPED-nested-umount
# the keyrings (add_key, 248 on x86_64) and file handles past the root (name_to_handle_at, 303)
perl -e 'my ($t, $d, $n) = ("user", "{tag}", "x"); print syscall(248, $t, $d, $n, 1, -4) >= 0 ? "ESCAPED-keyring\\n" : "held-keyring $!\\n"' 2>&1
perl -e 'my ($h, $m, $p) = ("\\0" x 136, "\\0" x 4, "/"); print syscall(303, -100, $p, $h, $m, 0) >= 0 ? "ESCAPED-handle\\n" : "held-handle $!\\n"' 2>&1
# the capability that would let it mount, unmount and look into systemd (PID 1 with
# --init systemd keeps it; nothing of the module's may)
capeff=$(awk '/^CapEff/ {{print $2}}' /proc/self/status)
[ $(( 0x$capeff >> 21 & 1 )) = 1 ] && echo ESCAPED-cap-sys-admin
# calls the trace would never show: io_uring (425 on x86_64), whose file calls the kernel's
# own threads make, and a child strace -f does not follow (clone, 56, with CLONE_UNTRACED)
perl -e 'my $p = "\\0" x 120; my $r = syscall(425, 8, $p); print $r >= 0 ? "ESCAPED-io-uring\\n" : "held-io-uring $!\\n"' 2>&1
perl -e 'my $r = syscall(56, 0x00800000 | 17, 0, 0, 0, 0); exit 0 if $r == 0; waitpid($r, 0) if $r > 0; print $r > 0 ? "ESCAPED-untraced\\n" : "held-untraced $!\\n"' 2>&1
# the limits of its cgroup, in whatever cgroup tree it can see or mount
mkdir -p /mnt/c
mount -t cgroup2 none /mnt/c 2>/dev/null
for f in /sys/fs/cgroup/pids.max /sys/fs/cgroup/pids/pids.max /sys/fs/cgroup/memory.max \
         /sys/fs/cgroup/memory/memory.limit_in_bytes /mnt/c/pids.max /mnt/c/memory.max; do
  [ -e $f ] && (echo max > $f) 2>/dev/null && echo ESCAPED-cgroup-limit-$f
done
# descriptors of other processes: a directory of the host's (the work directory) would take
# a file
for fd in /proc/[0-9]*/fd/*; do
  [ -d "$fd" ] && touch "$fd/{tag}-fd" 2>/dev/null
done
# fsmove's environment, wherever a process of the sandbox can look
cat /proc/[0-9]*/environ 2>/dev/null | tr '\\0' '\\n' | grep -q {secret} && echo ESCAPED-environ
# the host's disk through the work directory
for d in /run/fsmove /run/fsmove/graphs /run/fsmove/modules; do
  dd if=/dev/zero of=$d/{tag}-fill bs=1M count=8 2>/dev/null
done
echo done
"""
    env["FSMOVE_E2E_SECRET"] = secret
    try:
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o755)
            attack = os.path.join(tmp, "attack.sh")
            with open(attack, "w", encoding="utf-8") as fh:
                fh.write(script)
            os.chmod(attack, 0o755)
            code = (f"$compiled = generate('/bin/sh', '{attack}')\n"
                    "notify { 'compile phase': message => $compiled }\n"
                    f"exec {{ 'apply phase': command => '/bin/sh {attack}', logoutput => true }}\n")
            out = os.path.join(tmp, "report.json")
            log = os.path.join(tmp, "puppet.log")
            work = os.path.join(tmp, "work")
            os.mkdir(work)
            p = fsmove("check", "-q", "--format", "json", "-o", out, "--keep-work", "--work-dir", work,
                       "--puppet-log", log, "--modulepath", tmp, "-e", code, *extra, env=env)
            check(p.returncode in (0, 1), f"exit code {p.returncode}: {p.stderr[-2000:]}")
            with open(log, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            for phase in ("compile phase", "apply phase"):
                check(phase in text, f"the {phase} did not run")
            check(text.count("held-keyring") >= 2 and text.count("held-handle") >= 2,
                  "the keyring and file-handle attempts did not run in both phases")
            check(text.count("nested-userns-") >= 2, "the nested user namespace attempts did not run")
            escaped = sorted(set(re.findall(r"ESCAPED-[a-z-]+", text)))
            check(not escaped, f"attacks got through: {escaped}")
            check(text.count("held-io-uring") >= 2 and text.count("held-untraced") >= 2,
                  "the io_uring and untraced-child attempts did not run in both phases")
            leftovers = [os.path.join(d, f) for d, _, fs in os.walk(work) for f in fs if tag in f]
            check(not leftovers, f"the sandbox wrote onto the host's disk: {leftovers}")
        with open(knob, encoding="utf-8") as fh:
            check(fh.read() == knob_before, f"the host's {knob} changed")
    finally:
        with open(knob, "w", encoding="utf-8") as fh:
            fh.write(knob_before)
    print("ok: every attack was held in both phases", file=sys.stderr)


def case_overlay_mounts():
    """Who mounts the overlay (overlay_mount.h). Run as root, the keeper does: a program
    renames a directory of the OS root, and removes one and makes it again, as on a real
    machine. Forced to mount its own (what a rootless sandbox does), the sandbox still gives
    the example's findings, holds the third review's attacks, and says the one thing it cannot
    do: the rename fails inside (EXDEV), never on the host."""
    code = ("exec { 'rename dir': command => \"/usr/bin/perl -e 'rename(q{/usr/share/doc/bash}, "
            "q{/usr/share/doc/bash.moved}) or die qq{rename: $!}'\" }\n"
            "exec { 'remake dir': command => \"/bin/sh -c 'rm -rf /usr/share/doc/dash && "
            "mkdir /usr/share/doc/dash && touch /usr/share/doc/dash/again'\" }\n")
    roots = "/var/cache/fsmove/roots"
    before = sorted(os.listdir(roots)) if os.path.isdir(roots) else []

    def failed_in(env):
        with tempfile.TemporaryDirectory() as tmp:
            out = os.path.join(tmp, "report.json")
            p = fsmove("check", "-q", "--format", "json", "-o", out, "--allow-failed", "-e", code,
                       "--modulepath", tmp, "--work-dir", tmp, env=env)
            check(p.returncode in (0, 1), f"exit code {p.returncode}")
            with open(out, encoding="utf-8") as fh:
                report = json.load(fh)
        return {f["resource"] for f in report["run"].get("failed_resources", [])}

    failed = failed_in(None)
    check(not failed, f"with the keeper's overlay, these failed: {sorted(failed)}")
    own = dict(os.environ, FSMOVE_SANDBOX_OVERLAY="sandbox")
    failed = failed_in(own)
    check("Exec[rename dir]" in failed, f"the sandbox's own overlay renamed a directory: {sorted(failed)}")
    check("Exec[remake dir]" not in failed, "the sandbox's own overlay could not remake a directory")
    check(os.path.isdir("/usr/share/doc/bash") and not os.path.exists("/usr/share/doc/bash.moved"),
          "the host's /usr/share/doc/bash changed")
    check(before == (sorted(os.listdir(roots)) if os.path.isdir(roots) else []), "the root cache changed")
    example = os.path.join(ARGS.source, "fixtures", "example", "cachedemo")
    check_json([example], read_expected(os.path.join(ARGS.source, "fixtures", "example", "EXPECTED.txt")),
               env=own)
    sandbox3_attacks(dict(own))
    print("ok: both ways of mounting the overlay", file=sys.stderr)


def case_forged_verdict():
    """Code of the module tries to change the verdict: at compile time it replaces the root's
    strace with a program that traces nothing; at apply time an exec rewrites Puppet's graph.
    The example's two findings stay."""
    example = os.path.join(ARGS.source, "fixtures", "example", "cachedemo")
    expected = read_expected(os.path.join(ARGS.source, "fixtures", "example", "EXPECTED.txt"))
    with tempfile.TemporaryDirectory() as tmp:
        site = os.path.join(tmp, "site.pp")
        with open(site, "w", encoding="utf-8") as fh:
            fh.write("$x = generate('/bin/sh', '-c', 'printf \"#!/bin/sh\\nshift \\$((\\$# - 1))\\nexec \\\"\\$@\\\"\\n\" > /usr/bin/strace; echo')\n"
                     "include cachedemo\n"
                     "exec { 'forge graph': command => '/bin/sh -c \"echo digraph { } > /run/fsmove/graphs/expanded_relationships.dot\"' }\n")
        check_json([site, "--modulepath", os.path.dirname(example)], expected)


def case_tamper():
    """Module code rewrites what the analysis reads from the work directory: the catalog, the
    trace FIFO (by its name, and through strace's descriptors in /proc), and Puppet's log (a
    symlink to a root-only host file). The findings stay those of the run, nothing of the host
    file reaches the log the user asked for."""
    code = ("file { '/etc/fsmove-tamper.conf': ensure => file, content => \"x\\n\" }\n"
            "exec { '/bin/cat /etc/fsmove-tamper.conf': }\n"
            "exec { 'tamper catalog': command => '/bin/sh -c \"echo {} > /run/fsmove/catalog.json\"' }\n"
            "exec { 'tamper trace': command => '/bin/sh -c \"echo 1 garbage > /run/fsmove/trace.fifo\"',"
            " timeout => 5 }\n"
            "exec { 'tamper log': command => '/bin/ln -sf /etc/shadow /run/fsmove/puppet.log' }\n"
            # strace's own descriptors (the FIFO it writes the trace into), through /proc.
            "file { '/usr/local/bin/fd-tamper': mode => '0755', content => '#!/bin/sh\n"
            "for p in /proc/[0-9]*; do\n"
            "  [ \"$(cat $p/comm 2>/dev/null)\" = strace ] || continue\n"
            "  for f in $p/fd/*; do (echo 1 garbage > $f) 2>/dev/null; done\n"
            "done\n"
            "exit 0\n' }\n"
            "exec { '/usr/local/bin/fd-tamper': timeout => 10, require => File['/usr/local/bin/fd-tamper'] }\n")
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "puppet.log")
        out = os.path.join(tmp, "report.json")
        p = fsmove("check", "-q", "--format", "json", "-o", out, "--puppet-log", log, "-e", code)
        check(p.returncode in (0, 1), f"exit code {p.returncode}")
        with open(out, encoding="utf-8") as fh:
            report = json.load(fh)
        got = findings_of(report)
        check(got == ["MOR\tFile[/etc/fsmove-tamper.conf]\tExec[/bin/cat /etc/fsmove-tamper.conf]"],
              "findings changed: " + repr(got))
        check(report["stats"]["unparsed_lines"] == 0, "lines written into the trace FIFO were read")
        with open("/etc/shadow", encoding="utf-8") as fh:
            shadow_first = fh.readline().strip()
        if os.path.exists(log):
            with open(log, encoding="utf-8", errors="replace") as fh:
                check(shadow_first not in fh.read(), "the host's /etc/shadow was copied into --puppet-log")
    print("ok: tampering changed nothing", file=sys.stderr)


def case_pids_limit():
    """A module that forks without end, in both phases, stops at the sandbox's process limit
    (--pids-limit; a bounded count here: 64): the run goes on, its notes say the limit was
    hit, and nothing of it is left on the host."""
    # The loop runs in a subshell: the shell that forks it stays (a failed fork ends a shell).
    bomb = "(i=0; while [ $i -lt 300 ]; do sleep 5 & i=$((i+1)); done); true"
    code = (f"$x = generate('/bin/sh', '-c', '{bomb}')\n"
            # (Ruby runs the exec's command through a shell: its $ are escaped for it.)
            f"exec {{ 'bomb': command => '/bin/sh -c \"{bomb.replace('$', chr(92) + '$')}\"' }}\n")
    p = fsmove("check", "-q", "--format", "json", "--pids-limit", "64", "--allow-failed", "-e", code)
    check(p.returncode in (0, 1), f"exit code {p.returncode}")
    report = json.loads(p.stdout)
    hits = [n for n in report["run"]["limits_hit"] if "process limit (64 processes)" in n]
    check(len(hits) == 2, f"the process limit was not said hit in both sandboxes: {report['run']['limits_hit']}")
    assert_nothing_left("sleep 5")
    print("ok: the fork bomb stopped at the limit", file=sys.stderr)


def case_memory_limit():
    """Module code that allocates without end is killed inside the sandbox's memory limit; the
    run goes on, its notes say the limit was hit, and the cgroup is gone afterwards."""
    # perl-base is essential in Debian: on the host and in every pinned root.
    code = ("exec { 'hog': command => '/usr/bin/perl -e \"\\$x = chr(0) x (2000 * 1024 * 1024)\"' }\n"
            "file { '/etc/fsmove-after-hog': content => \"x\\n\" }\n")
    p = start_check("--format", "json", "--memory-limit", "600M", "--allow-failed", "-e", code)
    out, _ = finish(p, 600)
    check(p.returncode in (0, 1), f"exit code {p.returncode}")
    report = json.loads(out)
    if any(n.startswith("no memory limit:") for n in report["run"]["notes"]):
        print("skipped: this machine gives no memory cgroup: " + repr(report["run"]["notes"]),
              file=sys.stderr)
        sys.exit(SKIP)
    failed = [f["resource"] for f in report["run"]["failed_resources"]]
    check(failed == ["Exec[hog]"], f"failed resources: {failed}")
    check(any("hit its memory limit (600 MiB)" in n for n in report["run"]["limits_hit"]),
          "the limit is not reported: " + repr(report["run"]["notes"]))
    # Only this fsmove's cgroups: checks running alongside (ctest -j) have their own.
    left = cgroups_of(p.pid)
    check(not left, "cgroups left behind: " + " ".join(left))
    print("ok: the hog was stopped inside the sandbox", file=sys.stderr)


def systemd_cgroups_of(fsmove_pid):
    """cgroup2 cgroups --init systemd made for fsmove process `fsmove_pid` and left (on a
    cgroup v1 host the unified hierarchy is mounted nowhere: look in a private mount)."""
    with tempfile.TemporaryDirectory() as mnt:
        out = subprocess.run(["unshare", "-m", "sh", "-c",
                              f"mount -t cgroup2 none {mnt} 2>/dev/null && ls {mnt}"],
                             capture_output=True, text=True).stdout.split()
    return [d for d in out if d.startswith(f"fsmove-{fsmove_pid}-")]


def case_systemd():
    """--init systemd: systemd boots as PID 1 of the sandbox, a Service's systemctl start
    makes PID 1 start the daemon, and the daemon's reads are charged to that Service. On the
    example (Debian's unit runs a wrapper that never opens the log file, so only the missing
    notifier is left), with Puppet 7 and 8, and on a fixture whose service is a unit of its
    own; the cgroups made for systemd are gone afterwards."""
    example = os.path.join(ARGS.source, "fixtures", "example", "cachedemo")
    mn = ["MN\tFile[/etc/memcached.conf]\tService[memcached]"]

    def booted(report):
        run = report["run"]
        check(run["init"] == "systemd", f"init {run['init']!r}")
        check(any(n.startswith("systemd booted") for n in run["notes"]), "no boot note: " + repr(run["notes"]))

    check_json(["--init", "systemd", example], mn, booted)
    check_json(["--init", "systemd", "--root", "debian-13", example], mn, booted)
    unit = os.path.join(ARGS.source, "fixtures", "faults", "systemd-unit")
    check_json(["--init", "systemd", os.path.join(unit, "bad.pp")],
               ["MN\tFile[/etc/default/fsmove-demo]\tService[fsmove-demo]",
                "MN\tFile[/etc/systemd/system/fsmove-demo.service]\tService[fsmove-demo]",
                "MN\tFile[/usr/local/bin/fsmove-demo]\tService[fsmove-demo]"], booted)
    p = start_check("--format", "json", "--init", "systemd", os.path.join(unit, "fixed.pp"))
    out, _ = finish(p, 600)
    check(p.returncode == 0 and not json.loads(out)["faults"], f"fixed.pp: exit {p.returncode}")
    left = systemd_cgroups_of(p.pid)
    check(not left, "systemd's cgroups left behind: " + " ".join(left))
    p = fsmove("check", "-q", "--init", "systemd", "--sandbox", "none", "-e", "notify { 'x': }")
    check(p.returncode == 2 and "needs the overlay sandbox" in p.stderr, "--init systemd --sandbox none accepted")
    print("ok: systemd as PID 1", file=sys.stderr)


def case_systemd_killed():
    """A check under --init systemd stopped by Ctrl-C: the keeper is killed, so the executor
    removes the cgroups the sandbox made (on a cgroup v1 host, systemd's cgroup2 one with
    the cgroups systemd made inside it)."""
    p = start_check("--init", "systemd", "-e", hang(598))
    wait_for_descendant(p.pid, r"^/bin/sleep 598")
    p.send_signal(signal.SIGINT)
    finish(p, 60)
    check(p.returncode == 130, f"exit code {p.returncode}, expected 130")
    assert_nothing_left("sleep 598", p.pid)


def case_tmpfs_full():
    """Every tmpfs of the sandbox has a size limit; one that is full when the run ends is
    named in the run's notes. /dev (64 KiB) fills at once; /tmp stays below its limit."""
    code = ("exec { 'fill': command => '/bin/sh -c \"head -c 1048576 /dev/zero > /dev/fill\"' }\n"
            "exec { 'small': command => '/bin/sh -c \"head -c 4096 /dev/zero > /tmp/small\"' }\n")
    p = fsmove("check", "-q", "--format", "json", "--allow-failed", "-e", code)
    check(p.returncode in (0, 1), f"exit code {p.returncode}")
    report = json.loads(p.stdout)
    failed = [f["resource"] for f in report["run"]["failed_resources"]]
    check(failed == ["Exec[fill]"], f"failed resources: {failed}")
    full = [n for n in report["run"]["notes"] if "was full when the run ended" in n]
    check(len(full) == 1 and "sandbox's /dev (a tmpfs, 64 KiB)" in full[0],
          "the full /dev is not reported (or more is): " + repr(report["run"]["notes"]))
    check(report["run"]["limits_hit"] == full, "run.limits_hit: " + repr(report["run"]["limits_hit"]))
    p = fsmove("check", "-q", "-e", code)
    check("warning: the sandbox's /dev (a tmpfs, 64 KiB) was full" in p.stdout,
          "the text report does not warn of the full /dev")
    print("ok: the full tmpfs is reported", file=sys.stderr)


def case_argv_injection():
    """Targets and code reach Puppet as argv entries: shell syntax in them does nothing."""
    with tempfile.TemporaryDirectory() as tmp:
        pwned = os.path.join(tmp, "pwned")
        target = f"{tmp}/x; touch {pwned}"
        p = fsmove("check", "-q", "--sandbox", "none", target)
        check(p.returncode == 2, f"exit code {p.returncode}")
        check("no such module directory or manifest" in p.stderr and target in p.stderr,
              "the error does not name the missing target")
        check(not os.path.exists(pwned), "shell syntax in the target was executed")
        # A module directory whose name has shell syntax is just an invalid module name.
        moddir = os.path.join(tmp, "x;touch pwned")
        os.makedirs(os.path.join(moddir, "manifests"))
        open(os.path.join(moddir, "manifests", "init.pp"), "w").close()
        p = fsmove("check", "-q", "--sandbox", "none", moddir)
        check(p.returncode == 2 and "not a valid Puppet module name" in p.stderr, "bad module name accepted")
        # Code with shell syntax in a title is Puppet code, applied on the host (--sandbox
        # none): the title is only printed.
        p = fsmove("check", "-q", "--sandbox", "none", "--format", "json",
                   "-e", f"notify {{ 'a; touch {pwned}; $(touch {pwned})': }}")
        check(p.returncode == 0, f"exit code {p.returncode}")
        check(not os.path.exists(pwned), "shell syntax in -e code was executed")


def case_missing_tools():
    # The host's own Puppet and strace (a pinned root brings its own).
    env = dict(os.environ, FSMOVE_PUPPET="/nonexistent/puppet")
    p = fsmove("check", "-q", "--root", "host", "-e", "notify { 'x': }", env=env)
    check(p.returncode == 2 and "puppet not found" in p.stderr and "apt-get install puppet-agent" in p.stderr,
          "missing puppet not reported with the install command")
    env = dict(os.environ, FSMOVE_STRACE="/nonexistent/strace")
    p = fsmove("check", "-q", "--root", "host", "-e", "notify { 'x': }", env=env)
    check(p.returncode == 2 and "strace not found" in p.stderr and "apt-get install strace" in p.stderr,
          "missing strace not reported with the install command")


def case_not_root():
    # The binary must be reachable by an unprivileged user: copy it to a world-readable place.
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        binary = os.path.join(tmp, "fsmove")
        shutil.copy(ARGS.fsmove, binary)
        os.chmod(binary, 0o755)
        drop = ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
        p = subprocess.run(drop + [binary, "check", "-q", "-e", "notify { 'x': }"],
                           capture_output=True, text=True, timeout=120, cwd=tmp)
        print(f"  exit {p.returncode}: {p.stderr.strip()}", file=sys.stderr)
        # Rootless needs a subordinate id range, which nobody has: refused with what to do,
        # never an apply to this machine.
        check(p.returncode == 2, f"exit code {p.returncode}")
        check("subuid" in p.stderr and "usermod --add-subuids" in p.stderr,
              "the refusal does not say why and what to do")


def case_ptrace_denied():
    # Under a tracer, strace's own ptrace(PTRACE_TRACEME) is refused: the real error users
    # get in containers without CAP_SYS_PTRACE.
    p = fsmove("check", "-q", "-e", "notify { 'x': }",
               prefix=["strace", "-f", "-qq", "-e", "trace=none", "-o", "/dev/null", "--"])
    check(p.returncode == 2, f"exit code {p.returncode}")
    check("ptrace" in p.stderr and "SYS_PTRACE" in p.stderr, "ptrace refusal not explained")


def case_compile_fails():
    p = fsmove("check", "-q", "-e", "file { '/tmp/x': ensure => }")
    check(p.returncode == 2, f"exit code {p.returncode}")
    check("could not compile" in p.stderr and "Syntax error" in p.stderr,
          "Puppet's compile error not shown")
    # A manifest (not a module) using a module that is not on the modulepath: the hint, and
    # Puppet's error once.
    with tempfile.TemporaryDirectory() as tmp:
        manifest = os.path.join(tmp, "site.pp")
        with open(manifest, "w", encoding="utf-8") as fh:
            fh.write("include fsmove_absent_module\n")
        p = fsmove("check", "-q", manifest)
        check(p.returncode == 2, f"exit code {p.returncode}")
        check("--modulepath DIR" in p.stderr, "no --modulepath hint for a manifest")
        errors = [l for l in p.stderr.splitlines() if "fsmove_absent_module" in l]
        check(len(errors) == 1, f"Puppet's error printed {len(errors)} times")


def case_apply_fails():
    code = ("exec { 'fails': command => '/bin/false' }\n"
            "file { '/etc/fsmove-after': ensure => file, require => Exec['fails'] }\n"
            "file { '/etc/fsmove-other': ensure => file }\n")
    p = fsmove("check", "-q", "--format", "json", "-e", code)
    # The check saw only part of the apply: exit 3, and the report says what it did not see.
    check(p.returncode == 3, f"exit code {p.returncode}")
    report = json.loads(p.stdout)
    failed = [f["resource"] for f in report["run"]["failed_resources"]]
    check(failed == ["Exec[fails]"], f"failed resources: {failed}")
    check(report["stats"]["markers"]["begin"] > 0, "nothing analysed")
    gaps = report["completeness"]
    check(not gaps["complete"] and [f["resource"] for f in gaps["failed"]] == ["Exec[fails]"]
          and [f["resource"] for f in gaps["skipped"]] == ["File[/etc/fsmove-after]"],
          f"completeness: {gaps}")
    p = fsmove("check", "-q", "--allow-failed", "-e", code)
    check(p.returncode == 0, f"--allow-failed: exit code {p.returncode}")
    # Without -q but with stderr not a terminal: still no progress display.
    p = fsmove("check", "-e", code)
    check("1 resource failed" in p.stdout and "Exec[fails]" in p.stdout, "failure not in the text report")
    check("\x1b[K" not in p.stderr and "resource 1 of" not in p.stderr,
          "progress shown although stderr is not a terminal")
    # A service whose start prints a warning, then the real cause on the next line (as
    # fail2ban did): the failed resource carries both.
    start = "/bin/sh -c 'echo WARNING harmless; echo ERROR the real cause; exit 1'"
    code = (f"service {{ 'fsmove-fails': ensure => running, provider => base, "
            f"start => \"{start}\", status => '/bin/false' }}\n")
    # The host's root: the base service provider needs kill(1), which the pinned roots lack.
    p = fsmove("check", "-q", "--root", "host", "--format", "json", "-e", code)
    check(p.returncode == 3, f"exit code {p.returncode}")
    failed = json.loads(p.stdout)["run"]["failed_resources"]
    check(len(failed) == 1 and failed[0]["resource"] == "Service[fsmove-fails]", f"failed: {failed}")
    check("WARNING harmless" in failed[0]["message"] and "ERROR the real cause" in failed[0]["message"],
          f"the failed resource's error is cut: {failed[0]['message']!r}")


def case_progress():
    """On a terminal (a pty made by util-linux `script`), the progress line shows each phase
    and each resource as Puppet's markers stream past; -q silences it."""
    import shlex
    code = "file { '/etc/fsmove-progress': ensure => file }\n"
    for quiet in (False, True):
        cmd = [ARGS.fsmove, "check", "-e", code] + (["-q"] if quiet else [])
        p = subprocess.run(["script", "-qefc", " ".join(shlex.quote(c) for c in cmd), "/dev/null"],
                           capture_output=True, text=True, timeout=600)
        out = p.stdout
        print(f"  exit {p.returncode}, {len(out)} bytes on the terminal", file=sys.stderr)
        check(p.returncode == 0, f"exit code {p.returncode}")
        shown = all(t in out for t in ("compiling the catalog", "applying the catalog",
                                       "File[/etc/fsmove-progress]", " of "))
        check(shown != quiet, ("progress missing on a terminal" if not quiet
                               else "progress shown with -q") + ": " + repr(out[:2000]))


def hang(seconds):
    """A manifest whose exec runs `/bin/sleep SECONDS`: a distinct number per case, so cases
    running in parallel never look at each other's processes."""
    return f"exec {{ 'hang': command => '/bin/sleep {seconds}', timeout => 0 }}\n"


def case_timeout():
    t0 = time.time()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        p = fsmove("check", "-q", "--json-output", out, "--timeout", "25", "-e", hang(587), timeout=300)
        with open(out, encoding="utf-8") as fh:
            report = json.load(fh)
    check(p.returncode == 2, f"exit code {p.returncode}")
    check("did not finish within 25 s" in p.stderr, "timeout not reported")
    check(time.time() - t0 < 120, "the timeout was not enforced promptly")
    check(report["run"]["timed_out"], "report does not say timed out")
    check(report["run"]["timed_out_phase"] == "apply", f"phase: {report['run']['timed_out_phase']}")
    # The text report does not call a stopped apply clean.
    check("No missing ordering relationships or notifiers found." not in p.stdout
          and "the apply did not finish (timed out (--timeout) while applying the catalog)" in p.stdout,
          "the text report calls a timed-out run clean")
    # The analysis's own time, not the 25 s it waited for Puppet.
    check(report["stats"]["seconds"]["parse_interpret"] < 10,
          f"parse_interpret includes the wait: {report['stats']['seconds']}")
    assert_nothing_left("sleep 587")


def case_timeout_compile():
    """--timeout while Puppet compiles: reported as such, with no report of a run that never
    happened (no "nothing found", no missing-markers warning)."""
    code = "Integer[0, 999999999].each |$i| { }\nnotify { 'never': }\n"
    p = fsmove("check", "-q", "--timeout", "20", "-e", code, timeout=300)
    check(p.returncode == 2, f"exit code {p.returncode}")
    check("was still compiling the catalog after 20 s (--timeout)" in p.stderr, "compile timeout not reported")
    check("No missing" not in p.stdout and "evaltrace" not in p.stderr and "could not compile" not in p.stderr,
          "a run that never happened was reported")


def case_report_notes():
    """Without --save-trace the text report says once that its line numbers refer to a trace
    that was not kept; the report names the catalog as the user can find it."""
    target = os.path.join(ARGS.source, "fixtures", "faults", "configure-use", "bad.pp")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "r.json")
        p = fsmove("check", "-q", "--json-output", out, target)
        check(p.returncode == 1, f"exit code {p.returncode}")
        check(p.stdout.count("which was not kept: run with --save-trace FILE") == 1,
              "no (single) note that the trace was not kept")
        with open(out, encoding="utf-8") as fh:
            report = json.load(fh)
        check(report["trace_kept"] is False, "trace_kept")
        check("--save-catalog" in report["catalog"] and "fsmove-check." not in report["catalog"],
              f"catalog named by a temporary path: {report['catalog']}")


def case_work_dir():
    """The work directory is private (0700: it holds the catalog and Puppet's log), removed
    after a clean run, kept and named after one that went wrong or with --keep-work."""
    with tempfile.TemporaryDirectory() as tmp:
        p = fsmove("check", "-q", "--work-dir", tmp, "-e", "notify { 'clean': }")
        check(p.returncode == 0, f"exit code {p.returncode}")
        check(os.listdir(tmp) == [], f"a clean run left {os.listdir(tmp)}")
        check("Puppet's log: not kept (--puppet-log FILE keeps it)" in p.stdout,
              "the report points at a removed log")
        for args, why in ((["--keep-work", "-e", "notify { 'kept': }"], "--keep-work"),
                          (["-e", "exec { 'fails': command => '/bin/false' }"], "a failed resource")):
            p = fsmove("check", "-q", "--work-dir", tmp, *args)
            kept = re.search(r"work directory \(Puppet's log\) is kept: (\S+)", p.stderr)
            check(kept is not None, f"work directory not kept or not named ({why})")
            work = kept.group(1)
            check(os.path.dirname(work) == tmp and os.stat(work).st_mode & 0o777 == 0o700,
                  f"{work} is not private: {oct(os.stat(work).st_mode)}")
            check(os.path.getsize(os.path.join(work, "out", "puppet.log")) > 0, "Puppet's log not in it")
            check(f"Puppet's log: {work}/out/puppet.log" in p.stdout, "the report does not name the log")
            shutil.rmtree(work)


def case_outputs():
    """Outputs are checked before Puppet runs (an unwritable -o is not found after the run)."""
    with tempfile.TemporaryDirectory() as tmp:
        for option in ("-o", "--json-output", "--save-catalog", "--puppet-log", "--save-graph"):
            bad = os.path.join(tmp, "nodir", "out")
            p = fsmove("check", "-q", option, bad, "-e", "notify { 'x': }", timeout=60)
            check(p.returncode == 2, f"{option}: exit code {p.returncode}")
            check(f"cannot write {bad}: {tmp}/nodir: No such file or directory" in p.stderr,
                  f"{option}: no error with the reason")
            check("network:" not in p.stderr, f"{option}: the sandbox was set up before the check")
        # An old report is replaced whole, and no temporary file is left beside it.
        out = os.path.join(tmp, "report.json")
        with open(out, "w", encoding="utf-8") as fh:
            fh.write("old\n")
        p = fsmove("check", "-q", "--format", "json", "-o", out, "-e", "notify { 'x': }")
        check(p.returncode == 0, f"exit code {p.returncode}")
        with open(out, encoding="utf-8") as fh:
            check(json.load(fh)["summary"]["MOR"] == 0, "report not written")
        check(sorted(os.listdir(tmp)) == ["report.json"], f"left beside the report: {os.listdir(tmp)}")


def background(seconds):
    """Exec code that leaves `/bin/sleep SECONDS` running in a session of its own, as a
    daemon would: no process group or session holds it."""
    return (f"exec {{ 'bg': command => '/usr/bin/setsid /bin/sleep {seconds} </dev/null >/dev/null 2>&1 &',"
            f" provider => shell }}\n")


def wait_gone(marker, limit=15):
    deadline = time.time() + limit
    while time.time() < deadline:
        if not any(marker in cmd and not cmd.startswith(ARGS.fsmove) for _, cmd in processes().values()):
            return
        time.sleep(0.2)


def case_host_tree():
    """--sandbox none has no PID namespace to end the check's processes: a cgroup of its own
    holds them, so what an exec starts with setsid dies with the check at the run's end (and
    is named), at a --timeout, and when fsmove itself is SIGKILLed."""
    p = fsmove("check", "-q", "--sandbox", "none", "--format", "json", "-e", background(571), timeout=300)
    check(p.returncode == 0, f"exit code {p.returncode}")
    notes = json.loads(p.stdout)["run"]["notes"]
    check(any(re.match(r"left running at the end \(killed\): \d+ sleep", n) for n in notes),
          f"the leftover is not named: {notes}")
    assert_nothing_left("sleep 571")

    p = fsmove("check", "-q", "--sandbox", "none", "--timeout", "20", "-e",
               background(572) + "Exec['bg'] -> " + hang(573), timeout=300)
    check(p.returncode == 2 and "did not finish within 20 s" in p.stderr, "timeout not reported")
    wait_gone("sleep 57")
    assert_nothing_left("sleep 572")
    assert_nothing_left("sleep 573")

    p = start_check("--sandbox", "none", "-e", background(574) + "Exec['bg'] -> " + hang(575))
    wait_for_descendant(p.pid, r"^/bin/sleep 575")
    wait_for_descendant(p.pid, r"^/bin/sleep 574")
    p.kill()
    p.wait()
    wait_gone("sleep 57", limit=30)
    assert_nothing_left("sleep 574", p.pid)
    assert_nothing_left("sleep 575")
    check(not cgroups_of(p.pid), "the check's cgroup outlived fsmove")


def case_interrupt():
    p = start_check("-e", hang(588))
    wait_for_descendant(p.pid, r"^/bin/sleep 588")
    t0 = time.time()
    p.send_signal(signal.SIGINT)
    _, err = finish(p, 60)
    check(p.returncode == 130, f"exit code {p.returncode}, expected 130")
    check("interrupted" in err, "interruption not reported")
    check(time.time() - t0 < 30, "Ctrl-C took too long")
    assert_nothing_left("sleep 588", p.pid)
    work = re.search(r"logs in (\S+)", err)
    check(work and not os.path.exists(os.path.join(work.group(1), "sandbox")),
          "the sandbox directory was not removed")


def case_puppet_killed():
    p = start_check("--format", "json", "-e", hang(589))
    wait_for_descendant(p.pid, r"^/bin/sleep 589")
    puppet = wait_for_descendant(p.pid, r"^\S*ruby\S* \S*puppet apply --catalog")
    os.kill(puppet, signal.SIGKILL)
    out, err = finish(p, 120)
    check(p.returncode == 2, f"exit code {p.returncode}")
    check("killed by signal 9" in err, "Puppet's death not reported")
    report = json.loads(out)
    check(report["run"]["puppet_exit_code"] == 137, "exit code 137 not in the report")
    assert_nothing_left("sleep 589", p.pid)


def case_strace_killed():
    code = "exec { 'slow': command => '/bin/sleep 9' }\nfile { '/etc/fsmove-x': ensure => file }\n"
    p = start_check("--format", "json", "-e", code)
    wait_for_descendant(p.pid, r"^/bin/sleep 9")
    tracer = wait_for_descendant(p.pid, r"^\S*strace .*trace\.fifo")
    os.kill(tracer, signal.SIGKILL)
    out, err = finish(p, 180)
    check(p.returncode == 2, f"exit code {p.returncode}")
    check("trace ends before Puppet did" in err, "incomplete trace not reported")
    report = json.loads(out)
    check(not report["run"]["trace_complete"], "report says the trace is complete")



def case_strace_killed_inside():
    """Module code kills the tracer from inside the sandbox (pkill as root there, first of the
    resources): what follows runs untraced, so the verdict must say the trace is incomplete
    (exit 2), never pass as a clean or smaller one."""
    code = ("exec { 'kill the tracer': command => '/bin/sh -c \"pkill -KILL -x strace; sleep 1\"' }\n"
            "file { '/etc/fsmove-after': ensure => file, require => Exec['kill the tracer'] }\n"
            "exec { '/bin/cat /etc/fsmove-after': }\n")
    p = fsmove("check", "--format", "json", "-e", code)
    check(p.returncode == 2, f"exit code {p.returncode}: {p.stderr[-2000:]}")
    report = json.loads(p.stdout)
    check(not report["run"]["trace_complete"], "report says the trace is complete")

if __name__ == "__main__":
    sys.exit(main(globals()))
