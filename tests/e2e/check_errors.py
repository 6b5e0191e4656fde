"""Cases of check_e2e.py: what the user is told. Missing tools, no root, ptrace refused,
Puppet failing to compile or to apply, the progress line, the report's notes, the work
directory, and outputs checked before the run."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

from e2e_lib import ARGS, check, fsmove


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
