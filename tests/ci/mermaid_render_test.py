#!/usr/bin/env python3
"""Renders the Mermaid that fsmove writes with Mermaid's own CLI (mmdc, from the npm package
@mermaid-js/mermaid-cli), headless: the markdown reports of recorded runs (every ```mermaid
block of the comment) and `fsmove graph --around --format mermaid` on a catalog of hostile
titles. Each must render to SVG, and nothing hostile may reach the SVG as markup.

mmdc is not a build dependency: it is taken from $FSMOVE_MMDC (CTest sets it from the CMake
cache variable FSMOVE_MMDC: `cmake -DFSMOVE_MMDC=...`, found on PATH by default), else PATH;
without it the test exits 77 (skipped). Chromium from $FSMOVE_CHROMIUM (default /usr/bin/chromium) runs it, with
--no-sandbox when run as root. Setting it up (about a minute, once):

  mkdir -p ~/mmdc && cd ~/mmdc && PUPPETEER_SKIP_DOWNLOAD=1 npm install @mermaid-js/mermaid-cli
  cmake -DFSMOVE_MMDC=$HOME/mmdc/node_modules/.bin/mmdc build   # or export FSMOVE_MMDC=...

Usage: mermaid_render_test.py FSMOVE SOURCE_DIR
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
from review_formats_test import fail, hostile_catalog, recorded_root  # noqa: E402

SKIP = 77


def render(mmdc, config, source, target):
    proc = subprocess.run([mmdc, "--puppeteerConfigFile", str(config), "--quiet",
                           "-i", str(source), "-o", str(target)],
                          capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        fail(f"mmdc could not render {source.name}:\n{proc.stdout}{proc.stderr}\n"
             f"{source.read_text()}")


def main():
    fsmove, src = sys.argv[1], Path(sys.argv[2])
    mmdc = os.environ.get("FSMOVE_MMDC") or shutil.which("mmdc")
    if not mmdc or not os.access(mmdc, os.X_OK):
        print("skipped: no mmdc (set FSMOVE_MMDC; see this file's docstring)")
        sys.exit(SKIP)
    chromium = os.environ.get("FSMOVE_CHROMIUM", "/usr/bin/chromium")
    traces = src / "traces"
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        config = tmp / "puppeteer.json"
        args = ["--no-sandbox", "--disable-gpu"] if os.geteuid() == 0 else ["--disable-gpu"]
        config.write_text(json.dumps({"executablePath": chromium, "args": args}))

        # The pull-request comment of two recorded runs, both pictures rendered.
        for trace in ("faults-configure-use-bad", "faults-config-service-bad"):
            markdown = tmp / f"{trace}.md"
            subprocess.run([fsmove, "analyze", "--trace", str(traces / trace / "trace.zst"),
                            "--catalog", str(traces / trace / "catalog.json"), "--source-root",
                            recorded_root(traces / trace / "catalog.json"), "--format",
                            "markdown", "-o", str(markdown)], capture_output=True, timeout=300)
            blocks = re.findall(r"^```mermaid\n(.*?)^```$", markdown.read_text(), re.S | re.M)
            if not blocks:
                fail(f"{trace}: no Mermaid block in the markdown")
            for n, block in enumerate(blocks):
                source = tmp / f"{trace}-{n}.mmd"
                source.write_text(block)
                render(mmdc, config, source, tmp / f"{trace}-{n}.svg")
            print(f"ok: {trace}: {len(blocks)} Mermaid block(s) rendered by mmdc")

        # Hostile titles: rendered, and inert in the SVG.
        catalog = tmp / "hostile.json"
        file_ref, exec_ref = hostile_catalog(catalog)
        source = tmp / "hostile.mmd"
        proc = subprocess.run([fsmove, "graph", "--catalog", str(catalog), "--around", file_ref,
                               "--and", exec_ref, "--format", "mermaid", "-o", str(source)],
                              capture_output=True, text=True, timeout=60)
        if proc.returncode != 0:
            fail(f"fsmove graph --around: {proc.stderr}")
        svg_path = tmp / "hostile.svg"
        render(mmdc, config, source, svg_path)
        svg = svg_path.read_text()
        if "<img" in svg:
            fail("hostile: an <img> element reached the SVG")
        if "Package[p]" not in svg or "pwn" not in svg:
            fail("hostile: the labels are not in the SVG")
        nodes = len(re.findall(r'class="node[ "]', svg))
        if nodes != len(re.findall(r'^  n\d+\["', source.read_text(), re.M)):
            fail(f"hostile: the SVG has {nodes} nodes, the source declares others (injected?)")
        print(f"ok: hostile titles rendered inert ({nodes} nodes)")


if __name__ == "__main__":
    main()
