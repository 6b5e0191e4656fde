"""Cases of check_e2e.py: what fsmove prints of the strings a module controls (titles, paths,
Puppet's messages) is data, escaped for the terminal and for every report format."""
import os
import pty
import re
import select
import subprocess
import sys
import tempfile
import time

from e2e_lib import ARGS, check, show

ESC = "\x1b"
RLO = "\u202e"  # RIGHT-TO-LEFT OVERRIDE
RLI = "\u2067"  # RIGHT-TO-LEFT ISOLATE
# Printed raw, this clears the screen, draws a green all-clear and starts a line of its own.
FAKE = "No missing ordering relationships or notifiers found."
TITLE = f'x\\u001B[2J\\u001B[32m{FAKE}\\n\\u202Eevil'   # Puppet's escapes, in the manifest
PATH = "/tmp/fsmove-out\\u2067put\\u001B[2J"

# A missing ordering relationship between two resources with hostile names (a File whose path
# holds ESC [2J and U+2067, an Exec whose title clears the screen, draws a fake all-clear and
# breaks the line), and a resource that fails with a message holding the same.
MANIFEST = f"""\
file {{ "{PATH}": content => "data\\n" }}
exec {{ "{TITLE}":
  command => "/bin/cat '{PATH}'",
  path    => ['/bin', '/usr/bin'],
}}
exec {{ "fails\\u001B]0;pwned\\u0007\\u202E":
  command => "/bin/sh -c 'exit 1' \\u001B[2J\\u202E",
}}
"""

# The controls a terminal or a viewer obeys, and the title's line break. The progress line's
# own "\r ESC [K" is taken out first; nothing else may remain.
def raw_controls(text):
    text = text.replace("\r\x1b[K", "")
    bad = [repr(ch) for ch in (ESC, RLO, RLI, "\x07", "\x9b") if ch in text]
    if re.search(re.escape(FAKE) + r"\r?\n(\u202e|\\u202e)evil", text):
        bad.append("the title's line break")
    return bad


def run_on_a_tty(args, limit=840):
    """fsmove with its stderr on a pseudo-terminal (so it shows its progress line) and its
    stdout on a pipe: (exit code, stdout, what the terminal received)."""
    master, slave = pty.openpty()
    cmd = [ARGS.fsmove] + args
    print("+ " + " ".join(cmd), file=sys.stderr)
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL)
    os.close(slave)
    terminal = b""
    out = b""
    deadline = time.time() + limit
    fds = [master, p.stdout.fileno()]
    while fds and time.time() < deadline:
        ready, _, _ = select.select(fds, [], [], 1.0)
        for fd in ready:
            try:
                data = os.read(fd, 65536)
            except OSError:  # EIO: every holder of the terminal's other side is gone
                data = b""
            if not data:
                fds.remove(fd)
            elif fd == master:
                terminal += data
            else:
                out += data
        if p.poll() is not None and not ready:
            break
    try:  # its outputs can close a moment before it exits
        p.wait(timeout=max(1.0, deadline - time.time()))
    except subprocess.TimeoutExpired:
        p.kill()
        check(False, f"fsmove did not end within {limit} s")
    os.close(master)
    p.stdout.close()
    print(f"  exit {p.returncode}", file=sys.stderr)
    return p.returncode, out.decode("utf-8", "replace"), terminal.decode("utf-8", "replace")


def case_output_injection():
    """One check whose resource titles, file path and failure message hold ESC [2J, a fake
    green all-clear, a line break, U+202E and U+2067: its progress line (on a terminal), its
    text report and diagnostics, and its JSON, SARIF, JUnit, rdjson, Code Quality and
    Markdown reports hold none of them raw, and the fix names the resources in valid
    Puppet."""
    with tempfile.TemporaryDirectory() as tmp:
        outputs = {name: os.path.join(tmp, name) for name in
                   ("report.json", "report.sarif", "junit.xml", "rdjson.json", "cq.json",
                    "comment.md")}
        code, text, terminal = run_on_a_tty([
            # The failed resource keeps the work directory: under tmp, removed with it.
            "check", "--format", "text", "--allow-failed", "--work-dir", tmp,
            "--json-output", outputs["report.json"], "--sarif-output", outputs["report.sarif"],
            "--junit-output", outputs["junit.xml"], "--rdjson-output", outputs["rdjson.json"],
            "--codequality-output", outputs["cq.json"],
            "--markdown-output", outputs["comment.md"], "-e", MANIFEST])
        show("stdout", text)
        show("terminal", terminal.encode("unicode_escape").decode())
        check(code == 1, f"exit code {code}, expected 1 (a finding)")
        failures = []
        if "resource 2 of" not in terminal:
            failures.append("no progress line on the terminal")
        for name, got in (("the terminal (progress line, diagnostics)", terminal),
                          ("the text report", text)):
            bad = raw_controls(got)
            if bad:
                failures.append(f"{name}: raw {', '.join(bad)}")
        if "\\u202eevil" not in text:
            failures.append("the text report does not show U+202E as \\u202e")
        if "\\e[2J" not in text:
            failures.append("the text report does not show ESC as \\e")
        # The fix names the Exec in a double-quoted Puppet string whose escapes spell it.
        if 'Exec["x\\u001B[2J\\u001B[32m' not in text:
            failures.append("the fix does not name the Exec as a Puppet string with escapes")
        for name, path in outputs.items():
            with open(path, "rb") as fh:
                raw = fh.read().decode("utf-8", "replace")
            bad = raw_controls(raw)
            if bad:
                failures.append(f"{name}: raw {', '.join(bad)}")
            if name == "junit.xml" and "&#x202E;" not in raw:
                failures.append("junit.xml has no &#x202E;")
        check(not failures, "controls reached the output:\n  " + "\n  ".join(failures))
