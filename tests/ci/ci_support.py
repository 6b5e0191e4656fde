"""What the tests of fsmove's reports share: failing with a message, the checkout a recorded
fixture's catalog was compiled in, a manifest with a suppression comment, running fsmove with
the exit status expected, and judging documents against a JSON schema (and that broken
variants of a real one fail)."""
import copy
import json
import subprocess
import sys
from pathlib import Path


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


def commented_code(source_dir, out_dir, rule="missing-ordering"):
    """A copy of the configure-use fault's manifest whose Exec carries `# fsmove:ignore:RULE
    reason` on its declaration line (15), in OUT_DIR/code: the --source-root under which the
    recorded run's finding is suppressed in the source."""
    lines = (Path(source_dir) / "fixtures/faults/configure-use/bad.pp").read_text().splitlines()
    if not lines[14].startswith("exec { 'use config':"):
        fail(f"fixtures/faults/configure-use/bad.pp line 15 moved: {lines[14]}")
    lines[14] += f"  # fsmove:ignore:{rule} reads it if it is there"
    code = Path(out_dir) / "code"
    code.mkdir(exist_ok=True)
    (code / "bad.pp").write_text("\n".join(lines) + "\n")
    return code


def run_fsmove(fsmove, args, expected_status):
    """fsmove with ARGS; fails the test unless it exits with expected_status."""
    proc = subprocess.run([fsmove, *args], capture_output=True, text=True, timeout=300)
    if proc.returncode != expected_status:
        fail(f"fsmove {' '.join(map(str, args))} exited {proc.returncode}, expected "
             f"{expected_status}\n{proc.stderr}")
    return proc


def analyze_recorded(fsmove, trace_dir, args, expected_status):
    """fsmove analyze on a recorded run (TRACE_DIR's trace.zst and catalog.json) with ARGS."""
    return run_fsmove(fsmove, ["analyze", "--trace", str(trace_dir / "trace.zst"),
                               "--catalog", str(trace_dir / "catalog.json"), *map(str, args)],
                      expected_status)


def validated_documents(fsmove, validator, traces, out_dir, report_format, cases):
    """Each of CASES, (name, trace, options, expected status), analysed into a REPORT_FORMAT
    document in OUT_DIR and checked against VALIDATOR: the documents by name."""
    documents = {}
    for name, trace, options, status in cases:
        out = out_dir / f"{name}.{report_format}"
        analyze_recorded(fsmove, traces / trace,
                         ["--format", report_format, "-o", out, *options], status)
        documents[name] = json.loads(out.read_text())
        check_valid(validator, name, documents[name])
        print(f"ok: {name} is a valid {report_format} document")
    return documents


def schema_validator(schema_path, draft):
    """A validator of SCHEMA_PATH's schema, which must be of DRAFT (a jsonschema validator
    class), with format checks on."""
    import jsonschema  # only the schema tests need it
    schema = json.loads(schema_path.read_text())
    validator_class = jsonschema.validators.validator_for(schema)
    if validator_class is not draft:
        fail(f"expected a {draft.__name__} schema, got {validator_class.__name__}")
    validator_class.check_schema(schema)
    return validator_class(schema, format_checker=validator_class.FORMAT_CHECKER)


def check_valid(validator, name, document):
    """Fails the test, naming the first errors, unless DOCUMENT is valid."""
    errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
    for error in errors[:10]:
        print(f"{name}: {'/'.join(map(str, error.path))}: {error.message}", file=sys.stderr)
    if errors:
        fail(f"{name}: {len(errors)} schema errors")


def without(path):
    """A mutation deleting the member at PATH (keys and indexes)."""
    def mutate(doc):
        *parents, last = path
        node = doc
        for key in parents:
            node = node[key]
        del node[last]
    return mutate


def setting(path, value):
    """A mutation setting the member at PATH to VALUE."""
    def mutate(doc):
        *parents, last = path
        node = doc
        for key in parents:
            node = node[key]
        node[last] = value
    return mutate


def check_mutations_rejected(validator, good, mutations):
    """Each of MUTATIONS (name: mutation) applied to a copy of GOOD must change it and make
    it invalid: the validator is not a rubber stamp."""
    for name, mutate in mutations.items():
        broken = copy.deepcopy(good)
        mutate(broken)
        if broken == good:
            fail(f"mutation '{name}' changed nothing")
        if validator.is_valid(broken):
            fail(f"the validator accepted a broken document ({name})")
    print(f"ok: {len(mutations)} broken variants rejected")
