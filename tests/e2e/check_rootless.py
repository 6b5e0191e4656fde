"""Cases of check_e2e.py: fsmove check run by an ordinary user (a rootless sandbox), with and
without systemd as PID 1."""
import fcntl
import json
import os
import shutil
import subprocess
import sys
import tempfile

from check_lib import check_every_path_read, findings_of, read_expected
from e2e_lib import ARGS, check, fail, fsmove


ROOTLESS_USER = "fsmove-e2e"


# Every test that changes the host's state takes this lock around the change (CTest runs
# the cases in parallel): today only the test user's creation, which two cases would race.
HOST_STATE_LOCK = "/run/lock/fsmove-e2e-host-state.lock"


def rootless_user():
    """An unprivileged user with a subordinate id range of its own, made once and kept (its
    rootless OS root, built by mmdebstrap --mode=unshare into its ~/.cache, is reused by the
    next run): a login-less system account, with no password. Made under the host-state lock:
    two cases starting together would both run useradd."""
    import pwd
    os.makedirs(os.path.dirname(HOST_STATE_LOCK), exist_ok=True)
    with open(HOST_STATE_LOCK, "a", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            pwd.getpwnam(ROOTLESS_USER)
        except KeyError:
            subprocess.run(["useradd", "--system", "--create-home", "--shell",
                            "/usr/sbin/nologin", ROOTLESS_USER], check=True)
        for kind, file in (("--add-subuids", "/etc/subuid"), ("--add-subgids", "/etc/subgid")):
            with open(file, encoding="utf-8") as fh:
                have = any(l.startswith(ROOTLESS_USER + ":") for l in fh)
            if not have:
                subprocess.run(["usermod", kind, "1100000000-1100065535", ROOTLESS_USER],
                               check=True)
        return pwd.getpwnam(ROOTLESS_USER)


def private_tun(mode):
    """A command prefix that runs the rest in a mount namespace of its own (made by root, the
    test) where /dev/net/tun is a fresh node of the TUN device with `mode`, on a tmpfs over
    /dev/net: what a laptop whose udev makes the device 0666 gives its user (slirp4netns opens
    it as the user), or, with 0600, what a machine that keeps it root's gives. The host's
    device is never changed, so nothing is left to put back, even when the test is killed, and
    cases running in parallel cannot undo each other's setting."""
    script = ('mode=$1; shift; '
              'mount -t tmpfs -o mode=0755,size=16k fsmove-e2e-tun /dev/net && '
              'mknod -m "$mode" /dev/net/tun c 10 200 && exec "$@"')
    return ("unshare", "--mount", "--propagation", "private", "--", "sh", "-c", script, "sh",
            f"{mode:04o}")


def host_tun_mode():
    return os.stat("/dev/net/tun").st_mode & 0o7777


def case_rootless():
    """fsmove check run by an ordinary user with a subordinate id range: the sandbox is
    rootless (its own user namespace through newuidmap, a root built by mmdebstrap's unshare
    mode in the user's cache), the bundled example gives its two findings, and the host is
    untouched (the module writes /etc/memcached.conf, installs memcached)."""
    user = rootless_user()
    tun_before = host_tun_mode()
    rootless_example(user)
    check(host_tun_mode() == tun_before, "the host's /dev/net/tun changed mode")


def cgroup2_mount_point():
    with open("/proc/self/mountinfo", encoding="utf-8") as fh:
        for line in fh:
            head, _, tail = line.partition(" - ")
            if tail.startswith("cgroup2 ") and head.split()[3] == "/":
                return head.split()[4]
    return None


OWN_CGROUP2 = "FSMOVE_E2E_OWN_CGROUP2"


def with_own_cgroup2_mount():
    """On a cgroup v1 machine with no cgroup2 mount (CI's), runs this case again in a mount
    namespace of its own where the cgroup2 hierarchy is mounted on a fresh directory, as a
    hybrid host (Debian 10, Ubuntu 20.04) mounts it on /sys/fs/cgroup/unified: the host's mounts
    are never changed. The kernel's one cgroup2 hierarchy is the same in every mount, so the
    case's cgroups are removed as on a host that mounts it. Returns only if already inside."""
    if os.environ.get(OWN_CGROUP2):
        return
    where = tempfile.mkdtemp(prefix="fsmove-e2e-cgroup2-")
    os.chmod(where, 0o755)
    script = 'mount -t cgroup2 fsmove-e2e-cgroup2 "$1" && shift && exec "$@"'
    try:
        p = subprocess.run(["unshare", "--mount", "--propagation", "private", "--", "sh", "-c",
                            script, "sh", where, sys.executable, *sys.argv],
                           env={**os.environ, OWN_CGROUP2: where}, timeout=3600)
    finally:
        os.rmdir(where)
    sys.exit(p.returncode)


def case_rootless_systemd():
    """Rootless with systemd as PID 1. Without a cgroup2 tree of the user's own it is refused
    with the reason; with one delegated to the user, as systemd's user@.service (Delegate=yes)
    does, the bundled example gives its two findings and the host is untouched. A machine
    without a cgroup2 mount gets one in a mount namespace of the test's own."""
    user = rootless_user()
    mount_point = cgroup2_mount_point()
    if mount_point is None:
        with_own_cgroup2_mount()
        fail("no cgroup2 hierarchy even in the test's own mount namespace")
    if os.environ.get(OWN_CGROUP2):
        print(f"  cgroup2 mounted on {mount_point} in the test's own mount namespace",
              file=sys.stderr)
    tun_before = host_tun_mode()
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
        check(host_tun_mode() == tun_before, "the host's /dev/net/tun changed mode")
    finally:
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
                       prefix=[*private_tun(0o666), *outer, "setpriv", f"--reuid={user.pw_uid}",
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
    # strace holds CAP_SYS_PTRACE in the user's namespace too: apt's download as _apt is read.
    check_every_path_read(report)
    check(os.path.exists("/etc/memcached.conf") == before, "/etc/memcached.conf changed on the host")
    print("ok: the example's findings, rootless", file=sys.stderr)
    return report


def case_rootless_no_network():
    """Where /dev/net/tun is not open to the user (0600, root's: a private node, the host's is
    not touched), the rootless sandbox has no network: `fsmove doctor` names the device and
    the fix, and a check says so in its summary without -v (before, only -v showed it and a
    Package's download failure looked like the module's fault)."""
    user = rootless_user()
    tun_before = host_tun_mode()
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": user.pw_dir, "LANG": "C.UTF-8"}
    as_user = [*private_tun(0o600), "setpriv", f"--reuid={user.pw_uid}",
               f"--regid={user.pw_gid}", "--init-groups", "--"]
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        binary = os.path.join(tmp, "fsmove")
        shutil.copy(ARGS.fsmove, binary)
        os.chmod(binary, 0o755)
        tested, ARGS.fsmove = ARGS.fsmove, binary
        try:
            doctor = fsmove("doctor", prefix=as_user, env=env, cwd=tmp, timeout=120,
                            show_stdout=True)
            p = fsmove("check", "-e", "notify { 'offline': }", prefix=as_user, env=env, cwd=tmp,
                       timeout=1800, show_stdout=True)
        finally:
            ARGS.fsmove = tested
    # doctor: the device is a warning (check can still run), with the fix.
    tun_lines = [l for l in doctor.stdout.splitlines() if l.startswith("warning  /dev/net/tun:")]
    check(len(tun_lines) == 1 and "chmod 0666 /dev/net/tun" in tun_lines[0],
          "doctor does not warn of /dev/net/tun with its fix")
    check(p.returncode == 0, f"check exit code {p.returncode}")
    check("warning: the sandbox has no network: /dev/net/tun is not open to this user"
          in p.stdout, "the summary does not say the sandbox has no network")
    check(host_tun_mode() == tun_before, "the host's /dev/net/tun changed mode")
    print("ok: no network, said without -v", file=sys.stderr)
