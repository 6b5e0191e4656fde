#!/usr/bin/env python3
"""The man pages that `fsmove man DIR` writes: fsmove.1 names every subcommand, each
fsmove-SUBCOMMAND.1 holds every option (and positional) that `fsmove SUBCOMMAND --help` and
its own subcommands' --help list, and groff renders every page without a warning.

Usage: man_pages_test.py FSMOVE
"""
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def help_sections(fsmove, *command):
    """{'options': [...], 'positionals': [...], 'subcommands': [...]} from --help."""
    out = subprocess.run([fsmove, *command, "--help"], capture_output=True, text=True,
                         timeout=60)
    if out.returncode != 0:
        fail(f"fsmove {' '.join(command)} --help: exit {out.returncode}")
    sections, current = {"options": [], "positionals": [], "subcommands": []}, None
    for line in out.stdout.splitlines():
        heading = re.fullmatch(r"([A-Za-z]+):", line.strip())
        if heading and not line.startswith(" "):
            current = heading.group(1).lower()
            continue
        entry = re.match(r"  (\S+)", line)
        if current not in sections or not entry or line.startswith("   "):
            continue
        name = entry.group(1)
        if current == "options":
            sections["options"] += [n for n in name.split(",") if n.startswith("-")]
        else:
            sections[current].append(name)
    return sections


def render(page):
    """The page as plain text, and groff's warnings."""
    proc = subprocess.run(["groff", "-man", "-Tutf8", "-ww", "-rLL=250n", "-rHY=0", "-P-cbou",
                           str(page)], capture_output=True, text=True, timeout=60)
    if proc.returncode != 0:
        fail(f"groff {page}: exit {proc.returncode}: {proc.stderr}")
    text = proc.stdout.replace("\u2212", "-").replace("\u2010", "-")
    return text, proc.stderr


REQUESTS = {".TH", ".SH", ".SS", ".TP", ".PP", ".br", ".nf", ".fi", ".nh", '.\\"'}


def check_escapes(page):
    """Text never starts a line with '.' or "'" (a request), every '-' is \\- (a minus, so that
    option names can be searched and copied), and a backslash only starts an escape."""
    for number, line in enumerate(page.read_text().splitlines(), 1):
        if line.startswith((".", "'")):
            if line.split(" ", 1)[0] not in REQUESTS:
                fail(f"{page.name}:{number}: text read as a request: {line!r}")
            if line.startswith((".TH", '.\\"')):
                continue
        if re.search(r"(?<!\\)-", line.replace("\\\\", "")):
            fail(f"{page.name}:{number}: an unescaped '-': {line!r}")
        if re.search(r"\\(?![-ef&(*]|\\)", line):
            fail(f"{page.name}:{number}: a backslash that is no known escape: {line!r}")


def main():
    fsmove = sys.argv[1]
    if shutil.which("groff") is None:
        fail("groff is not installed (tools/bootstrap installs groff-base)")
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([fsmove, "man", tmp], capture_output=True, text=True, timeout=60)
        if out.returncode != 0:
            fail(f"fsmove man: exit {out.returncode}: {out.stderr}")
        subcommands = help_sections(fsmove)["subcommands"]
        if not subcommands:
            fail("fsmove --help lists no subcommand")
        if "man" in subcommands:
            fail("the hidden man subcommand is in --help")
        for page in Path(tmp).iterdir():
            check_escapes(page)
        main_text, warnings = render(Path(tmp) / "fsmove.1")
        if warnings:
            fail(f"fsmove.1: groff warns:\n{warnings}")
        pages = sorted(p.name for p in Path(tmp).iterdir())
        expected = sorted(["fsmove.1"] + [f"fsmove-{s}.1" for s in subcommands])
        if pages != expected:
            fail(f"pages {pages}, expected {expected}")
        checked = 0
        for sub in subcommands:
            if f"fsmove-{sub}(1)" not in main_text or f"fsmove {sub}" not in main_text:
                fail(f"fsmove.1 does not name {sub}")
            text, warnings = render(Path(tmp) / f"fsmove-{sub}.1")
            if warnings:
                fail(f"fsmove-{sub}.1: groff warns:\n{warnings}")
            sections = help_sections(fsmove, sub)
            wanted = [(sub, sections)]
            for nested in sections["subcommands"]:
                wanted.append((f"{sub} {nested}", help_sections(fsmove, sub, nested)))
                if f"fsmove {sub} {nested}" not in text:
                    fail(f"fsmove-{sub}.1 has no section for fsmove {sub} {nested}")
            for command, s in wanted:
                for name in s["options"] + s["positionals"]:
                    if not re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", text):
                        fail(f"fsmove-{sub}.1 lacks {name} (from fsmove {command} --help)")
                    checked += 1
        print(f"ok: {len(pages)} pages, {checked} options found, no groff warning")


if __name__ == "__main__":
    main()
