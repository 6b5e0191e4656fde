#!/usr/bin/env python3
"""The CI recipes stay consistent with the scripts they drive: action.yml and
tools/ci/gitlab-ci.yml parse as YAML, every `inputs.X` the action uses is declared and every
declared input is used, every run-check option they pass exists in tools/ci/run-check, the
action uploads SARIF with github/codeql-action/upload-sarif and JUnit as an artifact, feeds
reviewdog the rdjson file run-check wrote and the job summary its Markdown, and the GitLab job
hands GitLab the JUnit and Code Quality files the script writes. Both install the package with
tools/ci/install-fsmove (the action caching it under the key the script prints, the job under
a path it keeps) and run on the runner's machine: no container, nothing privileged, no build
but the script's fallback; the GitLab job's run-check is where the package installs it. The
container recipes (tools/ci/gitlab-ci-container.yml, tools/ci/github-container.yml) run the
image's run-check after importing its root into a cache on a volume, and name the privileges
e2e.container-recipes measured; no after_script installs anything (it runs as the runner's
user).

Usage: ci_config_test.py SOURCE_DIR
"""
import re
import sys
from pathlib import Path

import yaml


def fail(message):
    print(f"FAIL: {message}", file=sys.stderr)
    sys.exit(1)


def run_check_options(script):
    """The long options run-check's argument loop accepts."""
    return set(re.findall(r"^\s+(--[a-z-]+)\)", script, re.M))


def options_in(text):
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*)", text))


def main():
    src = Path(sys.argv[1])
    accepted = run_check_options((src / "tools/ci/run-check").read_text())
    if not {"--module", "--trace", "--catalog", "--sarif", "--junit", "--baseline",
            "--fail-on-findings", "--fsmove", "--source-root", "--rdjson", "--codequality",
            "--markdown"} <= accepted:
        fail(f"run-check options not found: {sorted(accepted)}")

    action = yaml.safe_load((src / "action.yml").read_text())
    if action["runs"]["using"] != "composite":
        fail("action.yml is not a composite action")
    declared = set(action["inputs"])
    text = (src / "action.yml").read_text()
    used = set(re.findall(r"inputs\.([a-z-]+)", text))
    if used - declared:
        fail(f"action.yml uses undeclared inputs {sorted(used - declared)}")
    if declared - used:
        fail(f"action.yml declares unused inputs {sorted(declared - used)}")
    steps = action["runs"]["steps"]
    run_step = next((s for s in steps if "tools/ci/run-check" in s.get("run", "")), None)
    if run_step is None:
        fail("action.yml has no step running tools/ci/run-check")
    unknown = options_in(run_step["run"]) - accepted
    if unknown:
        fail(f"action.yml passes options run-check does not know: {sorted(unknown)}")
    uses = [s.get("uses", "") for s in steps]
    if not any(u.startswith("github/codeql-action/upload-sarif@") for u in uses):
        fail("action.yml does not upload SARIF with github/codeql-action/upload-sarif")
    if not any(u.startswith("actions/upload-artifact@") for u in uses):
        fail("action.yml does not upload the JUnit report as an artifact")
    for option in ("--rdjson", "--markdown"):
        if option not in run_step["run"]:
            fail(f"action.yml does not ask run-check for {option}")
    reviewdog = next((s for s in steps if "reviewdog " in s.get("run", "")), None)
    if reviewdog is None or "-f=rdjson" not in reviewdog["run"] or \
            "steps.check.outputs.rdjson-file" not in reviewdog.get("if", "") + \
            str(reviewdog.get("env", {})):
        fail("action.yml does not run reviewdog -f=rdjson on the rdjson file run-check wrote")
    if not any(u.startswith("reviewdog/action-setup@") for u in uses):
        fail("action.yml does not install reviewdog (reviewdog/action-setup)")
    if not any("GITHUB_STEP_SUMMARY" in s.get("run", "") for s in steps):
        fail("action.yml does not write the Markdown report to the job summary")
    outputs = set(re.findall(r"steps\.check\.outputs\.([a-z-]+)", text))
    script = (src / "tools/ci/run-check").read_text()
    for name in outputs:
        if f'echo "{name}=' not in script:
            fail(f"action.yml reads output {name} that run-check never writes")
    install = next((s for s in steps if "tools/ci/install-fsmove\" --cache" in s.get("run", "")), None)
    if install is None or install.get("id") != "install":
        fail("action.yml does not install fsmove with tools/ci/install-fsmove (step id install)")
    key_step = next((s for s in steps if "install-fsmove\" --print-key" in s.get("run", "")), {})
    cache = next((s for s in steps if s.get("uses", "").startswith("actions/cache@")), None)
    if cache is None or cache["with"]["key"] != "${{ steps.%s.outputs.key }}" % key_step.get("id"):
        fail("action.yml does not cache the package under install-fsmove --print-key's key")
    if "--cache \"$RUNNER_TEMP/fsmove-deb\"" not in install["run"] or \
            cache["with"]["path"] != "${{ runner.temp }}/fsmove-deb":
        fail("action.yml caches another directory than install-fsmove's --cache")
    if run_step.get("env", {}).get("FSMOVE_BIN") != "${{ steps.install.outputs.fsmove }}":
        fail("action.yml does not run the fsmove the install step installed")
    for word in ("tools/bootstrap", "privileged", "container:"):
        if word in "\n".join(l for l in text.splitlines() if not l.lstrip().startswith("#")):
            fail(f"action.yml still says {word!r}: it installs the package and runs on the runner")
    print(f"ok: action.yml ({len(declared)} inputs, {len(steps)} steps)")

    gitlab_text = (src / "tools/ci/gitlab-ci.yml").read_text()
    gitlab = yaml.safe_load(gitlab_text)
    job = gitlab["fsmove"]
    script_text = " ".join(job["script"])
    unknown = options_in(script_text) - accepted
    if unknown:
        fail(f"gitlab-ci.yml passes options run-check does not know: {sorted(unknown)}")
    junit = re.search(r"--junit\s+(\S+)", script_text)
    if not junit or job["artifacts"]["reports"]["junit"] != junit.group(1):
        fail("gitlab-ci.yml: artifacts:reports:junit is not the file run-check writes")
    codequality = re.search(r"--codequality\s+(\S+)", script_text)
    if not codequality or job["artifacts"]["reports"].get("codequality") != codequality.group(1):
        fail("gitlab-ci.yml: artifacts:reports:codequality is not the file run-check writes")
    markdown = re.search(r"--markdown\s+(\S+)", script_text)
    if not markdown or markdown.group(1) not in job["artifacts"]["paths"]:
        fail("gitlab-ci.yml: the Markdown report is not kept as an artifact")
    if job["artifacts"].get("when") != "always":
        fail("gitlab-ci.yml: reports must be kept when the job fails (artifacts:when: always)")
    for key in ("image", "services"):
        if key in job:
            fail(f"gitlab-ci.yml: the job has {key}: it runs on the runner's machine (shell executor)")
    before = " ".join(job["before_script"])
    cached = re.search(r'install-fsmove" --cache "\$CI_PROJECT_DIR/(\S+)"', before)
    if not cached or cached.group(1) not in [p.rstrip("/") for p in job["cache"]["paths"]]:
        fail("gitlab-ci.yml: install-fsmove's --cache is not a path the job caches")
    if "FSMOVE_VERSION" not in job["cache"]["key"]:
        fail("gitlab-ci.yml: the cache is not keyed by FSMOVE_VERSION")
    if "privileged" in gitlab_text.replace("not privileged", ""):
        fail("gitlab-ci.yml still asks for a privileged container")
    run_check = re.search(r"(/usr/\S*/run-check)", script_text)
    package = (src / "cmake/package.cmake").read_text()
    if not run_check or not re.search(
            r"install\(PROGRAMS \$\{PROJECT_SOURCE_DIR\}/tools/ci/run-check DESTINATION "
            + re.escape(run_check.group(1)[len("/usr/"):-len("/run-check")]) + r"\)", package):
        fail("gitlab-ci.yml runs a run-check the package does not install there")
    print("ok: tools/ci/gitlab-ci.yml")

    # The container recipes: the image's run-check, the root imported from the image into a
    # cache outside the image's overlayfs, the privileges e2e.container-recipes measured.
    text = (src / "tools/ci/gitlab-ci-container.yml").read_text()
    job = yaml.safe_load(text)["fsmove"]
    script_text = " ".join(job["script"])
    unknown = options_in(script_text.split(" -- ")[0]) - accepted
    if unknown:
        fail(f"gitlab-ci-container.yml passes options run-check does not know: {sorted(unknown)}")
    if job.get("image") != "$FSMOVE_IMAGE" or "/usr/libexec/fsmove/run-check" not in script_text:
        fail("gitlab-ci-container.yml does not run the image's run-check in $FSMOVE_IMAGE")
    for report in ("junit", "codequality"):
        m = re.search(r"--%s\s+(\S+)" % report, script_text)
        if not m or job["artifacts"]["reports"].get(report) != m.group(1):
            fail(f"gitlab-ci-container.yml: artifacts:reports:{report} is not run-check's file")
    if "fsmove root import" not in " ".join(job["before_script"]) or \
            not job["variables"]["FSMOVE_ROOT_CACHE"].startswith("$CI_BUILDS_DIR/"):
        fail("gitlab-ci-container.yml does not import the root into a cache on the builds volume")
    for flag in ('cap_add = ["SYS_ADMIN"]', '"systempaths=unconfined"', '"apparmor=unconfined"',
                 'devices = ["/dev/net/tun"]'):
        if flag not in text:
            fail(f"gitlab-ci-container.yml does not tell the runner {flag}")
    for recipe, after in (("gitlab-ci.yml", gitlab["fsmove"]["after_script"]),
                          ("gitlab-ci-container.yml", job["after_script"])):
        if re.search(r"\b(apt-get|apt|sudo)\b", " ".join(after)):
            fail(f"{recipe}: after_script installs or needs root (it runs as the runner's user)")
    print("ok: tools/ci/gitlab-ci-container.yml")
    gh = yaml.safe_load((src / "tools/ci/github-container.yml").read_text())["jobs"]["fsmove"]
    options = gh["container"]["options"].split()
    for flag in ("SYS_ADMIN", "systempaths=unconfined", "apparmor=unconfined", "/dev/net/tun"):
        if flag not in options:
            fail(f"github-container.yml: the container's options lack {flag}")
    runs = " ".join(str(step.get("run", "")) for step in gh["steps"])
    if "fsmove root import" not in runs or "RUNNER_TEMP/fsmove-roots" not in runs or \
            "/usr/libexec/fsmove/run-check" not in runs:
        fail("github-container.yml does not import the root into $RUNNER_TEMP and run run-check")
    print("ok: tools/ci/github-container.yml")

    # The scan's matrix recipe installs the package and runs on the runner, as the action does.
    matrix_text = (src / "tools/scan/github-matrix.yml").read_text()
    matrix = yaml.safe_load(matrix_text)
    for name, job in matrix["jobs"].items():
        if "container" in job:
            fail(f"tools/scan/github-matrix.yml: job {name} runs in a container")
        steps = " ".join(str(step.get("run", "")) for step in job["steps"])
        if "tools/ci/install-fsmove" not in steps or "tools/bootstrap" in steps:
            fail(f"tools/scan/github-matrix.yml: job {name} does not install the package with "
                 "tools/ci/install-fsmove")
    if "privileged" in matrix_text.replace("nothing privileged", ""):
        fail("tools/scan/github-matrix.yml still asks for a privileged container")
    if "sudo -n fsmove scan" not in matrix_text:
        fail("tools/scan/github-matrix.yml does not run the scan as root through sudo -n")
    print("ok: tools/scan/github-matrix.yml")


if __name__ == "__main__":
    main()
