"""What the cases of `fsmove check` (check_*.py) share: running a check and judging its JSON
report against expected findings, the arguments that rerun a recorded fixture, and the
processes, cgroups and mounts a run must not leave behind."""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

from e2e_lib import ARGS, check, fail, fsmove, processes


_validator = None


def valid_report(report):
    """REPORT, after checking it against the JSON report's schema (docs/json-report.schema.json):
    every live check's report, with its "run" section, is validated as the ci tier validates
    the recorded runs' (tests/ci/json_schema_test.py)."""
    global _validator
    import jsonschema  # here: the scripts that never read a report do not need it
    if _validator is None:
        with open(os.path.join(ARGS.source, "docs", "json-report.schema.json"),
                  encoding="utf-8") as fh:
            schema = json.load(fh)
        _validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(_validator.iter_errors(report), key=lambda e: list(e.path))
    for error in errors[:5]:
        print(f"schema: {'/'.join(map(str, error.path))}: {error.message}", file=sys.stderr)
    check(not errors, f"the report does not match docs/json-report.schema.json ({len(errors)} errors)")
    return report


def findings_of(report, confidence=False):
    """KIND, source and target of each fault, tab-separated; with `confidence`, as
    expected-findings.txt has them: a fourth field `low` for a low-confidence one (what only
    --all shows)."""
    return sorted(f"{f['kind']}\t{f['source']['resource']}\t{f['target']['resource']}"
                  + ("\tlow" if confidence and f.get("confidence") == "low" else "")
                  for f in report["faults"])


def shown(findings):
    """The findings of findings_of() that the default report shows and that make the exit 1."""
    return [f for f in findings if not f.endswith("\tlow")]


def read_expected(path):
    with open(path, encoding="utf-8") as fh:
        return sorted(l.rstrip("\n") for l in fh if l.strip() and not l.startswith("#"))


def check_every_path_read(report):
    """strace read every process's paths, those of one that changed its user too (apt's
    download as _apt, Puppet's own after a File's owner switch): it holds CAP_SYS_PTRACE."""
    n = report["stats"]["undecodable_paths"]
    check(n == 0, f"{n} arguments strace printed as addresses")


def check_sound_run(report):
    """What every judged live check must show besides its findings: Puppet applied the whole
    catalog, strace saw all of it, every line parsed, and Puppet's markers were read. The
    replay and patch tests judge their first check with it too, so that a fixture they cover
    needs no check of its own in CI (tests/CMakeLists.txt)."""
    check(report["stats"]["unparsed_lines"] == 0, "unparsed lines in the trace")
    check_every_path_read(report)
    check(report["run"]["trace_complete"], "trace incomplete")
    check(report["run"]["puppet_exit_code"] == 0, "puppet apply failed: " + repr(report["run"]))
    check(report["stats"]["markers"]["begin"] > 0, "no evaltrace markers seen")


def check_json(args, expected, extra_checks=None, env=None):
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report.json")
        # Judged on its findings: a recorded fixture may fail resources (exit 3 otherwise).
        p = fsmove("check", "-q", "--format", "json", "-o", out, "--allow-failed", *args, env=env)
        check(p.returncode in (0, 1), f"exit code {p.returncode}, expected 0 or 1")
        with open(out, encoding="utf-8") as fh:
            report = valid_report(json.load(fh))
    got = findings_of(report, confidence=True)
    if got != expected:
        fail("findings differ\n  expected: " + repr(expected) + "\n  got:      " + repr(got))
    check(p.returncode == (1 if shown(expected) else 0),
          f"exit code {p.returncode} for {len(got)} findings")
    check_sound_run(report)
    if extra_checks:
        extra_checks(report)
    print(f"ok: {len(got)} finding(s) as expected", file=sys.stderr)


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
            return p.returncode, valid_report(json.load(fh))


def hang(seconds):
    """A manifest whose exec runs `/bin/sleep SECONDS`: a distinct number per case, so cases
    running in parallel never look at each other's processes."""
    return f"exec {{ 'hang': command => '/bin/sleep {seconds}', timeout => 0 }}\n"
