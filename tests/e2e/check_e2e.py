#!/usr/bin/env python3
"""End-to-end tests of `fsmove check`: real Puppet, real strace, the real sandbox.

Each CTest test runs one case:  check_e2e.py --fsmove BIN --source DIR CASE [ARG]
  fixture NAME     fsmove check on the manifest recorded in traces/NAME (its meta.json gives
                   the target and the policy-rc.d mode) must report exactly
                   traces/NAME/expected-findings.txt. Those files were written from full
                   (unfiltered) traces, so this also proves that the kernel-filtered trace
                   `fsmove check` records gives the same findings as a full trace.
  example          the bundled example module gives fixtures/example/EXPECTED.txt
  fix-fixtures [N] --fix-diff on every fault fixture (or traces/N, or `example`): verified
                   patches that apply, parse, pass puppet-lint and leave a clean re-check
  <failure case>   see the functions named case_* in the modules beside this script, one
                   area each:
                     check_findings.py     findings of real runs: fixtures, the example,
                                           roots, modulepaths, --idempotence, CI, --save-trace
                     check_confirm_fix.py  --confirm, --fix-diff and --fix
                     check_sandbox.py      escapes, tampering, the sandbox's limits
                     check_inputs.py       what the sandbox sees of the host's files
                     check_rootless.py     run by an ordinary user
                     check_systemd.py      --init systemd
                     check_errors.py       what the user is told when things go wrong
                     check_stops.py        timeouts, signals, killed processes
                     check_attacks.py      attacks of classes no review named
                     check_output.py       titles, paths and messages escaped in every output
                   and their common code in check_lib.py. CMake makes one test of each
                   `def case_<name>():` in a check_*.py (tests/CMakeLists.txt); this script
                   finds the cases the same way, by the modules' names.
Exit 77 (CTest's skip code) when not root: the sandbox needs namespaces and overlayfs.
"""
import glob
import importlib
import os
import sys

from e2e_lib import main


def cases():
    """Every case_* function of the check_*.py modules beside this script, by name; a name
    defined twice is an error (CMake would refuse the second test as well)."""
    here = os.path.dirname(os.path.abspath(__file__))
    found, where = {}, {}
    for path in sorted(glob.glob(os.path.join(here, "check_*.py"))):
        name = os.path.splitext(os.path.basename(path))[0]
        if name == "check_e2e":
            continue
        for attr, value in vars(importlib.import_module(name)).items():
            if not attr.startswith("case_") or not callable(value):
                continue
            if value.__module__ != name:  # imported from another module, not defined here
                continue
            if attr in found:
                sys.exit(f"{attr} is defined in both {where[attr]}.py and {name}.py")
            found[attr], where[attr] = value, name
    return found


if __name__ == "__main__":
    sys.exit(main(cases()))
