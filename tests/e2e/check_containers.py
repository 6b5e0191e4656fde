"""Cases of check_e2e.py: fsmove where CI runs it. A pinned root exported and imported into
another root cache, checked against its content hash, then the bundled example checked on it;
the GitLab recipes' after_script as an ordinary user; and the container recipes
(tools/ci/gitlab-ci-container.yml, tools/ci/github-container.yml) run end to end in podman
on the image tools/oci-image builds from the .deb, with the privileges they document and
without them."""
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import xml.etree.ElementTree as ET

from check_lib import read_expected
from e2e_lib import ARGS, SKIP, check, fail, fsmove, show


def example_expected():
    return read_expected(os.path.join(ARGS.source, "fixtures", "example", "EXPECTED.txt"))


def text_findings(stdout):
    """KIND\tSOURCE\tTARGET of each finding of a text report (as EXPECTED.txt writes them)."""
    found = []
    for m in re.finditer(r"^Missing (?:ordering relationship|notifier) \((MOR|MN)\)\n"
                         r"  (\S+\[.*?\]) \(.*\n  must (?:be applied before|notify) (\S+\[.*?\]) ",
                         stdout, re.M):
        found.append(f"{m.group(1)}\t{m.group(2)}\t{m.group(3)}")
    return sorted(found)


def case_root_archive():
    """`fsmove root export` of the cached debian-12 root and `root import` of it into another
    root cache (FSMOVE_ROOT_CACHE): the same content hash, refused when --sha256 names another
    or when a file of the root changed after export (nothing reaches the cache), and the
    bundled example's two findings from a check on the imported root."""
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
        archive, cache = os.path.join(tmp, "debian-12.tar.zst"), os.path.join(tmp, "cache")
        p = fsmove("root", "export", "debian-12", archive)
        if p.returncode != 0 and "is not built" in p.stderr:
            # Built only when missing: `root build` waits for every check on the root to end.
            check(fsmove("root", "build", "debian-12").returncode == 0, "cannot build debian-12")
            p = fsmove("root", "export", "debian-12", archive)
        check(p.returncode == 0, f"export exit {p.returncode}")
        digest = p.stdout.strip()
        check(re.fullmatch(r"[0-9a-f]{64}", digest), f"export printed {p.stdout!r}, not a hash")
        env = dict(os.environ, FSMOVE_ROOT_CACHE=cache)
        p = fsmove("root", "import", "--sha256", "0" * 64, archive, env=env)
        check(p.returncode == 2 and "nothing was imported" in p.stderr,
              "an import under another --sha256 was not refused")
        check(not os.path.exists(os.path.join(cache, "debian-12")), "a refused root is in the cache")
        # The archive changed after export: one file of the root rewritten, repacked.
        tampered = os.path.join(tmp, "tampered")
        os.mkdir(tampered)
        subprocess.run(["tar", "-x", "--zstd", "-f", archive, "-C", tampered], check=True)
        with open(os.path.join(tampered, "debian-12", "etc", "hostname"), "w") as fh:
            fh.write("tampered\n")
        bad = os.path.join(tmp, "bad.tar.zst")
        subprocess.run(["tar", "-c", "--zstd", "-f", bad, "-C", tampered, "debian-12.json",
                        "debian-12"], check=True)
        shutil.rmtree(tampered)
        p = fsmove("root", "import", bad, env=env)
        check(p.returncode == 2 and f"{bad}: the root it holds has the content hash" in p.stderr,
              "a changed root was not refused, naming the file")
        check(not os.path.exists(os.path.join(cache, "debian-12")), "a changed root is in the cache")
        p = fsmove("root", "import", "--sha256", digest, archive, env=env)
        check(p.returncode == 0, f"import exit {p.returncode}")
        with open(os.path.join(cache, "debian-12.json"), encoding="utf-8") as fh:
            check(json.load(fh)["content_sha256"] == digest, "the imported metadata's hash")
        p = fsmove("check", "--root", "debian-12", os.path.join(ARGS.source, "fixtures", "example",
                                                                 "cachedemo"), env=env)
        check(p.returncode == 1, f"check on the imported root: exit {p.returncode}")
        got = text_findings(p.stdout)
        check(got == example_expected(), f"findings on the imported root: {got}")


class NoteServer(http.server.BaseHTTPRequestHandler):
    """GitLab's notes API as far as after_script uses it: records each POST."""
    posts = []

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        NoteServer.posts.append((self.path, self.headers.get("PRIVATE-TOKEN"), body))
        self.send_response(201)
        self.end_headers()
        self.wfile.write(b"{}")

    def log_message(self, *args):
        pass


def after_script_server():
    """Serves NoteServer on 127.0.0.1 in this process's network namespace (the case runs in a
    fresh one: unshare -n), on a port of its choosing."""
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    server = http.server.HTTPServer(("127.0.0.1", 0), NoteServer)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def case_gitlab_after_script():
    """Both GitLab recipes' after_script, as an ordinary user (the shell executor's runner
    user; nothing installed): the Markdown report is posted as the merge request's note, to a
    stand-in for GitLab's API on 127.0.0.1 in a network namespace of its own."""
    import urllib.parse
    import yaml
    if os.environ.get("FSMOVE_E2E_NETNS") != "1":
        cmd = ["unshare", "-n", "--", sys.executable, os.path.abspath(sys.argv[0]),
               "--fsmove", ARGS.fsmove, "--source", ARGS.source, ARGS.case]
        p = subprocess.run(cmd, env=dict(os.environ, FSMOVE_E2E_NETNS="1"))
        sys.exit(p.returncode)
    server = after_script_server()
    if not shutil.which("curl"):
        print("skipped: no curl here (the recipes post with curl)", file=sys.stderr)
        sys.exit(SKIP)
    for recipe in ("gitlab-ci.yml", "gitlab-ci-container.yml"):
        with open(os.path.join(ARGS.source, "tools", "ci", recipe), encoding="utf-8") as fh:
            job = yaml.safe_load(fh)["fsmove"]
        with tempfile.TemporaryDirectory() as tmp:
            os.chmod(tmp, 0o755)
            md = "## fsmove: 2 findings\n\nA `body` with & and = and ü, over\nlines.\n"
            with open(os.path.join(tmp, "fsmove.md"), "w", encoding="utf-8") as fh:
                fh.write(md)
            env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "FSMOVE_MR_NOTE_TOKEN": "tok-123",
                   "CI_MERGE_REQUEST_IID": "7", "CI_PROJECT_ID": "42",
                   "CI_API_V4_URL": f"http://127.0.0.1:{server.server_port}/api/v4"}
            NoteServer.posts.clear()
            script = "\n".join(job["after_script"])
            p = subprocess.run(["runuser", "-u", "nobody", "--", "bash", "-eo", "pipefail", "-c",
                                script], cwd=tmp, env=env, capture_output=True, text=True,
                               timeout=60)
            show("after_script's stderr", p.stderr)
            check(p.returncode == 0, f"{recipe}: after_script exit {p.returncode} as nobody")
            check(len(NoteServer.posts) == 1, f"{recipe}: {len(NoteServer.posts)} notes posted")
            path, token, body = NoteServer.posts[0]
            check(path == "/api/v4/projects/42/merge_requests/7/notes", f"{recipe}: {path}")
            check(token == "tok-123", f"{recipe}: token {token!r}")
            posted = urllib.parse.parse_qs(body.decode())["body"][0]
            check(posted == md, f"{recipe}: the note's body is {posted!r}")
        print(f"ok: {recipe}'s after_script as nobody", file=sys.stderr)


# --- the container recipes in podman ---------------------------------------------------------

# What this VM needs of podman besides the recipes' flags, none of it a privilege: runc (crun
# refuses a host whose cgroups are a v1/v2 hybrid) and rlimits no higher than the host's hard
# ones (the VM's root lacks CAP_SYS_RESOURCE, and podman's defaults exceed them).
def podman_env(tmp):
    conf = os.path.join(tmp, "containers.conf")
    nofile = subprocess.run(["sh", "-c", "ulimit -Hn"], capture_output=True, text=True).stdout.strip()
    with open(conf, "w", encoding="utf-8") as fh:
        fh.write(f'[containers]\ndefault_ulimits = ["nofile={nofile}:{nofile}", "nproc=4096:4096"]\n'
                 '[engine]\nruntime = "runc"\n')
    return dict(os.environ, CONTAINERS_CONF=conf)


def docker_to_podman(flags):
    """Docker's `--security-opt systempaths=unconfined` is podman's `unmask=ALL`."""
    return [("unmask=ALL" if f == "systempaths=unconfined" else f) for f in flags]


def gitlab_privileges(text):
    """The podman flags of what gitlab-ci-container.yml tells the runner to give."""
    flags = []
    for cap in re.findall(r'cap_add = \["([A-Z_]+)"\]', text):
        flags += ["--cap-add", cap]
    for opts in re.findall(r"security_opt = \[(.*?)\]", text):
        for opt in re.findall(r'"([^"]+)"', opts):
            flags += ["--security-opt", opt]
    for dev in re.findall(r'devices = \["([^"]+)"\]', text):
        flags += ["--device", dev]
    return docker_to_podman(flags)


def the_image(env):
    """The image under test: FSMOVE_OCI_IMAGE if set (one tools/oci-image built), else one
    built now from FSMOVE_DEB or the newest dist/fsmove_*.deb; None (skip) without one."""
    if os.environ.get("FSMOVE_OCI_IMAGE"):
        return os.environ["FSMOVE_OCI_IMAGE"]
    deb = os.environ.get("FSMOVE_DEB")
    if not deb:
        dist = os.path.join(ARGS.source, "dist")
        debs = sorted((os.path.join(dist, f) for f in os.listdir(dist) if f.endswith(".deb")),
                      key=os.path.getmtime) if os.path.isdir(dist) else []
        deb = debs[-1] if debs else None
    if not deb:
        print("skipped: no package to build the image from (tools/package writes "
              "dist/fsmove_VERSION_ARCH.deb; or set FSMOVE_DEB, or FSMOVE_OCI_IMAGE)", file=sys.stderr)
        sys.exit(SKIP)
    tag = "localhost/fsmove-e2e:test"
    p = subprocess.run([os.path.join(ARGS.source, "tools", "oci-image"), "--deb", deb, "--tag", tag],
                       env=dict(env, FSMOVE_BIN=ARGS.fsmove), capture_output=True, text=True,
                       timeout=1800)
    show("tools/oci-image", p.stderr[-3000:])
    check(p.returncode == 0, f"tools/oci-image exit {p.returncode}")
    return tag


def gitlab_job_script(job, sandbox):
    """before_script and script as the Docker executor runs them: one shell, stopping at the
    first failure; the job's variables exported first (GitLab expands $CI_* in them)."""
    lines = ["set -eo pipefail"]
    for name, value in job["variables"].items():
        if name == "FSMOVE_SANDBOX":
            value = sandbox
        lines.append(f'export {name}="{value}"')
    return "\n".join(lines + job["before_script"] + job["script"])


def run_gitlab_job(image, flags, sandbox, env, tmp, name):
    import yaml
    with open(os.path.join(ARGS.source, "tools", "ci", "gitlab-ci-container.yml"), encoding="utf-8") as fh:
        job = yaml.safe_load(fh)["fsmove"]
    builds = os.path.join(tmp, name)
    project = os.path.join(builds, "group", "cachedemo")
    shutil.copytree(os.path.join(ARGS.source, "fixtures", "example", "cachedemo"), project)
    cmd = ["podman", "run", "--rm", *flags, "-v", f"{builds}:/builds", "-w", "/builds/group/cachedemo",
           "-e", "CI_BUILDS_DIR=/builds", "-e", "CI_PROJECT_DIR=/builds/group/cachedemo", image,
           "bash", "-c", gitlab_job_script(job, sandbox)]
    print("+ " + " ".join(cmd[:-1]) + " JOB", file=sys.stderr)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    print(f"  exit {p.returncode}", file=sys.stderr)
    show("stderr", p.stderr[-3000:])
    return p, project


def judge_gitlab_reports(project, what):
    # JUnit fails the testcase of each finding's target: Service[memcached], for both.
    junit = ET.parse(os.path.join(project, "fsmove-junit.xml")).getroot()
    failed = {(c.get("name"), f.get("type")) for c in junit.iter("testcase") for f in c.iter("failure")}
    check(failed == {("Service[memcached]", "missing-ordering")} or
          failed == {("Service[memcached]", "missing-notifier")}, f"{what}: JUnit failures {failed}")
    text = "".join(f.text or "" for f in junit.iter("failure"))
    check("File[/var/log/memcached.log]" in text and "File[/etc/memcached.conf]" in text,
          f"{what}: the JUnit failure does not hold both findings")
    with open(os.path.join(project, "gl-code-quality-report.json"), encoding="utf-8") as fh:
        issues = json.load(fh)
    check(sorted(i["check_name"] for i in issues) == ["missing-notifier", "missing-ordering"],
          f"{what}: Code Quality issues {issues}")
    check(all(i["location"]["path"] == "manifests/init.pp" for i in issues),
          f"{what}: Code Quality paths not relative to the project")
    with open(os.path.join(project, "fsmove.sarif"), encoding="utf-8") as fh:
        results = json.load(fh)["runs"][0]["results"]
    check(len(results) == 2, f"{what}: {len(results)} SARIF results")


def github_container_step(env, image, tmp):
    """tools/ci/github-container.yml's container (its image's options) and steps (import, run)
    as the runner runs them: the workspace and the runner's temporary directory bind-mounted."""
    import yaml
    with open(os.path.join(ARGS.source, "tools", "ci", "github-container.yml"), encoding="utf-8") as fh:
        job = yaml.safe_load(fh)["jobs"]["fsmove"]
    flags = docker_to_podman(job["container"]["options"].split())
    work = os.path.join(tmp, "gh")
    ws = os.path.join(work, "cachedemo", "cachedemo")
    shutil.copytree(os.path.join(ARGS.source, "fixtures", "example", "cachedemo"), ws)
    os.makedirs(os.path.join(work, "_temp"))
    steps = [s["run"] for s in job["steps"] if s.get("name") in ("Import the pinned root", "Run fsmove")]
    check(len(steps) == 2, "github-container.yml: no import and run steps")
    script = ("set -eo pipefail\nexport GITHUB_ENV=/__w/_temp/env GITHUB_OUTPUT=/__w/_temp/out\n"
              + steps[0] + "\n. <(sed 's/^/export /' \"$GITHUB_ENV\")\n" + steps[1])
    cmd = ["podman", "run", "--rm", *flags, "-v", f"{work}:/__w", "-w", "/__w/cachedemo/cachedemo",
           "-e", "RUNNER_TEMP=/__w/_temp", "-e", "GITHUB_WORKSPACE=/__w/cachedemo/cachedemo",
           image, "bash", "-c", script]
    print("+ " + " ".join(cmd[:-1]) + " STEPS", file=sys.stderr)
    p = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=900)
    show("stderr", p.stderr[-3000:])
    check(p.returncode == 0, f"github-container.yml's steps: exit {p.returncode}")
    with open(os.path.join(work, "_temp", "out"), encoding="utf-8") as fh:
        out = dict(l.strip().split("=", 1) for l in fh if "=" in l)
    check(out.get("fsmove-exit-code") == "1", f"github-container.yml: outputs {out}")
    with open(os.path.join(ws, "fsmove.sarif"), encoding="utf-8") as fh:
        results = json.load(fh)["runs"][0]["results"]
    check(sorted(r["ruleId"] for r in results) == ["missing-notifier", "missing-ordering"],
          f"github-container.yml: SARIF results {results}")


def case_container_recipes():
    """The image tools/oci-image builds from the .deb, and both container recipes run in it in
    podman (rootful), the bundled example's two findings each time: the GitLab job with the
    privileges its comment tells the runner to give, then without them (the sandbox cannot
    start: exit 2, saying why), then without them and FSMOVE_SANDBOX=none; and the GitHub
    container job with its options. Slow: the image takes minutes to build."""
    for tool in ("podman", "buildah", "mmdebstrap"):
        if not shutil.which(tool):
            print(f"skipped: no {tool} (tools/bootstrap installs it)", file=sys.stderr)
            sys.exit(SKIP)
    with tempfile.TemporaryDirectory(dir="/var/tmp") as tmp:
        env = podman_env(tmp)
        image = the_image(env)
        with open(os.path.join(ARGS.source, "tools", "ci", "gitlab-ci-container.yml"), encoding="utf-8") as fh:
            flags = gitlab_privileges(fh.read())
        check("--cap-add" in flags and "--device" in flags, f"privileges not found: {flags}")
        p, project = run_gitlab_job(image, flags, "overlay", env, tmp, "sandboxed")
        check(p.returncode == 1, f"the GitLab job in the sandbox: exit {p.returncode}, expected 1")
        judge_gitlab_reports(project, "sandboxed")
        p, project = run_gitlab_job(image, [], "overlay", env, tmp, "unprivileged")
        check(p.returncode == 2 and "Operation not permitted" in p.stderr,
              f"without privileges the sandbox started (exit {p.returncode})")
        p, project = run_gitlab_job(image, [], "none", env, tmp, "none")
        check(p.returncode == 1, f"FSMOVE_SANDBOX=none: exit {p.returncode}, expected 1")
        judge_gitlab_reports(project, "--sandbox none")
        github_container_step(env, image, tmp)
