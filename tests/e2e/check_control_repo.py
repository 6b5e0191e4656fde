"""Cases of check_e2e.py: control repos. fixtures/control-repo is one: roles and profiles in
site/, Hiera 5 data with a per-node level, manifests/site.pp, and a Puppetfile (written from
Puppetfile.in) whose module comes from a local git repository made here from
fixtures/control-repo-modules/appconf, deployed by r10k. Node web02's data drops an order its
profile needs, web01's keeps it."""
import json
import os
import shutil
import subprocess
import tempfile

from check_lib import findings_of
from e2e_lib import ARGS, check, fsmove


def control_repo(tmp):
    """The fixture control repo in TMP/repo, its module's git repository in TMP/git/appconf."""
    git = os.path.join(tmp, "git", "appconf")
    shutil.copytree(os.path.join(ARGS.source, "fixtures", "control-repo-modules", "appconf"), git)
    env = dict(os.environ, GIT_AUTHOR_NAME="fsmove", GIT_AUTHOR_EMAIL="fsmove@example.org",
               GIT_COMMITTER_NAME="fsmove", GIT_COMMITTER_EMAIL="fsmove@example.org")
    for cmd in (["git", "init", "-q", "-b", "main"], ["git", "add", "-A"],
                ["git", "commit", "-q", "-m", "appconf 1.0.0"]):
        subprocess.run(cmd, cwd=git, env=env, check=True, timeout=60)
    repo = os.path.join(tmp, "repo")
    shutil.copytree(os.path.join(ARGS.source, "fixtures", "control-repo"), repo)
    with open(os.path.join(repo, "Puppetfile.in"), encoding="utf-8") as fh:
        text = fh.read().replace("@APPCONF_GIT@", "file://" + git)
    with open(os.path.join(repo, "Puppetfile"), "w", encoding="utf-8") as fh:
        fh.write(text)
    os.unlink(os.path.join(repo, "Puppetfile.in"))
    return repo, os.path.dirname(git)


def case_control_repo():
    """A control repo checked from its root in one command: its Puppetfile deployed by r10k
    (a git module allowed by --module-source), its environment compiled with its Hiera data
    per node (--node), the fault found only on the node whose data makes it, and its fix
    verified in the repo's own profile."""
    check(shutil.which("r10k") is not None, "r10k is not installed (tools/bootstrap installs it)")
    with tempfile.TemporaryDirectory() as tmp:
        repo, sources = control_repo(tmp)
        # The deployments go to this test's own cache (the host's is keyed by the Puppetfile,
        # which names this temporary directory).
        cache = dict(os.environ, FSMOVE_PUPPETFILE_CACHE=os.path.join(tmp, "cache"))
        reports = {}
        for node in ("web01.example.com", "web02.example.com"):
            diff = os.path.join(tmp, f"{node}.diff")
            extra = ["--fix-diff", diff] if node.startswith("web02") else []
            p = fsmove("check", "-q", "--format", "json", "--module-source", sources, "--node",
                       node, *extra, repo, env=cache)
            check(p.returncode in (0, 1), f"{node}: exit code {p.returncode}")
            reports[node] = json.loads(p.stdout)
        check(findings_of(reports["web01.example.com"]) == [],
              f"web01: {findings_of(reports['web01.example.com'])}")
        check(findings_of(reports["web02.example.com"]) ==
              ["MOR\tFile[/etc/app/app.conf]\tExec[app report]"],
              f"web02: {findings_of(reports['web02.example.com'])}")
        fault = reports["web02.example.com"]["faults"][0]
        check(fault["target"]["file"] == os.path.join(repo, "site/profile/manifests/app.pp"),
              f"the consumer's declaration: {fault['target']}")
        check(fault["patch"] and fault["patch"]["verdict"] == "verified",
              f"the fix: {fault['patch']}")
        with open(os.path.join(tmp, "web02.example.com.diff"), encoding="utf-8") as fh:
            diff = fh.read()
        check("+++ b/site/profile/manifests/app.pp" in diff and
              "+      require => Class['appconf']," in diff, f"the patch:\n{diff}")
        # --class: one class of the repo instead of its site.pp, on web02's data.
        p = fsmove("check", "-q", "--format", "json", "--module-source", sources, "--node",
                   "web02.example.com", "--class", "role::app", repo, env=cache)
        check(p.returncode == 1 and len(json.loads(p.stdout)["faults"]) == 1,
              f"--class role::app: exit code {p.returncode}")
