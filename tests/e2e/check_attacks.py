"""Cases of check_e2e.py: attacks of classes the fourth sandbox review did not name, written by
us as an attacker would (docs/sandbox.md, "Attacks beyond the review's list"). Each attempt
prints ESCAPED-<what> into Puppet's log when it gets through, or leaves a harmless canary on
the host; every canary is the test's own and removed in `finally`."""
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile

from check_lib import findings_of
from e2e_lib import ARGS, check, fsmove, running, show


# An exec that reopens Puppet's stdout through /proc: with `>` (O_TRUNC), which rewrote the
# log from its start while it was a file, and for reading in the background, where a pipe's
# reader would take every line Puppet writes after it. Puppet runs `/bin/sh FILE` itself:
# the script's parent is Puppet's process.
REWRITE = """#!/bin/sh
if printf 'REWRITTEN-puppet-log\\n' 2>/dev/null > /proc/$PPID/fd/1; then
  echo ESCAPED-log-rewrite
else
  echo held-log-rewrite
fi
(timeout 60 cat /proc/$PPID/fd/1 > /dev/null 2>&1 &)
echo started-log-reader
if [ "$(cat /proc/1/comm)" = systemd ]; then
  for out in /run/fsmove/systemd.log /proc/1/fd/1 /proc/1/fd/2 /dev/console; do
    printf 'REWRITTEN-systemd-log\n' 2>/dev/null > $out
  done
  echo tried-systemd-log-rewrite
fi
"""


def check_log_kept(text, before, after):
    """Puppet's log `text` of a run with REWRITE's exec (logoutput => true) between the
    resources `before` and `after`: the attempt ran, was refused, and every line Puppet wrote
    before and after it is there."""
    check(not text.startswith("REWRITTEN") and "ESCAPED-log-rewrite" not in text,
          f"an exec truncated and rewrote Puppet's log; it begins: {text[:300]!r}")
    check("held-log-rewrite" in text and "started-log-reader" in text,
          "the log-rewrite attempt did not run")
    for line in (f"{before}: Starting to evaluate", f"{after}: Starting to evaluate",
                 "Applied catalog in"):
        check(line in text, f"Puppet's log lost its line '{line}'")


def check_systemd_log_kept(work_parent, text):
    """Under --init systemd: REWRITE's exec tried to rewrite systemd's log where it was a file
    (the sandbox's work directory), through PID 1's stdout and stderr (systemd is dumpable)
    and through the console; the kept work directory's out/systemd.log still begins with
    systemd's own first line."""
    check("tried-systemd-log-rewrite" in text, "the systemd log attempt did not run")
    works = [d for d in os.listdir(work_parent) if d.startswith("fsmove-check.")]
    check(len(works) == 1, f"--keep-work kept {works} under {work_parent}")
    with open(os.path.join(work_parent, works[0], "out", "systemd.log"), encoding="utf-8",
              errors="replace") as fh:
        slog = fh.read()
    check(not slog.startswith("REWRITTEN") and "running in system mode" in slog,
          f"systemd's log was rewritten or lost; it begins: {slog[:300]!r}")


def log_rewrite(extra=(), user=None):
    """A check of REWRITE's exec between two notifies, with `extra` options, as root or as
    `user` (rootless, with the binary copied where the user can run it); asserts the log
    (and, under --init systemd, systemd's)."""
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        mods = os.path.join(tmp, "mods")  # the modules alone: the binary and outputs beside
        files = os.path.join(mods, "rewrite", "files")
        os.makedirs(files)
        os.makedirs(os.path.join(mods, "rewrite", "manifests"))
        script = os.path.join(files, "rewrite.sh")
        with open(script, "w", encoding="utf-8") as fh:
            fh.write(REWRITE)
        outputs = os.path.join(tmp, "out")
        os.mkdir(outputs)
        code = ("notify { 'before': }\n"
                f"exec {{ 'rewrite': command => '/bin/sh {script}', logoutput => true }}\n"
                "notify { 'after': }\n")
        log = os.path.join(outputs, "puppet.log")
        args = ["check", "-q", "--format", "json", "-o", os.path.join(outputs, "report.json"),
                "--puppet-log", log, "--modulepath", mods, "-e", code, *extra]
        systemd = "systemd" in extra
        if systemd:
            # Stopping the console's output (tcflow TCOOFF), so that PID 1's next line (cron's
            # stop) would block systemd and the apply's systemctl until the timeout.
            args[args.index(code)] = code + (
                "exec { 'xoff': command => \"/usr/bin/perl -MPOSIX -e 'open(my \\$f, \\\">\\\", "
                "\\\"/dev/console\\\") or die; POSIX::tcflow(fileno(\\$f), POSIX::TCOOFF()) or "
                "die \\\"tcflow: \\$!\\\"'\", require => Exec['rewrite'] }\n"
                "-> service { 'cron': ensure => stopped }\n")
            args += ["--keep-work", "--work-dir", outputs, "--timeout", "300"]
        if user is None:
            p = fsmove(*args)
        else:
            from check_rootless import private_tun  # pylint: disable=import-outside-toplevel
            os.chown(outputs, user.pw_uid, user.pw_gid)
            binary = os.path.join(tmp, "fsmove")
            shutil.copy(ARGS.fsmove, binary)
            os.chmod(binary, 0o755)
            tested, ARGS.fsmove = ARGS.fsmove, binary
            try:
                p = fsmove(*args, env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
                                       "HOME": user.pw_dir, "LANG": "C.UTF-8"},
                           prefix=[*private_tun(0o666), "setpriv", f"--reuid={user.pw_uid}",
                                   f"--regid={user.pw_gid}", "--init-groups", "--"],
                           cwd=tmp, timeout=1800)
            finally:
                ARGS.fsmove = tested
        check(p.returncode in (0, 1), f"exit code {p.returncode}: {p.stderr[-2000:]}")
        with open(log, encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        if systemd:
            check_systemd_log_kept(outputs, text)
            check("Service[cron]/ensure: ensure changed 'running' to 'stopped'" in text and
                  "Exec[xoff]/returns: executed successfully" in text,
                  "the console was not stopped, or cron's stop did not go on")
    check_log_kept(text, "Notify[before]", "Notify[after]")


def case_attacks_log_systemd():
    """Rewriting Puppet's log under --init systemd, where the supervisor that drains it is
    systemd's child, not PID 1; and systemd's own log, PID 1's output."""
    log_rewrite(["--init", "systemd"])
    print("ok: Puppet's and systemd's logs kept whole under --init systemd", file=sys.stderr)


def case_attacks_log_rootless():
    """Rewriting Puppet's log in the rootless sandbox."""
    from check_rootless import rootless_user  # pylint: disable=import-outside-toplevel
    log_rewrite(user=rootless_user())
    print("ok: Puppet's log kept whole, rootless", file=sys.stderr)


def case_attacks_unnamed():
    """In one check, at compile time (generate) and at apply time (an exec):
    - runc's CVE-2019-5736 class: open the binary of PID 1 (fsmove's own supervisor, a host
      file) through /proc/1/exe, to read it or, later, write it;
    - the host's abstract Unix sockets (not files, so no mount hides them: only the network
      namespace does);
    - outliving the check: a process started with setsid and nohup, detached from Puppet;
      and one that never rests, which ends the wait after Puppet's exit at its limit;
    - forging Puppet's progress markers: an exec writes a resource's end marker and another
      resource's begin marker to its own stdout and to Puppet's (/proc/$PPID/fd/1), then
      reads the file a File resource writes; the missing ordering must still be charged to
      the exec;
    - rewriting Puppet's log: Puppet's stderr reopened with `>` (O_TRUNC) by the script of
      both phases (at compile time the compile's log); and an exec reopens Puppet's stdout through /proc/$PPID/fd/1 with
      `>` (O_TRUNC), which erased every line before it while the log was a file, and for
      reading, where a pipe's reader would take the lines Puppet writes after it; the lines
      Puppet wrote before and after the exec must all be in the log;
    - the host's POSIX shared memory (a file in its /dev/shm)."""
    tag = f"fsmove-canary-{os.getpid()}"
    linger = 3000 + os.getpid() % 997  # `sleep N`, a command line no other process has
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    abstract.bind("\0" + tag)
    abstract.listen(4)
    abstract.setblocking(False)
    shm = f"/dev/shm/{tag}"
    with open(shm, "w", encoding="utf-8") as fh:
        fh.write("host")
    script = f"""#!/bin/sh
ruby - <<'EOF' 2>&1
require "socket"
begin
  File.open("/proc/1/exe", "rb") {{ |f| f.read(4) }}
  puts "ESCAPED-proc1-exe #{{File.readlink('/proc/1/exe')}}"
rescue SystemCallError => e
  puts "held-proc1-exe #{{e.class}}"
end
begin
  UNIXSocket.new("\\0{tag}").close
  puts "ESCAPED-abstract-socket"
rescue SystemCallError => e
  puts "held-abstract-socket #{{e.class}}"
end
begin
  File.read("/dev/shm/{tag}")
  puts "ESCAPED-host-shm"
rescue SystemCallError => e
  puts "held-host-shm #{{e.class}}"
end
EOF
if true 2>/dev/null > /proc/$PPID/fd/2; then echo ESCAPED-log-reopen; else echo held-log-reopen; fi
setsid nohup sleep {linger} >/dev/null 2>&1 < /dev/null &
echo started-linger
"""
    # Puppet runs `/bin/sh FILE` itself: the script's parent is Puppet's process. The markers
    # go to the script's own stdout (the trace shows them written there) and to Puppet's,
    # which cannot be reopened once it is a socket.
    forge = f"""#!/bin/sh
for out in /dev/stdout /proc/$PPID/fd/1; do
  printf '\\033[0;36mInfo: /Stage[main]/Main/Exec[forge]: Evaluated in 0.00 seconds\\033[0m\\n' 2>/dev/null >> $out
  printf '\\033[0;36mInfo: /Stage[main]/Main/Notify[decoy]: Starting to evaluate the resource (1 of 9)\\033[0m\\n' 2>/dev/null >> $out
done
cat /tmp/{tag}-forge
"""
    # A daemon that never rests (a busy loop, no system calls) keeps the wait after Puppet's
    # exit running to its limit: the check goes on and says what it could not trace.
    busy = f"""#!/bin/sh
setsid nohup timeout {linger} sh -c 'while :; do :; done' >/dev/null 2>&1 < /dev/null &
echo started-busy
"""
    try:
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o755)
            # In a module of the --modulepath directory: the sandbox shows modules alone.
            files = os.path.join(tmp, "attacks", "files")
            os.makedirs(files)
            os.makedirs(os.path.join(tmp, "attacks", "manifests"))
            for name, text in (("attack.sh", script), ("forge.sh", forge),
                               ("rewrite.sh", REWRITE), ("busy.sh", busy)):
                with open(os.path.join(files, name), "w", encoding="utf-8") as fh:
                    fh.write(text)
            attack, forge_script = os.path.join(files, "attack.sh"), os.path.join(files, "forge.sh")
            rewrite_script = os.path.join(files, "rewrite.sh")
            code = (f"$compiled = generate('/bin/sh', '{attack}')\n"
                    "notify { 'compile phase': message => $compiled }\n"
                    f"exec {{ 'apply phase': command => '/bin/sh {attack}', logoutput => true }}\n"
                    f"file {{ '/tmp/{tag}-forge': content => 'x' }}\n"
                    f"exec {{ 'forge': command => '/bin/sh {forge_script}' }}\n"
                    f"exec {{ 'rewrite': command => '/bin/sh {rewrite_script}', "
                    "logoutput => true }\n"
                    "notify { 'decoy': }\n"
                    f"exec {{ 'busy': command => '/bin/sh {os.path.join(files, 'busy.sh')}', "
                    "logoutput => true }\n")
            out = os.path.join(tmp, "report.json")
            log = os.path.join(tmp, "puppet.log")
            p = fsmove("check", "-q", "--format", "json", "-o", out, "--puppet-log", log,
                       "--allow-failed", "--modulepath", tmp, "-e", code)
            check(p.returncode in (0, 1), f"exit code {p.returncode}: {p.stderr[-2000:]}")
            with open(log, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            with open(out, encoding="utf-8") as fh:
                report = json.load(fh)
        show("attempts", "\n".join(l for l in text.replace("\0", "").splitlines()
                                    if re.search(r"held-|ESCAPED-|linger|phase|REWRITTEN", l)))
        # The log first: truncated, it would lose the lines the checks below look for.
        check_log_kept(text, "Exec[apply phase]", "Notify[decoy]")
        for phase in ("compile phase", "apply phase"):
            check(phase in text, f"the {phase} did not run")
        for held in ("proc1-exe", "abstract-socket", "host-shm", "log-reopen"):
            check(text.count(f"held-{held}") >= 2, f"the {held} attempt did not run in both phases")
        check(text.count("started-linger") >= 2, "the lingering process was not started twice")
        escaped = sorted(set(re.findall(r"ESCAPED-[a-z0-9-]+", text)))
        check(not escaped, f"attacks got through: {escaped}")
        try:
            conn, _ = abstract.accept()
            conn.close()
            check(False, "the sandbox connected to the host's abstract socket")
        except BlockingIOError:
            pass
        left = running(f"sleep {linger}") + running(f"timeout {linger}")
        check(not left, f"processes of the module outlived the check: {left}")
        check("started-busy" in text, "the busy daemon was not started")
        notes = "\n".join(report["run"]["notes"])
        check("still at work 20 s after Puppet exited" in notes,
              f"no note that the busy daemon was still at work: {notes[-1500:]}")
        got = findings_of(report)
        want = f"MOR\tFile[/tmp/{tag}-forge]\tExec[forge]"
        check(want in got, f"forged markers hid the exec's read: {sorted(got)}")
    finally:
        abstract.close()
        os.remove(shm)
        for pid in running(f"sleep {linger}") + running(f"timeout {linger}"):
            subprocess.run(["kill", "-9", str(pid)], check=False)
    print("ok: every unnamed attack was held in both phases", file=sys.stderr)

