"""Cases of check_e2e.py: control repos. fixtures/control-repo is one: roles and profiles in
site/, Hiera 5 data with a per-node level, manifests/site.pp, and a Puppetfile (written from
Puppetfile.in) whose module comes from a local git repository made here from
fixtures/control-repo-modules/appconf, deployed by r10k. Node web02's data drops an order its
profile needs, web01's keeps it. Role worker's profile misses an order on every node."""
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


def validate_matrix(doc):
    """Validates DOC against docs/json-matrix.schema.json and each row's report against
    docs/json-report.schema.json (python3-jsonschema, installed by tools/bootstrap; Debian 12's
    4.10 resolves no $ref across the two schemas, so each is checked on its own)."""
    import copy
    import jsonschema
    schemas = {}
    for name in ("json-report.schema.json", "json-matrix.schema.json"):
        with open(os.path.join(ARGS.source, "docs", name), encoding="utf-8") as fh:
            schemas[name] = json.load(fh)
    matrix = copy.deepcopy(schemas["json-matrix.schema.json"])
    row = matrix["properties"]["rows"]["items"]["properties"]
    check(row["report"]["oneOf"][0] == {"$ref": schemas["json-report.schema.json"]["$id"]},
          "the matrix schema's rows refer to the report schema")
    row["report"] = {"type": ["object", "null"]}
    errors = []
    for schema, instance, where in [(matrix, doc, "")] + [
            (schemas["json-report.schema.json"], r["report"], f"rows/{n}/report/")
            for n, r in enumerate(doc.get("rows", [])) if r.get("report") is not None]:
        validator = jsonschema.Draft202012Validator(schema)
        errors += [f"{where}{'/'.join(map(str, e.absolute_path))}: {e.message[:200]}"
                   for e in validator.iter_errors(instance)]
    check(not errors, f"against the schemas: {errors[:5]}")


def case_control_repo_matrix():
    """The control repo checked for the nodes of its matrix file in one command: a node with
    the facts of `puppet facts show` (JSON) whose site's data keeps the order, one whose node
    data drops it (its class given), one with a Puppet server's cached facts (YAML) whose site's
    data drops it; one report with a row per node (JSON, SARIF with a run per node), each
    node's files and report.html kept; and facts of another OS family refused."""
    check(shutil.which("r10k") is not None, "r10k is not installed (tools/bootstrap installs it)")
    with tempfile.TemporaryDirectory() as tmp:
        repo, sources = control_repo(tmp)
        cache = dict(os.environ, FSMOVE_PUPPETFILE_CACHE=os.path.join(tmp, "cache"))
        results = os.path.join(tmp, "results")
        sarif = os.path.join(tmp, "matrix.sarif")
        p = fsmove("check", "-q", "--format", "json", "--module-source", sources, "--matrix",
                   os.path.join(repo, "matrix.txt"), "--results", results, "--sarif-output",
                   sarif, repo, env=cache)
        check(p.returncode == 1, f"exit code {p.returncode}")
        doc = json.loads(p.stdout)
        validate_matrix(doc)
        rows = {r["node"]: r for r in doc["rows"]}
        check(list(rows) == ["web01.example.com", "web02.example.com", "lab01.example.com"],
              f"rows: {list(rows)}")
        check(rows["web01.example.com"]["status"] == "ok" and
              rows["web01.example.com"]["facts"].endswith("facts/web01.example.com.json"),
              f"web01: {rows['web01.example.com']}")
        for node in ("web02.example.com", "lab01.example.com"):
            check(findings_of(rows[node]["report"]) ==
                  ["MOR\tFile[/etc/app/app.conf]\tExec[app report]"],
                  f"{node}: {findings_of(rows[node]['report'])}")
        check(rows["web02.example.com"]["class"] == "role::app", "web02's class")
        # Each node's report says what it was compiled for.
        run = rows["lab01.example.com"]["report"]["run"]
        check(run["node"] == "lab01.example.com" and run["facts"].endswith(".yaml"),
              f"lab01's run: {run['node']} {run['facts']}")
        with open(sarif, encoding="utf-8") as fh:
            runs = json.load(fh)["runs"]
        check([r["automationDetails"]["id"] for r in runs] ==
              [f"fsmove-matrix/{n}/" for n in rows] and
              [len(r["results"]) for r in runs] == [0, 1, 1],
              f"SARIF runs: {[(r['automationDetails'], len(r['results'])) for r in runs]}")
        for node in rows:
            for name in ("report.json", "catalog.json", "puppet.log", "check.log"):
                check(os.path.isfile(os.path.join(results, node, name)), f"{node}/{name} kept")
        with open(os.path.join(results, "report.html"), encoding="utf-8") as fh:
            page = fh.read()
        check(all(n in page for n in rows), "report.html names every node")
        check('"unit":"nodes"' in page, "report.html counts nodes, not modules")
        # Facts of a node this root cannot be: refused, with the reason, before any apply.
        p = fsmove("check", "-q", "--module-source", sources, "--facts",
                   os.path.join(repo, "facts", "centos01.example.com.json"), repo, env=cache)
        check(p.returncode == 2 and "os.family is RedHat, but the catalog is applied on Debian"
              in p.stderr, f"another OS family: exit {p.returncode}")


def case_control_repo_scan():
    """`fsmove scan` of a control repo: a run per role (site/role's classes), each checked as
    the repo with its Puppetfile's modules and Hiera data; the role whose profile misses an
    order has the finding, in the repo's own profile, the other is ok."""
    check(shutil.which("r10k") is not None, "r10k is not installed (tools/bootstrap installs it)")
    with tempfile.TemporaryDirectory() as tmp:
        repo, sources = control_repo(tmp)
        cache = dict(os.environ, FSMOVE_PUPPETFILE_CACHE=os.path.join(tmp, "cache"))
        out = os.path.join(tmp, "out")
        p = fsmove("scan", "-j", "2", "-q", "-o", out, "--timeout", "300", "--module-source",
                   sources, repo, env=cache)
        check(p.returncode == 1, f"exit code {p.returncode}, expected 1 (findings)")
        with open(os.path.join(out, "summary.json"), encoding="utf-8") as fh:
            runs = {m["module"]: m for m in json.load(fh)["modules"]}
        check(sorted(runs) == [repo + "#role::app", repo + "#role::worker"], f"runs: {sorted(runs)}")
        app, worker = runs[repo + "#role::app"], runs[repo + "#role::worker"]
        check(app["status"] == "ok", f"role::app: {app}")
        check(worker["status"] == "findings" and worker["mor"] == 1 and worker["mn"] == 0,
              f"role::worker: {worker}")
        check(app["module_dir"] == repo and worker["source"] == "class", f"{worker}")
        folder = next(os.path.join(out, d) for d in os.listdir(out)
                      if d.startswith("repo_class_role__worker-"))
        with open(os.path.join(folder, "report.json"), encoding="utf-8") as fh:
            report = json.load(fh)
        check(findings_of(report) == ["MOR\tFile[/etc/worker.conf]\tExec[worker run]"],
              f"role::worker: {findings_of(report)}")
        check(report["faults"][0]["target"]["file"] ==
              os.path.join(repo, "site/profile/manifests/worker.pp"),
              f"the consumer's declaration: {report['faults'][0]['target']}")
        check(report["run"]["class"] == "role::worker", f"class {report['run'].get('class')!r}")
