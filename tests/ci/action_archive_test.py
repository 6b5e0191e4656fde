#!/usr/bin/env python3
"""What a job that uses the action downloads: GitHub fetches an action as the tarball of its
tag, made by `git archive`, which leaves out what .gitattributes marks export-ignore. The
archive of this checkout must hold the action and what its install step runs
(tools/ci/install-fsmove, which builds the package from it when no release has one:
tools/bootstrap, tools/package, the sources), not the recorded traces; and what tools/package
configures must configure from it (no test, no trace needed).

Usage: action_archive_test.py SOURCE_DIR   (exit 77 when SOURCE_DIR is not a git checkout)
"""
import os
import subprocess
import sys
import tarfile
import tempfile

MAX_BYTES = 20 << 20
NEEDED = ["action.yml", "tools/ci/install-fsmove", "tools/ci/run-check", "tools/bootstrap",
          "tools/package", "CMakeLists.txt", "packaging/changelog", "cmake/package.cmake",
          "src/cli/main.cc"]


def main():
    src = sys.argv[1]
    if subprocess.run(["git", "-C", src, "rev-parse", "--git-dir"], capture_output=True).returncode:
        print(f"skipped: {src} is not a git checkout", file=sys.stderr)
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        archive = os.path.join(tmp, "action.tar")
        # The checkout's own .gitattributes (HEAD's, and any change not committed yet).
        subprocess.run(["git", "-C", src, "archive", "--worktree-attributes", "-o", archive, "HEAD"],
                       check=True)
        size = os.path.getsize(archive)
        with tarfile.open(archive) as tar:
            names = tar.getnames()
        os.mkdir(os.path.join(tmp, "x"))
        subprocess.run(["tar", "-xf", archive, "-C", os.path.join(tmp, "x")], check=True)
        traces = [n for n in names if n == "traces" or n.startswith("traces/")]
        missing = [n for n in NEEDED if n not in names]
        print(f"  the archive: {size} bytes, {len(names)} members", file=sys.stderr)
        errors = []
        if traces:
            errors.append(f"it holds the recorded traces ({len(traces)} members): "
                          ".gitattributes must mark /traces export-ignore")
        if size > MAX_BYTES:
            errors.append(f"it is {size} bytes, over {MAX_BYTES}")
        if missing:
            errors.append(f"it lacks {missing}")
        if not errors:
            build = os.path.join(tmp, "build")
            p = subprocess.run(["cmake", "-S", os.path.join(tmp, "x"), "-B", build, "-G", "Ninja",
                                "-DFSMOVE_BUILD_TESTS=OFF", "-DFSMOVE_BUILD_BENCH=OFF",
                                "-DFSMOVE_FUZZ=OFF", "-DFSMOVE_SANITIZE=OFF"],
                               capture_output=True, text=True)
            if p.returncode != 0:
                errors.append("tools/package's configure fails in it:\n" + p.stderr[-2000:])
        for e in errors:
            print("FAIL: " + e, file=sys.stderr)
        return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
