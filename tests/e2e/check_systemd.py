"""Cases of check_e2e.py: --init systemd, systemd as PID 1 of the sandbox."""
import json
import os
import signal
import subprocess
import sys
import tempfile

from check_lib import assert_nothing_left, check_json, finish, hang, start_check, wait_for_descendant
from e2e_lib import ARGS, check, fsmove


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


def case_systemd_facts():
    """--init systemd compiles the catalog with systemd as PID 1 too, so that its facts and
    Puppet's default providers are those of the system the apply runs on: a module's systemd
    branch (on stdlib's service_provider fact: fixtures/facts/servicefacts) is built and its
    fault found; without it, the init-script branch is, as before. And --init auto (the
    default) chooses systemd for a Service that has only a unit."""
    module = os.path.join(ARGS.source, "fixtures", "facts", "servicefacts")
    with tempfile.TemporaryDirectory() as tmp:
        for init, provider, branch in (("systemd", "systemd", "systemd"),
                                       ("none", "debian", "init-script")):
            catalog = os.path.join(tmp, f"{init}.catalog.json")

            def compiled_under_systemd(report, init=init):
                booted = [n for n in report["run"]["notes"] if n.startswith("systemd booted")]
                want = ["for the compile", ""] if init == "systemd" else []
                got = ["for the compile" if n.endswith(" for the compile") else "" for n in booted]
                check(got == want, f"--init {init}: boot notes {booted!r}")

            check_json(["--init", init, "--save-catalog", catalog, module],
                       [f"MOR\tFile[/etc/fsmove-facts-{branch}.conf]\tExec[read the {branch} config]"],
                       compiled_under_systemd)
            with open(catalog, encoding="utf-8") as fh:
                files = [r for r in json.load(fh)["resources"] if r["type"] == "File"]
            contents = [r["parameters"].get("content") for r in files]
            check(contents == [f"service_provider = {provider}\n"],
                  f"--init {init}: the catalog's File content {contents!r}")
    print("ok: the compile sees the facts of the system applied", file=sys.stderr)
    # --init auto, the default: a Service whose only init is a unit fails without systemd
    # ("Could not find init script"); the check is made again under systemd, which is reported.
    code = ("file { '/etc/systemd/system/fsmove-auto.service':\n"
            "  content => \"[Service]\\nExecStart=/bin/sleep infinity\\n\",\n}\n"
            "service { 'fsmove-auto':\n  ensure => running,\n"
            "  subscribe => File['/etc/systemd/system/fsmove-auto.service'],\n}\n")

    def chose_systemd(report):
        run = report["run"]
        check(run["init"] == "systemd", f"--init auto ran under {run['init']!r}")
        check("Service[fsmove-auto] failed without systemd (no init script"
              in (run.get("init_choice") or ""), f"init_choice {run.get('init_choice')!r}")
        check(not run["failed_resources"], f"failed: {run['failed_resources']!r}")

    check_json(["-e", code], [], chose_systemd)
    print("ok: --init auto made the run again under systemd for a unit-only service", file=sys.stderr)


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


def case_init_script_daemon_dies():
    """Without systemd: an init script starts its daemon in the background and says it
    started; the daemon reads its config and exits 1 while Puppet applies the next resource.
    Puppet calls the service running; the report warns that a process the start left running
    exited with status 1, naming the program and the trace line."""
    code = """file { '/etc/init.d/fsmove-dies':
  ensure  => file,
  mode    => '0755',
  content => "#!/bin/sh\\ncase \\"\\$1\\" in\\n  start) /bin/sh -c 'sleep 0.3; cat /etc/fsmove-dies.conf; exit 1' >/dev/null 2>&1 & ;;\\n  status) exit 3 ;;\\nesac\\nexit 0\\n",
}

file { '/etc/fsmove-dies.conf':
  ensure  => file,
  content => "x\\n",
}

service { 'fsmove-dies':
  ensure    => running,
  subscribe => File['/etc/init.d/fsmove-dies', '/etc/fsmove-dies.conf'],
}

exec { '/bin/sleep 3':
  require => Service['fsmove-dies'],
}
"""
    p = fsmove("check", "-q", "--init", "none", "--format", "json", "-e", code, timeout=600)
    check(p.returncode == 0, f"exit code {p.returncode}")
    run = json.loads(p.stdout)["run"]
    dies = [w for w in run["warnings"] if w.startswith("Service[fsmove-dies]: ")]
    check(len(dies) == 1 and "a process its start left running (/bin/sh), pid " in dies[0]
          and "exited with status 1 at trace line " in dies[0], f"warnings: {run['warnings']}")
    check(run["failed_resources"] == [], f"Puppet failed a resource: {run['failed_resources']}")


def case_systemd_service_dies():
    """A Service whose daemon exits at once under systemd (its unit's main process exits 2
    after reading its config): Puppet calls it started, and the report warns that its unit
    failed, so that a missing notifier to it may be missing (its daemon read nothing after).
    Beside it a Service whose unit's start condition is unmet (as irqbalance's
    ConditionVirtualization=!container in a sandbox): systemd skips it, `systemctl start`
    succeeds, and the report warns that its daemon never ran."""
    code = """file { '/etc/systemd/system/fsmove-skipped.service':
  ensure  => file,
  content => "[Unit]\\nConditionPathExists=/etc/fsmove-never\\n[Service]\\nExecStart=/bin/sleep 60\\n[Install]\\nWantedBy=multi-user.target\\n",
}

# Enabled before it is started, as a package's postinst enables its unit: systemd keeps an
# enabled unit loaded, with its condition's result, after the skipped start.
exec { '/bin/systemctl enable fsmove-skipped.service':
  subscribe   => File['/etc/systemd/system/fsmove-skipped.service'],
  refreshonly => true,
}

service { 'fsmove-skipped':
  ensure    => running,
  subscribe => Exec['/bin/systemctl enable fsmove-skipped.service'],
}

file { '/etc/systemd/system/fsmove-dies.service':
  ensure  => file,
  content => "[Service]\\nExecStart=/bin/sh -c 'cat /etc/fsmove-dies.conf; exit 2'\\n",
}

file { '/etc/fsmove-dies.conf':
  ensure  => file,
  content => "x\\n",
}

service { 'fsmove-dies':
  ensure    => running,
  subscribe => File['/etc/systemd/system/fsmove-dies.service'],
}
"""
    p = fsmove("check", "-q", "--init", "systemd", "--format", "json", "-e", code, timeout=600)
    check(p.returncode == 1, f"exit code {p.returncode}")
    run = json.loads(p.stdout)["run"]
    check(any(w.startswith("Service[fsmove-dies]: systemd's log says its unit fsmove-dies.service "
                           "failed (Main process exited, code=exited, status=2/INVALIDARGUMENT)")
              for w in run["warnings"]), f"no warning of the failed unit: {run['warnings']}")
    check(any(w.startswith("Service[fsmove-skipped]: systemd skipped its unit "
                           "fsmove-skipped.service (ConditionPathExists=/etc/fsmove-never was "
                           "not met): its daemon never ran in the sandbox")
              for w in run["warnings"]), f"no warning of the skipped unit: {run['warnings']}")
    check(run["failed_resources"] == [], f"Puppet failed a resource: {run['failed_resources']}")
