"""What the end-to-end test scripts share: failing a case, running fsmove and showing what it
printed, the processes on the host, and the command line every script takes.

  SCRIPT --fsmove BIN --source DIR CASE [ARG]

runs the function case_CASE (dashes read as underscores) of the calling script, with ARG when
given. Exit 77 (CTest's skip code) when not root: the sandbox needs namespaces and overlayfs.
"""
import argparse
import os
import subprocess
import sys
import time

SKIP = 77


class Args:
    """The parsed command line; set by main() before any case runs."""
    fsmove = None
    source = None
    case = None
    arg = None


ARGS = Args()


def fail(msg):
    print("FAIL: " + msg, file=sys.stderr)
    sys.exit(1)


def check(cond, msg):
    if not cond:
        fail(msg)


def show(name, text):
    if text:
        print(f"  {name}: " + text.strip().replace("\n", "\n          "), file=sys.stderr)


def fsmove(*args, timeout=900, env=None, prefix=(), cwd=None, show_stdout=False):
    """Runs ARGS.fsmove with `args` (after `prefix`, e.g. a runuser command) and returns the
    CompletedProcess, its wall time in .seconds; its exit and stderr (and stdout with
    show_stdout) are printed for the test's log."""
    cmd = list(prefix) + [ARGS.fsmove] + list(args)
    print("+ " + " ".join(cmd), file=sys.stderr)
    t0 = time.time()
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env, cwd=cwd)
    p.seconds = time.time() - t0
    print(f"  exit {p.returncode} after {p.seconds:.1f} s", file=sys.stderr)
    if show_stdout:
        show("stdout", p.stdout)
    show("stderr", p.stderr)
    return p


def processes():
    """{pid: (ppid, command line)} of every process on the host but this one."""
    out = {}
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/stat", encoding="utf-8", errors="replace") as fh:
                stat = fh.read()
            with open(f"/proc/{d}/cmdline", "rb") as fh:
                cmd = fh.read().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            continue
        ppid = int(stat[stat.rfind(")") + 2:].split()[1])
        out[int(d)] = (ppid, cmd)
    return out


def running(marker):
    """Pids of processes whose command line holds `marker`."""
    return [pid for pid, (_, cmd) in processes().items() if marker in cmd]


def main(cases):
    """Parses the command line and runs the case named there; `cases` is the calling
    script's globals(). Returns the exit code."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--fsmove", required=True)
    ap.add_argument("--source", required=True)
    ap.add_argument("case")
    ap.add_argument("arg", nargs="?")
    ap.parse_args(namespace=ARGS)
    if os.geteuid() != 0:
        print("skipped: end-to-end tests need root (sandbox)", file=sys.stderr)
        return SKIP
    fn = cases.get("case_" + ARGS.case.replace("-", "_"))
    if fn is None:
        fail("unknown case " + ARGS.case)
    t0 = time.time()
    fn(ARGS.arg) if ARGS.arg is not None else fn()
    print(f"ok: {ARGS.case} in {time.time() - t0:.0f} s", file=sys.stderr)
    return 0
