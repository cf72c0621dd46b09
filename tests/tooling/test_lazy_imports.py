"""Heavy libraries stay off the paths that do not need them (the timings live in bench/, not here).

Each command runs in a fresh interpreter, as a user would run it, and reports the modules it imported.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

MARKER = "#modules:"
PROBE = f"""
import json, sys
from releasegate.cli import main
try:
    main(sys.argv[1:], prog_name="releasegate")
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print({MARKER!r} + json.dumps({{"code": code, "modules": sorted(sys.modules)}}))
"""

RENDERING = ("altair", "weasyprint", "vl_convert")
# scipy.stats costs 0.7 s to import, scipy.special 0.2 s: the library has its own distribution functions.
SCIPY = ("scipy.stats", "scipy.special")
# Only `releasegate run` calls systems: its HTTP client stays off every other command (issue 20).
RUNNING = ("aiohttp", "httpx")
# Only verify and history read notes back (a PDF note through pypdf): no other command imports them.
AUDIT = ("releasegate.audit", "pypdf", "jsonschema")
# The optional sections' and inputs' own modules load only when their input is there: the judge against gold
# labels (PPI++), grouped cases (CR2, the cluster sign-flip), runs, a run store (SQLite), the HTML page's case
# explorer and the chart worker; the item and run axes' and grouped cases' own types (model/axes.py) and the item
# axis (scores). The bundled example has none of them (pass/fail, one run, no clusters, no gold, a CSV).
OPTIONAL = ("releasegate.model.axes", "releasegate.analyze.items", "releasegate.stats.ppi", "releasegate.stats.ppi_strata", "releasegate.stats.judge_agreement",
            "releasegate.analyze.judge", "releasegate.analyze.judge_gated", "releasegate.validate.gold",
            "releasegate.stats.clusters", "releasegate.stats.cluster_signflip_interval", "releasegate.analyze.clusters",
            "releasegate.analyze.runs", "releasegate.load.store", "releasegate.load.store_table",
            "releasegate.load.settled", "sqlite3", "releasegate.render.explorer",
            "releasegate.render.explorer_page", "releasegate.render.chart_worker")


def imported(*args: str) -> tuple[int, set[str]]:
    """Run ``releasegate ARGS`` in a fresh interpreter; its exit code and the top-level and dotted modules it loaded."""
    done = subprocess.run([sys.executable, "-c", PROBE, *map(str, args)], check=False, capture_output=True, text=True,
                          timeout=120)
    line = next((x for x in done.stdout.splitlines() if x.startswith(MARKER)), None)
    assert line is not None, done.stderr
    report = json.loads(line[len(MARKER):])
    return report["code"], set(report["modules"])


def _loaded(modules: set[str], name: str) -> bool:
    return name in modules or any(m.startswith(name + ".") for m in modules)


def test_help_imports_no_heavy_library():
    code, modules = imported("--help")
    assert code == 0
    assert "click" in modules  # the probe really ran the command line
    # zipfile: only a file that starts as a zip archive is opened as one (pandas imports it on the commands that read)
    for name in ("pandas", "numpy", "scipy", "pyarrow", "jinja2", "zipfile", *RENDERING, *RUNNING, *AUDIT):
        assert not _loaded(modules, name), f"releasegate --help imports {name}"


def test_check_imports_no_renderer_and_no_scipy(example):
    code, modules = imported("check", example["eval_results.csv"], "--cases", example["eval_cases.csv"],
                             "--policy", example["releasegate.toml"])
    assert code == 1  # the example's candidates are DON'T SHIP: the gate ran to its verdict
    assert "pandas" in modules and "releasegate.stats.distributions" in modules
    for name in (*SCIPY, "jinja2", *RENDERING, *RUNNING, *AUDIT, *OPTIONAL, "releasegate.run"):
        assert not _loaded(modules, name), f"releasegate check imports {name}"


@pytest.mark.parametrize("suffix,forbidden", [
    (".md", (*SCIPY, *RENDERING)),
    (".json", (*SCIPY, "jinja2", *RENDERING)),
])
def test_text_reports_import_no_html_or_pdf_stack(tmp_path, example, suffix, forbidden):
    out = tmp_path / f"note{suffix}"
    code, modules = imported("report", example["eval_results.csv"], "--cases", example["eval_cases.csv"],
                             "--policy", example["releasegate.toml"], "-o", out)
    assert code == 0 and out.stat().st_size > 0
    for name in (*forbidden, *AUDIT, *OPTIONAL):
        assert not _loaded(modules, name), f"releasegate report -o {out.name} imports {name}"


def test_reading_a_run_store_imports_no_http_client(tmp_path):
    from run_support import write_cases, write_config

    cases = write_cases(tmp_path / "cases.csv", 10)
    config = write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store"},
                          [{"name": "a", "kind": "fake"}, {"name": "b", "kind": "fake", "seed": 1}], {"kind": "exact"})
    code, modules = imported("run", config)
    assert code == 0 and (tmp_path / "store").is_dir()
    assert "releasegate.run.runner" in modules and not _loaded(modules, "aiohttp")  # a fake-only run: no HTTP client
    code, modules = imported("check", tmp_path / "store", "--baseline", "a")
    assert code in (0, 1, 3) and "releasegate.load.store_table" in modules
    for name in (*RUNNING, *SCIPY, "jinja2", *RENDERING):
        assert not _loaded(modules, name), f"releasegate check STORE imports {name}"


def test_verify_of_a_json_note_imports_no_pdf_or_chart_stack(tmp_path, example):
    inputs = (example["eval_results.csv"], "--cases", example["eval_cases.csv"])
    note = tmp_path / "note.json"
    code, _ = imported("report", *inputs, "--policy", example["releasegate.toml"], "-o", note)
    assert code == 0
    code, modules = imported("verify", note, *inputs)
    assert code == 0 and "releasegate.audit.verify" in modules
    for name in (*SCIPY, "jinja2", *RENDERING, *RUNNING, "pypdf", "jsonschema"):
        assert not _loaded(modules, name), f"releasegate verify NOTE.json imports {name}"
