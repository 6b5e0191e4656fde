"""The compile's script for `fsmove check --facts FILE` (src/exec/merge_facts.rb), run by this
machine's Ruby on facts files in each format users have: the facts it hands Puppet's json facts
terminus, and its refusals with the file and line.

  merge_facts_test.py SCRIPT

The sandbox's facts and the compile are stand-ins here (a command printing facts, and one
printing the file the json terminus would read); e2e.control-repo-facts runs the script with
Puppet in the sandbox. Exit 77 (skipped) when this machine has no ruby.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

SCRIPT = sys.argv[1]
RUBY = shutil.which("ruby")
OWN = {"kernel": "Linux", "os": {"family": "Debian", "name": "Debian", "release": {"major": "12"}},
       "site": "sandbox", "networking": {"fqdn": "sandbox.local"}}
FAILURES = []

# A stand-in for `puppet catalog find ... NODE --facts_terminus json --client_datadir DIR`: the
# facts file that terminus would read for NODE, printed.
READ_TERMINUS = """
import json, sys
args = sys.argv[1:]
node = args[0]
assert args[1:3] == ['--facts_terminus', 'json'] and args[3] == '--client_datadir', args
print(open(args[4] + '/facts/' + node + '.json').read())
"""


def run(tmp, name, text, own=None):
    path = os.path.join(tmp, name)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    own_facts = json.dumps({"name": "n1", "values": own or OWN})
    argv = [RUBY, SCRIPT, name, path, "--", sys.executable, "-c",
            f"print({own_facts!r})", "--", sys.executable, "-c", READ_TERMINUS, "n1"]
    return subprocess.run(argv, capture_output=True, text=True, timeout=60, check=False)


def expect_facts(tmp, name, text, want):
    p = run(tmp, name, text)
    if p.returncode != 0:
        FAILURES.append(f"{name}: exit {p.returncode}: {p.stderr}")
        return
    got = json.loads(p.stdout)
    if got["name"] != "n1":
        FAILURES.append(f"{name}: saved for {got['name']}")
    for key, value in want.items():
        if got["values"].get(key) != value:
            FAILURES.append(f"{name}: {key} is {got['values'].get(key)!r}, want {value!r}")


def expect_refused(tmp, name, text, words, own=None):
    p = run(tmp, name, text, own)
    if p.returncode != 3 or f"Error: --facts {name}: " not in p.stderr:
        FAILURES.append(f"{name}: exit {p.returncode}, not refused: {p.stderr}")
    for w in words:
        if w not in p.stderr:
            FAILURES.append(f"{name}: the refusal does not say {w!r}: {p.stderr}")
    if p.stdout:
        FAILURES.append(f"{name}: a refused file still compiled: {p.stdout}")


def main():
    if RUBY is None:
        print("no ruby on this machine")
        return 77
    with tempfile.TemporaryDirectory() as tmp:
        # `puppet facts show` / facter -j: the facts alone. A fact the file names replaces the
        # sandbox's whole (os here); the others stay.
        expect_facts(tmp, "show.json",
                     '{"site": "lab", "os": {"family": "Debian", "name": "Ubuntu"}}',
                     {"site": "lab", "os": {"family": "Debian", "name": "Ubuntu"},
                      "kernel": "Linux", "networking": {"fqdn": "sandbox.local"}})
        # A Puppet server's yaml cache: a tagged Ruby object with name, values and times.
        expect_facts(tmp, "lab01.yaml",
                     "--- !ruby/object:Puppet::Node::Facts\nname: lab01\nvalues:\n  site: lab\n"
                     "  role: web\ntimestamp: 2026-11-02 09:14:03.123456789 +00:00\n"
                     "expiration: 2026-11-02 09:44:03.123456789 +00:00\n",
                     {"site": "lab", "role": "web", "kernel": "Linux"})
        # `puppet facts find` as JSON, and PuppetDB's facts endpoint.
        expect_facts(tmp, "find.json", '{"name": "x", "values": {"site": "dc1"}, '
                     '"timestamp": "2026-11-02T09:14:03Z", "expiration": null}', {"site": "dc1"})
        expect_facts(tmp, "pdb.json", '{"name": "x", "facts": {"site": "dc2"}}', {"site": "dc2"})
        # Foreman's API: one host's facts, structured ones flattened with "::".
        expect_facts(tmp, "foreman.json",
                     '{"total": 90, "subtotal": 3, "results": {"h1.example.com": '
                     '{"os::family": "Debian", "os::release::major": "12", "site": "dc3"}}}',
                     {"site": "dc3", "os": {"family": "Debian", "release": {"major": "12"}}})
        # trusted is Puppet's, from the certname: never a fact a file sets.
        expect_facts(tmp, "trusted.yaml", "site: x\ntrusted:\n  certname: evil\n",
                     {"site": "x", "trusted": None})

        # Facts that cannot be true of the root, each with its reason.
        expect_refused(tmp, "centos.json", '{"os": {"family": "RedHat", "name": "CentOS"}}',
                       ["os.family is RedHat", "applied on Debian 12", "Give the facts of a "
                        "Debian node"])
        expect_refused(tmp, "legacy.yaml", "osfamily: Suse\n", ["osfamily is Suse"])
        expect_refused(tmp, "windows.json", '{"kernel": "windows"}', ["kernel is windows"])
        # Bad files: the line where it stopped.
        expect_refused(tmp, "bad.json", '{"site": "a",\n "b": [1,\n "c": 2}\n',
                       ["line 3: not valid JSON"])
        expect_refused(tmp, "bad.yaml", "site: a\n  role: [b\n", ["line 2", "not valid YAML"])
        expect_refused(tmp, "list.yaml", "- site\n- role\n", ["expected a mapping of facts"])
        expect_refused(tmp, "empty.json", "{}", ["holds no facts"])
        expect_refused(tmp, "two.json", '{"total": 2, "results": {"a": {}, "b": {}}}',
                       ["results hold 2 hosts"])
        # No Ruby objects but the facts' own tag, no aliases (a document of aliases grows
        # exponentially once written out as JSON).
        expect_refused(tmp, "object.yaml", "--- !ruby/object:OpenStruct\ntable: {}\n",
                       ["not plain YAML data"])
        expect_refused(tmp, "alias.yaml", "a: &x [1, 2]\nb: *x\n", ["not plain YAML data"])

        # A release other than the root's compiles, with a warning.
        p = run(tmp, "d11.json", '{"os": {"family": "Debian", "release": {"major": "11"}}}')
        if p.returncode != 0 or "os.release.major is 11, the root's is 12" not in p.stderr:
            FAILURES.append(f"d11.json: exit {p.returncode}: {p.stderr}")
    for f in FAILURES:
        print("FAIL: " + f)
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
