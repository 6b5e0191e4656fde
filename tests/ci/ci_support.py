"""What the tests of fsmove's reports share: failing with a message, the checkout a recorded
fixture's catalog was compiled in, and running fsmove with the exit status expected."""
import json
import subprocess
import sys


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def recorded_root(catalog_path):
    """The checkout the catalog was compiled in: the prefix before /fixtures/ in its files."""
    for resource in json.loads(catalog_path.read_text()).get("resources", []):
        file = resource.get("file") or ""
        if "/fixtures/" in file:
            return file[: file.index("/fixtures/")]
    fail(f"{catalog_path}: no manifest under fixtures/")


def run_fsmove(fsmove, args, expected_status):
    """fsmove with ARGS; fails the test unless it exits with expected_status."""
    proc = subprocess.run([fsmove, *args], capture_output=True, text=True, timeout=300)
    if proc.returncode != expected_status:
        fail(f"fsmove {' '.join(map(str, args))} exited {proc.returncode}, expected "
             f"{expected_status}\n{proc.stderr}")
    return proc
