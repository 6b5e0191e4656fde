"""Cases of check_e2e.py: what the sandbox sees of the host's files. A module kept in a
directory with secrets beside it (a root-only file, a home directory's .ssh and .config, a
directory of notes that is no module) reads them at compile time (a Ruby function) and at
apply time (an exec); none of them may reach anything the run writes. A link in the module
that leads out of it is refused before Puppet runs, by its name."""
import json
import os
import re
import shutil
import sys
import tempfile

from e2e_lib import ARGS, check, fsmove

MODULE = "inputs_probe"

# Reads each path given (a directory: its names), at compile time, in Puppet's own process.
PEEK = """Puppet::Functions.create_function(:'inputs_probe::peek') do
  dispatch :peek do
    param 'Array[String]', :paths
  end

  def peek(paths)
    paths.map do |p|
      begin
        File.directory?(p) ? "#{p}: [#{Dir.children(p).sort.join(' ')}]" : "#{p}: #{File.read(p)}"
      rescue StandardError => e
        "#{p}: #{e.class}"
      end
    end.join("\\n")
  end
end
"""


def lay_out(top, canary, owner=None):
    """TOP as a home directory holding the module: secrets beside it (0600), a .ssh and a
    .config, a directory that is no module, a sibling module the module does not declare.
    Returns the module's directory."""
    module = os.path.join(top, MODULE)
    secrets = {
        "secret": f"root-only {canary}-secret\n",
        ".ssh/id_rsa": f"-----BEGIN KEY----- {canary}-ssh\n",
        ".config/token": f"{canary}-config\n",
        "notes/todo.txt": f"{canary}-notes\n",
        "other/manifests/init.pp": f"class other {{ notify {{ '{canary}-sibling': }} }}\n",
        # A CI checkout's credentials, inside the module itself (actions/checkout keeps its
        # token in .git/config; a GitLab runner's is in the remote URL).
        f"{MODULE}/.git/config": f"[remote \"origin\"]\n  url = https://ci:{canary}-git@x.invalid/m\n",
    }
    for rel, text in secrets.items():
        path = os.path.join(top, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.chmod(path, 0o600)
    reads = [os.path.join(top, rel) for rel in secrets] + [top]
    listed = "[" + ", ".join(f"'{p}'" for p in reads) + "]"
    cat = " ".join(reads[:-1])
    files = {
        "metadata.json": json.dumps({"name": f"fsmove-{MODULE}", "version": "0.1.0",
                                     "author": "fsmove", "summary": "reads beside itself",
                                     "license": "MIT", "source": "https://example.invalid/x",
                                     "dependencies": []}),
        "manifests/init.pp": (
            f"class {MODULE} {{\n"
            f"  notify {{ 'compile view': message => {MODULE}::peek({listed}) }}\n"
            f"  exec {{ 'apply view':\n"
            f"    command   => \"/bin/sh -c 'cat {cat}; ls -a {top}; true'\",\n"
            f"    logoutput => true,\n  }}\n}}\n"),
        f"lib/puppet/functions/{MODULE}/peek.rb": PEEK,
    }
    for rel, text in files.items():
        path = os.path.join(module, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
    if owner is not None:
        for d, subdirs, names in os.walk(top):
            for n in [d] + [os.path.join(d, x) for x in subdirs + names]:
                os.lchown(n, owner.pw_uid, owner.pw_gid)
    return module


def leaked(canary, texts, dirs):
    """Where `canary` appears: in the texts given (name -> text) or any file under `dirs`."""
    found = [name for name, text in texts.items() if canary in (text or "")]
    for top in dirs:
        for d, _, names in os.walk(top):
            for n in names:
                path = os.path.join(d, n)
                if os.path.islink(path) or not os.path.isfile(path):
                    continue
                with open(path, "rb") as fh:
                    if canary.encode() in fh.read():
                        found.append(path)
    return found


def check_inputs(top, out, canary, run):
    """The refused link, then one check of the module; `run(*args)` runs fsmove as wanted,
    writing into `out`."""
    module = lay_out(top, canary, run.owner)
    # A link that leads out of the module, to a manifest beside it: refused by its name.
    outside = os.path.join(top, "evil.pp")
    with open(outside, "w", encoding="utf-8") as fh:
        fh.write(f"class {MODULE}::evil {{ notify {{ '{canary}-link': }} }}\n")
    link = os.path.join(module, "manifests", "evil.pp")
    os.symlink(outside, link)
    if run.owner is not None:
        os.lchown(outside, run.owner.pw_uid, run.owner.pw_gid)
        os.lchown(link, run.owner.pw_uid, run.owner.pw_gid)
    p = run("check", "-q", module)
    check(p.returncode == 2, f"the link out of the module was not refused: exit {p.returncode}")
    check("manifests/evil.pp" in p.stderr and "leads out of the module" in p.stderr,
          f"the refusal does not name the link: {p.stderr[-1500:]}")
    check(canary not in p.stdout + p.stderr, "the refusal shows what the link leads to")
    os.remove(link)

    report, catalog, trace = (os.path.join(out, n) for n in ("report.json", "catalog.json", "trace"))
    log, work = os.path.join(out, "puppet.log"), os.path.join(out, "work")
    os.mkdir(work)
    if run.owner is not None:
        os.chown(work, run.owner.pw_uid, run.owner.pw_gid)
    p = run("check", "-q", "--format", "json", "-o", report, "--save-catalog", catalog,
            "--save-trace", trace, "--puppet-log", log, "--keep-work", "--work-dir", work, module)
    check(p.returncode in (0, 1), f"exit code {p.returncode}: {p.stderr[-3000:]}")
    with open(catalog, encoding="utf-8") as fh:
        cat = fh.read()
    with open(log, encoding="utf-8", errors="replace") as fh:
        puppet_log = fh.read()
    # Both phases ran and looked: the module's parent shows the module alone.
    check(f"{top}: [{MODULE}]" in cat, f"the compile's view of {top} is not the module alone: "
          + cat[cat.find("compile view"):][:1500])
    marker = "Exec[apply view]/returns: "
    plain = re.sub(r"\x1b\[[0-9;]*m", "", puppet_log)
    listed = {l.split(marker, 1)[1].strip() for l in plain.splitlines() if marker in l}
    check(MODULE in listed, f"the apply's exec did not list the module's parent: {sorted(listed)}")
    shown = listed & {"secret", ".ssh", ".config", "notes", "other", "evil.pp"}
    check(not shown, f"the apply sees beside the module: {sorted(shown)}")
    found = leaked(canary, {"stdout": p.stdout, "stderr": p.stderr}, [out])
    check(not found, f"what is beside the module reached the run: {found}")


class Run:
    """fsmove as root, or (owner set) as that user through setpriv."""

    def __init__(self, owner=None, binary=None):
        self.owner, self.binary = owner, binary

    def __call__(self, *args):
        if self.owner is None:
            return fsmove(*args, timeout=1200)
        tested, ARGS.fsmove = ARGS.fsmove, self.binary
        try:
            return fsmove(*args, prefix=["setpriv", f"--reuid={self.owner.pw_uid}",
                                         f"--regid={self.owner.pw_gid}", "--init-groups", "--"],
                          env={"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": self.owner.pw_dir,
                               "LANG": "C.UTF-8"}, cwd="/", timeout=1800)
        finally:
            ARGS.fsmove = tested


def case_inputs():
    """As root: the module's parent holds root-only secrets; the sandbox shows the module
    alone, in both phases."""
    canary = f"fsmove-inputs-{os.getpid()}"
    with tempfile.TemporaryDirectory() as top, tempfile.TemporaryDirectory() as out:
        check_inputs(top, out, canary, Run())
    print("ok: nothing beside the module reached the run", file=sys.stderr)


def case_inputs_rootless():
    """Run by an ordinary user, the module kept in a directory of theirs (a home: .ssh,
    .config): the same. The manifest needs no network (no /dev/net/tun for the user)."""
    from check_rootless import rootless_user
    user = rootless_user()
    canary = f"fsmove-inputs-rootless-{os.getpid()}"
    with tempfile.TemporaryDirectory() as tmp:
        os.chmod(tmp, 0o755)
        binary = os.path.join(tmp, "fsmove")
        shutil.copy(ARGS.fsmove, binary)
        os.chmod(binary, 0o755)
        top, out = os.path.join(tmp, "home"), os.path.join(tmp, "out")
        for d in (top, out):
            os.mkdir(d, 0o700)
            os.chown(d, user.pw_uid, user.pw_gid)
        check_inputs(top, out, canary, Run(user, binary))
    print("ok: nothing beside the module reached the run, rootless", file=sys.stderr)
