"""Cases of check_e2e.py: fsmove check run by an ordinary user (a rootless sandbox), with and
without systemd as PID 1."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

from check_lib import findings_of, read_expected
from e2e_lib import ARGS, check, fsmove


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
