"""Cases of check_e2e.py: the sandbox. Module code tries to escape, to reach the host, to
forge the verdict or tamper with what the analysis reads, and to exhaust the sandbox's limits
(processes, memory, tmpfs); targets and code reach Puppet as argv only."""
import json
import os
import re
import subprocess
import sys
import tempfile
import threading

from check_lib import assert_nothing_left, cgroups_of, check_every_path_read, check_json, findings_of, finish, read_expected, start_check
from e2e_lib import ARGS, SKIP, check, fail, fsmove, processes


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
    with open("/etc/hosts", encoding="utf-8") as fh:
        hosts = fh.read()
    was_installed = installed()
    code = (f"file {{ '{written}': content => \"x\\n\" }}\n"
            f"file {{ '{canary}': ensure => absent }}\n"
            f"package {{ '{pkg}': ensure => installed }}\n"
            "user { 'fsmovee2e': ensure => present }\n"
            "exec { 'rm shell': command => '/bin/rm -f /etc/hostname.fsmove-none' }\n"
            # The sandbox's own host name resolves, without the network, as on a machine
            # Debian's installer set up (the sandbox's /etc/hosts maps it), and it has a
            # domain, for Facter and for programs (`hostname -f`) alike.
            "exec { 'own name': command => 'getent hosts \"$(hostname)\" && hostname -f | grep -q [.]',"
            " path => '/usr/bin:/bin' }\n"
            "if $facts['networking']['domain'] =~ Undef { fail('the sandbox has no domain') }\n")
    with tempfile.TemporaryDirectory() as tmp:
        keep = os.path.join(tmp, "upper")
        os.mkdir(keep)
        p = fsmove("check", "-q", "--format", "json", "--keep-sandbox", keep, "-e", code)
        check(p.returncode in (0, 1), f"exit code {p.returncode}")
        report = json.loads(p.stdout)
        failed = report["run"]["failed_resources"]
        check(not failed, f"resources failed in the sandbox: {failed}")
        # apt downloads as _apt: strace reads that process's paths too.
        check_every_path_read(report)
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
    with open("/etc/hosts", encoding="utf-8") as fh:
        check(fh.read() == hosts, "/etc/hosts changed on the host")
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
    """The attacks in both phases; then a fork bomb in both stops at the default process
    limit (a pids cgroup of 2,048 over everything in the sandbox)."""
    sandbox3_attacks(dict(os.environ), bomb=True)


def case_sandbox3_systemd():
    """The same attacks with systemd as PID 1, in Puppet's execs and in a unit that module code
    writes and starts (with `ExecStart=+`, systemd's "full privileges", too): systemd and its
    units hold the module's capabilities, no_new_privs and the seccomp filter, like Puppet's
    execs. The unit ends with the fork bomb: units count against the pids limit too."""
    sandbox3_attacks(dict(os.environ), ("--init", "systemd"), bomb=True, unit=True)


def sandbox3_attacks(env, extra=(), bomb=False, unit=False):
    """The attacks of the third sandbox review, each in both phases: at compile time through
    Puppet's generate() function, at apply time as an exec (and with `unit`, in a systemd unit
    the apply writes and starts). Each attempt prints ESCAPED-<what> when it got through, which
    Puppet's log then holds. Harmless canaries only: a key in a keyring, a global sysctl read
    before and put back in `finally`, a secret in fsmove's own environment, files written where
    the host's disk was reachable. `bomb`: the script ends with a fork bomb in both phases
    (with `unit`, in the unit only) that the default pids limit (2,048) must stop; the host's
    count of its processes is watched meanwhile, and none may outlive the run."""
    tag = f"fsmove-canary-{os.getpid()}"
    secret = f"fsmove-secret-{os.getpid()}"
    knob = "/proc/sys/kernel/printk_ratelimit_burst"
    with open(knob, encoding="utf-8") as fh:
        knob_before = fh.read()
    script = f"""#!/bin/sh
# a global sysctl: written directly, after a remount, and through a fresh proc
(echo 77 > {knob}) 2>/dev/null && echo ESCAPED-sysctl-write
(mount -o remount,rw /proc/sys && echo 77 > {knob}) 2>/dev/null && echo ESCAPED-sysctl-remount
mkdir -p /mnt/p /mnt/d /mnt/q
(mount -t proc proc /mnt/p && echo 77 > /mnt/p/sys/kernel/printk_ratelimit_burst) 2>/dev/null && echo ESCAPED-fresh-proc
# the mounts themselves, harmless or not: nothing of the module's may mount (no SYS_ADMIN)
mount -o remount,rw /proc/sys 2>/dev/null && echo ESCAPED-remount-proc-sys-rw
mount -t proc proc /mnt/q 2>/dev/null && echo ESCAPED-proc-mounted
unshare -m sh -c 'mount -t tmpfs none /mnt/d && echo ESCAPED-unshare-mount' 2>/dev/null
# PID 1's mount namespace (systemd's, with --init systemd)
nsenter -t 1 -m true 2>/dev/null && echo ESCAPED-nsenter-pid1
# the same restrictions whoever started it (Puppet, or systemd for a unit)
grep -q '^NoNewPrivs:[[:space:]]*1' /proc/self/status || echo ESCAPED-no-new-privs-unset
grep -q '^Seccomp:[[:space:]]*2' /proc/self/status || echo ESCAPED-no-seccomp-filter
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
# strace's own (it reads the memory of processes that changed their user): not the module's
[ $(( 0x$capeff >> 19 & 1 )) = 1 ] && echo ESCAPED-cap-sys-ptrace
for p in /proc/[0-9]*; do
  [ "$(cat $p/comm 2>/dev/null)" = strace ] || continue
  perl -e 'print syscall(101, 0x4206, $ARGV[0], 0, 0) == 0 ? "ESCAPED-ptrace-strace\\n" : "held-ptrace-strace $!\\n"' ${{p#/proc/}} 2>&1
done
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
# a fork bomb, bounded (3,000), when asked for: shells that wait on a FIFO nobody writes
# (no exec: cheap even where every call is traced), holding no descriptor of the caller's
# (generate() waits for its output to close); a failed fork ends the subshell
if [ "$1" = bomb ]; then
  mkfifo /tmp/fsmove-bomb.fifo 2>/dev/null
  (i=0; while [ $i -lt 3000 ]; do {{ read x < /tmp/fsmove-bomb.fifo; }} </dev/null >/dev/null 2>&1 & i=$((i+1)); done) 2>/dev/null
  echo bomb-done
fi
"""
    unit_script = f"""#!/bin/sh
# A unit module code writes and starts: the attacks once with systemd's "full privileges"
# (ExecStart=+), once asking for SYS_ADMIN back, then the bomb if asked for.
cat > /etc/systemd/system/fsmove-attack.service <<'UNIT'
[Unit]
Description=fsmove e2e attack
[Service]
Type=oneshot
CapabilityBoundingSet=CAP_SYS_ADMIN CAP_SYS_CHROOT CAP_SETPCAP
NoNewPrivileges=no
ExecStart=+/bin/sh -c '/bin/sh ATTACK none >> /var/tmp/fsmove-unit.log 2>&1'
ExecStart=/bin/sh -c '/bin/sh ATTACK {"bomb" if bomb else "none"} >> /var/tmp/fsmove-unit.log 2>&1'
UNIT
systemctl daemon-reload
systemctl start fsmove-attack.service || echo unit-failed-to-start
cat /var/tmp/fsmove-unit.log
"""
    env["FSMOVE_E2E_SECRET"] = secret
    try:
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o755)
            # In a module of the --modulepath directory: the sandbox shows modules alone.
            attack = os.path.join(tmp, "attack", "files", "attack.sh")
            os.makedirs(os.path.dirname(attack))
            os.makedirs(os.path.join(tmp, "attack", "manifests"))
            with open(attack, "w", encoding="utf-8") as fh:
                fh.write(script)
            os.chmod(attack, 0o755)
            in_execs = "bomb" if bomb and not unit else "none"
            code = (f"$compiled = generate('/bin/sh', '{attack}', '{in_execs}')\n"
                    "notify { 'compile phase': message => $compiled }\n"
                    f"exec {{ 'apply phase': command => '/bin/sh {attack} {in_execs}', logoutput => true }}\n")
            if unit:
                starter = os.path.join(tmp, "attack", "files", "unit.sh")  # shown: in a module
                with open(starter, "w", encoding="utf-8") as fh:
                    fh.write(unit_script.replace("ATTACK", attack))
                # (every call of the unit's stops under strace -p 1: no exec timeout)
                code += (f"exec {{ 'unit phase': command => '/bin/sh {starter}', logoutput => true,"
                         " timeout => 0, require => Exec['apply phase'] }\n")
            out = os.path.join(tmp, "report.json")
            log = os.path.join(tmp, "puppet.log")
            work = os.path.join(tmp, "work")
            os.mkdir(work)
            # The host's count of the bomb's processes, watched while the check runs.
            most = [0]
            done = threading.Event()

            bombs = f"/bin/sh {attack} bomb"  # the bomb's shells, and the script itself

            def watch():
                while not done.wait(0.5):
                    most[0] = max(most[0], sum(1 for _, cmd in processes().values() if cmd == bombs))

            watcher = threading.Thread(target=watch, daemon=True)
            watcher.start()
            try:
                p = fsmove("check", "-q", "--format", "json", "-o", out, "--keep-work", "--work-dir", work,
                           "--puppet-log", log, "--modulepath", tmp, "--allow-failed", "-e", code, *extra,
                           env=env)
            finally:
                done.set()
                watcher.join()
            check(p.returncode in (0, 1), f"exit code {p.returncode}: {p.stderr[-2000:]}")
            with open(log, encoding="utf-8", errors="replace") as fh:
                text = fh.read()
            phases = ("compile phase", "apply phase") + (("unit phase",) if unit else ())
            for phase in phases:
                check(phase in text, f"the {phase} did not run")
            escaped = sorted(set(re.findall(r"ESCAPED-[a-z0-9-]+", text)))
            check(not escaped, f"attacks got through: {escaped}")
            # Twice in the unit: ExecStart=+ and the plain one.
            runs = 4 if unit else 2
            check("unit-failed-to-start" not in text, "the attack's unit did not start")
            check(text.count("held-keyring") >= runs and text.count("held-handle") >= runs,
                  f"the keyring and file-handle attempts did not run {runs} times")
            check(text.count("nested-userns-") >= runs, "the nested user namespace attempts did not run")
            check(text.count("held-io-uring") >= runs and text.count("held-untraced") >= runs,
                  f"the io_uring and untraced-child attempts did not run {runs} times")
            # strace runs while the apply does (not at compile time): attached to at least once.
            check("held-ptrace-strace" in text, "no attempt to attach to strace ran")
            if bomb:
                check(text.count("bomb-done") >= (1 if unit else 2), "the fork bomb did not run")
                with open(out, encoding="utf-8") as fh:
                    hits = [n for n in json.load(fh)["run"]["limits_hit"] if "process limit (2048 processes)" in n]
                check(len(hits) == (1 if unit else 2),
                      f"the default process limit was not said hit in {'the apply' if unit else 'both'}: {hits}")
                print(f"  the bomb's processes on the host: {most[0]} at most", file=sys.stderr)
                check(0 < most[0] <= 2048, f"{most[0]} of the bomb's processes ran at once on the host")
                assert_nothing_left(bombs)
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
