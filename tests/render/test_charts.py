"""The report's chart specs (render/charts.py): complete Vega-Lite for every kind of analysis, built from
altair's leaves without its slow composition, and drawn exactly as in the committed examples."""

from __future__ import annotations

import contextlib
import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from conftest import ROOT, build_report
from releasegate.render import charts

RC = ROOT / "examples" / "reading-comprehension"
BANK = ROOT / "examples" / "bank-assistant"


_run = build_report


def _frame(releases: dict[str, float], n: int, rng, runs: int = 1, scores: bool = False,
           categories: bool = True) -> pd.DataFrame:
    frames = []
    for release, level in releases.items():
        for run in range(runs):
            frame = pd.DataFrame({"release": release, "case_id": [f"q{i:03d}" for i in range(n)]})
            if scores:
                frame["score"] = np.clip(rng.normal(level, 0.15, n), 0, 1)
            else:
                frame["passed"] = (rng.random(n) < level).astype(int)
            if runs > 1:
                frame["run"] = run
            if categories:
                frame["category"] = np.array(["alpha", "beta", "gamma", "delta"])[np.arange(n) % 4]
            frames.append(frame)
    return pd.concat(frames, ignore_index=True)


@pytest.fixture(scope="module")
def analyses(tmp_path_factory) -> dict:
    """The bank example and synthetic reports on the other paths: scores, runs with five candidates (the
    facet wraps), no categories, and no margin (no margin line)."""
    directory = tmp_path_factory.mktemp("charts")
    rng = np.random.default_rng(11)
    frames = {
        "scores": (_frame({"base": 0.6, "c1": 0.63, "c2": 0.55, "c3": 0.6}, 80, rng, scores=True), {}),
        "runs": (_frame({"base": 0.7, "k1": 0.72, "k2": 0.6, "k3": 0.7, "k4": 0.75, "k5": 0.5}, 80, rng, runs=3),
                 {}),
        "no categories": (_frame({"base": 0.7, "cand": 0.65}, 120, rng, categories=False), {}),
        "no margin": (_frame({"base": 0.7, "cand": 0.65}, 120, rng, categories=False), {"margin": 0.0}),
    }
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("SOURCE_DATE_EPOCH", "1796000000")
        out = {"bank": _run(BANK / "eval_results.csv", BANK / "eval_cases.csv", BANK / "releasegate.toml")}
        for name, (frame, overrides) in frames.items():
            path = directory / f"{name.replace(' ', '_')}.csv"
            frame.to_csv(path, index=False)
            out[name] = _run(path, baseline="base", **overrides)
    return {name: report.analysis for name, report in out.items()}


def _named_data(spec) -> set[str]:
    """Names of every data reference (``{"data": {"name": ...}}``) anywhere in a spec."""
    found = set()
    if isinstance(spec, dict):
        data = spec.get("data")
        if isinstance(data, dict) and "name" in data:
            found.add(data["name"])
        for value in spec.values():
            found |= _named_data(value)
    elif isinstance(spec, list):
        for item in spec:
            found |= _named_data(item)
    return found


def _layers(spec) -> list[dict]:
    view = spec.get("spec", spec)
    views = view.get("vconcat", [view])
    return [layer for v in views for layer in v["layer"]]


@pytest.mark.parametrize("case", ["bank", "scores", "runs", "no categories", "no margin"])
def test_specs_are_complete_vega_lite(analyses, case):
    import altair as alt
    from altair.utils.schemapi import validate_jsonschema
    from altair.vegalite.v6.schema import load_schema

    analysis = analyses[case]
    built = charts.build_charts(analysis)
    expected = ["chart-overall"] + (["chart-categories", "chart-changes"] if analysis.has_categories else [])
    assert [c.name for c in built] == expected
    for chart in built:
        spec = chart.spec
        # The specs are built without altair's checks (for speed): the whole spec is checked here.
        validate_jsonschema(spec, load_schema())
        assert json.loads(json.dumps(spec)) == spec  # plain JSON: no altair object left inside
        assert spec["$schema"] == alt.SCHEMA_URL
        assert spec["config"]["font"] == charts.FONT and spec["config"]["background"] == "white"
        # Every row is in the spec once, under a name that some layer reads; no layer reads a missing name.
        assert _named_data(spec) == set(spec["datasets"])
        assert all(layer["mark"] and layer["encoding"] for layer in _layers(spec))
        assert {"text", "subtitle"} <= set(spec.get("title") or spec["vconcat"][0]["title"])
    assert charts.build_charts(analysis) == built  # deterministic
    overall = built[0].spec
    rules = [layer["encoding"]["x"] for layer in _layers(overall) if layer["mark"]["type"] == "rule"
             and "datum" in layer["encoding"]["x"]]
    margin = analysis.parameters.margin * (100 if analysis.outcome_kind == "binary" else 1)
    # Baseline rate, zero, and the margin line when there is a margin.
    assert len(rules) == (3 if margin > 0 else 2)
    if analysis.has_categories:
        changes = built[2].spec
        assert changes["columns"] == min(3, len(analysis.candidates))
        assert changes["facet"]["sort"] == [c.name for c in analysis.candidates]
        assert "data" not in _layers(changes)[0]  # the panels read the facet's rows


def test_composition_is_plain_dicts_not_altairs_copying_layers(analyses, monkeypatch):
    # altair's layer, concat and facet deep-copy every sub-chart: a third of a second per report.
    import altair as alt
    from altair.utils import schemapi

    def refuse(*args, **kwargs):
        raise AssertionError("altair composition used")

    for cls in (alt.LayerChart, alt.VConcatChart, alt.HConcatChart, alt.ConcatChart, alt.FacetChart):
        monkeypatch.setattr(cls, "__init__", refuse)
    assert len(charts.build_charts(analyses["bank"])) == 3
    assert schemapi.DEBUG_MODE  # altair's own checks are back on for everyone else


def _svgs(html: str) -> list[str]:
    return re.findall(r"<svg\b.*?</svg>", html, flags=re.DOTALL)


@pytest.mark.parametrize("example", ["bank-assistant", "reading-comprehension"])
def test_charts_draw_as_in_the_committed_examples(example, monkeypatch):
    # The committed HTML holds the SVGs drawn when the example was last regenerated: the charts must draw the
    # same bytes now, or the examples must be regenerated with the change.
    from releasegate.render.html import render_html

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796000000")
    directory = ROOT / "examples" / example
    with contextlib.chdir(directory):
        if example == "bank-assistant":
            report = _run(Path("eval_results.csv"), Path("eval_cases.csv"), Path("releasegate.toml"))
        else:
            report = _run(Path("results.csv"), policy=Path("releasegate.toml"))
    committed = _svgs((directory / "report.html").read_text(encoding="utf-8"))
    drawn = _svgs(render_html(report))
    assert len(drawn) >= 3 and drawn == committed
