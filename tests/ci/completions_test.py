#!/usr/bin/env python3
"""The shell completions that `fsmove completions DIR` writes: for every command path that
--help lists (fsmove, fsmove check, fsmove root build, ...), bash completes each of its options
and subcommands (run in a real bash, word by word), options after a flag, and the fixed values
of an option, never a hidden command; the zsh function of that command names each of them, and zsh parses the file
when it is installed.

Usage: completions_test.py FSMOVE
"""
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from man_pages_test import fail, help_sections


def command_paths(fsmove):
    """[(('check',), sections), (('root', 'build'), sections), ...], the top app first."""
    todo, found = [()], []
    while todo:
        path = todo.pop(0)
        sections = help_sections(fsmove, *path)
        found.append((path, sections))
        todo += [path + (s,) for s in sections["subcommands"]]
    return found


def bash_completions(script, queries):
    """What bash's _fsmove offers for each list of words (the last one being completed)."""
    lines = [f"source {script}"]
    for words in queries:
        quoted = " ".join("'" + w.replace("'", "'\\''") + "'" for w in ["fsmove", *words])
        lines.append(f"COMP_WORDS=({quoted}); COMP_CWORD={len(words)}; COMPREPLY=(); _fsmove; "
                     "printf '%s\\n' \"${COMPREPLY[*]}\"")
    out = subprocess.run(["bash", "--norc", "--noprofile", "-c", "\n".join(lines)],
                         capture_output=True, text=True, timeout=60, cwd=tempfile.gettempdir())
    if out.returncode != 0 or out.stderr:
        fail(f"bash: exit {out.returncode}: {out.stderr}")
    replies = out.stdout.split("\n")[:len(queries)]
    return [set(r.split()) for r in replies]


def zsh_function(text, path):
    name = "_" + "_".join(("fsmove",) + path).replace("-", "_") + "() {"
    start = text.find("\n" + name + "\n")
    if start < 0:
        fail(f"_fsmove has no function {name}")
    end = text.find("\n}\n", start)
    return text[start:end]


def main():
    fsmove = sys.argv[1]
    if shutil.which("bash") is None:
        fail("bash is not installed")
    with tempfile.TemporaryDirectory() as tmp:
        out = subprocess.run([fsmove, "completions", tmp], capture_output=True, text=True,
                             timeout=60)
        if out.returncode != 0:
            fail(f"fsmove completions: exit {out.returncode}: {out.stderr}")
        written = sorted(p.name for p in Path(tmp).iterdir())
        if written != ["_fsmove", "fsmove"]:
            fail(f"fsmove completions wrote {written}, expected _fsmove and fsmove")
        bash, zsh = Path(tmp) / "fsmove", Path(tmp) / "_fsmove"
        zsh_text = zsh.read_text()

        paths = command_paths(fsmove)
        queries, expected = [], []
        for path, sections in paths:
            for name in sections["options"] + sections["subcommands"]:
                queries.append([*path, name[:-1] if len(name) > 2 else name])
                expected.append(name)
            function = zsh_function(zsh_text, path)
            for name in sections["options"] + sections["subcommands"] + sections["positionals"]:
                if name not in function:
                    fail(f"the zsh completion of fsmove {' '.join(path)} lacks {name}")
        # After a flag (no value) options are offered still; fixed values; what stays hidden.
        queries.append(["check", "-q", "--sandb"])
        expected.append("--sandbox")
        queries += [["check", "--sandbox", ""], ["root", "build", ""], [""]]
        replies = bash_completions(bash, queries)
        for words, name, reply in zip(queries, expected, replies):
            if name not in reply:
                fail(f"bash offers {sorted(reply)} for `fsmove {' '.join(words)}`, not {name}")
        sandbox, roots, top = replies[-3:]
        if sandbox != {"overlay", "none"}:
            fail(f"bash offers {sorted(sandbox)} for `fsmove check --sandbox`")
        if not {"debian-12", "debian-13"} <= roots:
            fail(f"bash offers {sorted(roots)} for `fsmove root build`")
        if top & {"man", "completions"} or "check" not in top:
            fail(f"bash offers {sorted(top)} for `fsmove`")

        if shutil.which("zsh") is not None:
            z = subprocess.run(["zsh", "-n", str(zsh)], capture_output=True, text=True, timeout=60)
            if z.returncode != 0:
                fail(f"zsh -n _fsmove: {z.stderr}")
            note = "zsh parses _fsmove"
        else:
            note = "zsh is not installed: _fsmove's syntax not checked"
        print(f"ok: {len(paths)} commands, {len(expected)} options and subcommands completed "
              f"by bash; {note}")


if __name__ == "__main__":
    main()
