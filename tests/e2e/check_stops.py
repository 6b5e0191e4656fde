"""Cases of check_e2e.py: runs that do not end by themselves: --timeout (while compiling and
applying), Ctrl-C, Puppet or strace killed from outside or inside, and what a check without
a sandbox leaves running."""
import json
import os
import re
import signal
import tempfile
import time

from check_lib import assert_nothing_left, cgroups_of, finish, hang, start_check, wait_for_descendant
from e2e_lib import ARGS, check, fsmove, processes


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
    # The apply's time until it was stopped, not 0 as for an apply that never ran.
    check(0 < report["run"]["apply_seconds"] <= 30, f"apply_seconds: {report['run']['apply_seconds']}")
    # The text report does not call a stopped apply clean.
    check("No missing ordering relationships or notifiers found." not in p.stdout
          and "the apply did not finish (timed out (--timeout) while applying the catalog)" in p.stdout,
          "the text report calls a timed-out run clean")
    # It names the resource Puppet was still at, when Puppet got to one in the 25 s (a loaded
    # machine may still be starting Puppet).
    check("before it applied its first resource" in p.stderr
          or "while Puppet was applying Exec[hang]: its block began at trace line" in p.stdout,
          "the report does not name the resource the apply stopped in")
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
    is named), at a --timeout, and when fsmove itself is SIGKILLed; --pids-limit is a pids
    cgroup over them."""
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

    # --pids-limit holds on the host too (a pids cgroup over the check's processes): 80
    # short sleeps started at once against a limit of 48.
    many = ("exec { 'many': command => 'for i in $(seq 80); do /bin/sleep 2 & done; wait; true',"
            " provider => shell }\n")
    p = fsmove("check", "-q", "--sandbox", "none", "--pids-limit", "48", "--format", "json",
               "--allow-failed", "-e", many, timeout=300)
    check(p.returncode in (0, 3), f"exit code {p.returncode}")
    hits = json.loads(p.stdout)["run"]["limits_hit"]
    check(any("the check hit its process limit (48 processes)" in n for n in hits),
          f"the process limit on the host was not said hit: {hits}")


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


def case_interrupt_fix():
    """SIGTERM while --fix-diff re-checks the patched copy: no further re-check is started,
    the check ends at once with 143, and the report says the patch was not verified because
    of the signal (it went on with one re-check per patch, each a sandbox, before)."""
    code = """file { '/etc/fsmove-fix-int.conf':
  ensure  => file,
  content => "x\\n",
}

exec { 'read it slowly':
  command => "/bin/sh -c 'cat /etc/fsmove-fix-int.conf; /bin/sleep 21'",
  timeout => 0,
}

exec { 'read it too':
  command => '/bin/cat /etc/fsmove-fix-int.conf',
}
"""
    with tempfile.TemporaryDirectory() as tmp:
        manifest = os.path.join(tmp, "site.pp")
        with open(manifest, "w", encoding="utf-8") as fh:
            fh.write(code)
        diff = os.path.join(tmp, "fix.diff")
        p = start_check("--format", "json", "--fix-diff", diff, manifest)
        first = wait_for_descendant(p.pid, r"^/bin/sleep 21$")
        while os.path.exists(f"/proc/{first}"):  # the check's own apply
            time.sleep(0.2)
        second = wait_for_descendant(p.pid, r"^/bin/sleep 21$")  # the re-check's
        check(second != first, "no re-check started")
        t0 = time.time()
        p.send_signal(signal.SIGTERM)
        out, err = finish(p, 120)
        check(p.returncode == 143, f"exit code {p.returncode}, expected 143")
        check(time.time() - t0 < 30, "SIGTERM during the re-check took too long")
        check("interrupted (TERM) while verifying the patches" in err, "interruption not said")
        faults = json.loads(out)["faults"]
        check(len(faults) == 2, f"findings: {[(f['source'], f['target']) for f in faults]}")
        for f in faults:
            check(f["patch"] and f["patch"]["verdict"] == "failed" and
                  "interrupted (TERM)" in f["patch"]["reason"], f"the patch: {f['patch']}")
    assert_nothing_left("sleep 21", p.pid)


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
