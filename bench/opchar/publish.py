"""The study's results as Markdown tables, one chart (SVG), and the generated blocks of the doc.

The doc's prose is written by hand; the blocks between ``<!-- BEGIN generated:NAME -->`` and
``<!-- END generated:NAME -->`` are replaced on every regeneration, so the figures and the text around them
cannot drift apart silently (the prose quotes the headline block).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from .grid import (
    ALPHAS,
    BASE,
    CORRECTIONS,
    CROSS_N,
    CROSS_SHARE,
    DELTAS,
    LARGE_CATEGORIES,
    LARGE_DELTAS,
    MARGINS,
    VARIATIONS,
)
from .simulate import Scenario

GATE_NAMES = {
    "library": "releasegate, default policy (all rules)",
    "library_regression": "releasegate, regression rules only",
    "threshold": "pass-rate threshold (block a drop > 1 point)",
    "ztest": "unpaired two-proportion z-test",
    "seed_axis": "seed-axis Welch t on per-run means",
}
PENDING = "not run"


def pct(x: float | None) -> str:
    return "n/a" if x is None else f"{100 * x:.1f}%"


def points(delta: float) -> str:
    return f"{100 * delta:+g}" if delta else "0"


class Results:
    """The grid's results, looked up by scenario."""

    def __init__(self, results: list[dict]):
        self.by_key = {r["key"]: r for r in results}

    def get(self, **change) -> dict | None:
        return self.by_key.get(replace(BASE, **change).key())

    def gate(self, gate: str, policy: str = "default", **change) -> float | str | None:
        """A block share: a common gate's, or the library's under ``policy`` (all rules or, for
        gate == "library_regression", rules other than non-inferiority). None: infeasible; PENDING: not run."""
        r = self.get(**change)
        if r is None:
            return None
        if gate in ("library", "library_regression"):
            shares = r["policies"].get(policy)
            if shares is None:
                return PENDING
            return shares["blocked"] if gate == "library" else shares["blocked_without_ni"]
        return r["gates"][gate]

    def policy(self, policy: str = "default", **change) -> dict | str | None:
        r = self.get(**change)
        if r is None:
            return None
        return r["policies"].get(policy, PENDING)


def _cell(value, one_way: bool = False) -> str:
    if value is None:
        return "—"
    if isinstance(value, str):
        return value
    return pct(value) + ("*" if one_way else "")


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" if i == 0 else "--:" for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


def headline(res: Results) -> str:
    """The issue's two figures for the default policy, beside the common gates, in the base cell."""
    header = ["gate (400 cases, pass rate 0.9, 5% changing)", "no change: blocked by a regression test",
              "no change: blocked by non-inferiority alone", "2-point regression: blocked",
              "3-point regression: blocked", "5-point regression: blocked"]
    rows = []
    for runs in (1, 5):
        gates = ["library", "threshold", "ztest"] + (["seed_axis"] if runs > 1 else [])
        for gate in gates:
            name = GATE_NAMES[gate] + (", 5 runs per case" if runs > 1 else "")
            if gate == "library":
                shares = res.policy(runs=runs, delta=0.0)
                false_block = shares["blocked_without_ni"] if isinstance(shares, dict) else shares
                ni_alone = shares["ni_only"] if isinstance(shares, dict) else shares
            else:
                false_block, ni_alone = res.gate(gate, runs=runs, delta=0.0), "n/a"
            detect = [_cell(res.gate(gate, runs=runs, delta=d)) for d in (-0.02, -0.03, -0.05)]
            rows.append([name, _cell(false_block), _cell(ni_alone), *detect])
    return _table(header, rows) + "\n\n" + _warn_table(res)


def _warn_table(res: Results) -> str:
    """With not_proven = "warn" a NOT PROVEN passes the gate: how often a real regression ships (no rule but
    non-inferiority fired), by runs (issue 46)."""
    rows = []
    for runs in (1, 5):
        ships = []
        for d in (-0.02, -0.03, -0.05):
            blocked = res.gate("library_regression", runs=runs, delta=d)
            ships.append(_cell(1 - blocked if isinstance(blocked, float) else blocked))
        rows.append([f"releasegate, not_proven = \"warn\"{', 5 runs per case' if runs > 1 else ''}", *ships])
    return _table(["gate (the same releases)", "2-point regression: ships", "3-point regression: ships",
                   "5-point regression: ships"], rows)


def summary(res: Results) -> str:
    """The headline in words: the issue's two figures for the default policy, then the common gates'."""
    shares = res.policy(delta=0.0)
    if not isinstance(shares, dict):
        return "The base design was not run."

    def detection(gate: str, runs: int = 1) -> str:
        values = [_cell(res.gate(gate, runs=runs, delta=d)) for d in (-0.02, -0.03, -0.05)]
        return f"{values[0]} / {values[1]} / {values[2]} of 2 / 3 / 5-point regressions"

    def gate_line(gate: str, runs: int = 1) -> str:
        return f"blocks {_cell(res.gate(gate, runs=runs, delta=0.0))} of harmless releases and {detection(gate, runs)}"

    runs5 = res.policy(runs=5, delta=0.0)
    runs5_false = _cell(runs5["blocked_without_ni"] if isinstance(runs5, dict) else runs5)
    return "\n".join([
        (f"- **False blocks: {pct(shares['blocked_without_ni'])}** of releases that change nothing are blocked by a "
         f"regression test (target: at most 5%); the non-inferiority rule alone blocks **{pct(shares['ni_only'])}** "
         "more (reported separately)."),
        (f"- **Detection: {_cell(res.gate('library', delta=-0.05))}** of 5-point regressions are blocked (target: at "
         f"least 80%); {_cell(res.gate('library', delta=-0.03))} of 3-point and "
         f"{_cell(res.gate('library', delta=-0.02))} of 2-point regressions."),
        "",
        "The three gates in common use, on the same simulated releases:",
        "",
        f"- a **pass-rate threshold** (block a drop of more than 1 point) {gate_line('threshold')};",
        f"- an **unpaired two-proportion z-test** {gate_line('ztest')};",
        (f"- the **seed-axis test** (Welch t on per-run pass rates; it needs several runs, so it is measured with 5 "
         f"runs per case) {gate_line('seed_axis', 5)}; releasegate on the same 5-run releases blocks "
         f"{runs5_false} of harmless releases by a regression test and {detection('library', 5)}."),
    ])


def sweep_tables(res: Results) -> str:
    """Block share against the true difference for every variation of the base design, one table per gate."""
    out = []
    header = ["design \\ true difference (points)", *[points(d) for d in DELTAS]]
    for gate in ("library", "library_regression", "threshold", "ztest", "seed_axis"):
        rows = []
        for name, change in VARIATIONS.items():
            if gate == "seed_axis" and change.get("runs", 1) == 1:
                continue
            row = [name]
            for d in DELTAS:
                sc = replace(BASE, delta=d, **change)
                row.append(_cell(res.gate(gate, delta=d, **change), sc.one_way))
            rows.append(row)
        out.append(f"**{GATE_NAMES[gate]}**\n\n" + _table(header, rows))
    return "\n\n".join(out)


def rules_table(res: Results) -> str:
    """Which rules fire, default policy, at no change and at a 5-point regression."""
    header = ["design", "true difference", "SHIP", "overall_regression", "category_regression",
              "not_non_inferior", "NOT PROVEN alone"]
    rows = []
    for name, change in VARIATIONS.items():
        for d in (0.0, -0.05):
            shares = res.policy(delta=d, **change)
            if not isinstance(shares, dict):
                rows.append([name, points(d), *[_cell(shares)] * 5])
                continue
            r = shares["rules"]
            rows.append([name, points(d), pct(shares["ship"]), pct(r["overall_regression"]),
                         pct(r["category_regression"]), pct(r["not_non_inferior"]), pct(shares["ni_only"])])
    return _table(header, rows)


def margin_table(res: Results) -> str:
    """The non-inferiority rule's false blocks over cases x changing share, for each margin."""
    shown = [m for m in MARGINS if m > 0]
    header = ["cases", "changing", "no change: regression test", "same, mid-p McNemar",
              *[f"no change: NI alone, margin {m:g}" for m in shown],
              "5-point regression: blocked, margin 0.05", "5-point regression: blocked, NI off"]
    rows = []
    for n in CROSS_N:
        for s in CROSS_SHARE:
            null = [res.policy(f"alpha 0.05, margin {m:g}", n=n, share=s, delta=0.0) for m in shown]
            base = res.policy(n=n, share=s, delta=0.0)
            midp = res.policy("mcnemar midp", n=n, share=s, delta=0.0)
            row = [f"{n:,}", f"{100 * s:g}%"]
            row += [_cell(p["blocked_without_ni"] if isinstance(p, dict) else p) for p in (base, midp)]
            row += [_cell(p["ni_only"] if isinstance(p, dict) else p) for p in null]
            row.append(_cell(res.gate("library", "alpha 0.05, margin 0.05", n=n, share=s, delta=-0.05)))
            row.append(_cell(res.gate("library", "alpha 0.05, margin 0", n=n, share=s, delta=-0.05)))
            rows.append(row)
    return _table(header, rows)


def alpha_table(res: Results) -> str:
    """alpha x margin (and the mid-p McNemar) in the base design."""
    header = ["policy", "no change: regression test", "no change: NOT PROVEN alone", "+2: blocked",
              *[f"{points(d)}: blocked" for d in (-0.01, -0.02, -0.03, -0.05)]]
    rows = []
    names = [f"alpha {a:g}, margin {m:g}" for a in ALPHAS for m in MARGINS] + ["mcnemar midp"]
    for name in names:
        null = res.policy(name, delta=0.0)
        if not isinstance(null, dict):
            continue
        row = [name, pct(null["blocked_without_ni"]), pct(null["ni_only"])]
        row += [_cell(res.gate("library", name, delta=d)) for d in (0.02, -0.01, -0.02, -0.03, -0.05)]
        rows.append(row)
    return _table(header, rows)


def correction_table(res: Results) -> str:
    """The multiplicity correction with nine categories: one category carrying the whole regression, or the
    regression spread evenly (400 and 2,000 cases); and the critical rule on the first category."""
    header = ["9 categories", "policy", "no change: regression test", "no change: NOT PROVEN alone",
              *[f"{points(d)}: blocked" for d in (-0.01, -0.02, -0.03, -0.05)]]
    designs = (("400 cases, regression in one", {"categories": 9}),
               ("400 cases, regression in all", {"categories": 9, "spread": "even"}),
               ("2,000 cases, regression in all", {"n": LARGE_CATEGORIES.n, "categories": 9, "spread": "even"}))
    rows = []
    for design, change in designs:
        for name in ["default", *[f"correction {c}" for c in CORRECTIONS], "critical k00"]:
            null = res.policy(name, delta=0.0, **change)
            if not isinstance(null, dict):
                continue
            label = "critical = [first category]" if name == "critical k00" else name
            row = [design, label, pct(null["blocked_without_ni"]), pct(null["ni_only"])]
            for d in (-0.01, -0.02, -0.03, -0.05):
                shown = change.get("n") != LARGE_CATEGORIES.n or d in LARGE_DELTAS
                row.append(_cell(res.gate("library", name, delta=d, **change)) if shown else "—")
            rows.append(row)
    return _table(header, rows)


CHART_NAMES = {
    "library": "releasegate, default policy",
    "threshold": "threshold: block a drop > 1 point",
    "ztest": "unpaired two-proportion z-test",
    "seed_axis": "seed axis: Welch t on per-run rates",
}


def chart_data(res: Results) -> list[dict]:
    rows = []
    for runs, panel in ((1, "1 run per case"), (5, "5 runs per case")):
        gates = ["library", "threshold", "ztest"] + (["seed_axis"] if runs > 1 else [])
        for gate in gates:
            for d in DELTAS:
                value = res.gate(gate, runs=runs, delta=d)
                if isinstance(value, float):
                    rows.append({"panel": panel, "gate": CHART_NAMES[gate], "difference": 100 * d, "blocked": value})
    return rows


def chart_svg(res: Results) -> str:
    """Block rate against the true difference, one line per gate (dash and point shape per gate, so that it
    reads in black and white), base design with 1 and with 5 runs per case; dotted rules at 5% and 80%."""
    import altair as alt
    import vl_convert as vlc

    order = list(CHART_NAMES.values())
    legend = alt.Legend(title=None, orient="bottom", columns=2, labelLimit=400, symbolSize=160,
                        symbolStrokeWidth=1.6, labelFontSize=12)
    base = alt.Chart(alt.Data(values=chart_data(res)))
    lines = base.mark_line(point=alt.OverlayMarkDef(size=50, filled=True), strokeWidth=1.8).encode(
        x=alt.X("difference:Q", title="true difference, candidate - baseline (points)",
                scale=alt.Scale(domain=[-10, 2]), axis=alt.Axis(values=[100 * d for d in DELTAS])),
        y=alt.Y("blocked:Q", title="share of releases blocked", axis=alt.Axis(format="%"),
                scale=alt.Scale(domain=[0, 1])),
        strokeDash=alt.StrokeDash("gate:N", scale=alt.Scale(domain=order), legend=legend),
        shape=alt.Shape("gate:N", scale=alt.Scale(domain=order), legend=legend),
        color=alt.Color("gate:N", scale=alt.Scale(domain=order, range=["#000000", "#444444", "#777777", "#222222"]),
                        legend=legend),
    )
    rules = base.mark_rule(color="#999999", strokeDash=[2, 3], strokeWidth=1).encode(y=alt.datum(0.05))
    rules80 = base.mark_rule(color="#999999", strokeDash=[2, 3], strokeWidth=1).encode(y=alt.datum(0.8))
    chart = alt.layer(rules, rules80, lines).properties(width=320, height=240).facet(
        column=alt.Column("panel:N", title="400 cases, baseline pass rate 0.9, 5% of cases changing",
                          header=alt.Header(labelFontSize=12)))
    spec = chart.configure(font="DejaVu Sans").configure_view(stroke="#bbbbbb").to_dict()
    return vlc.vegalite_to_svg(spec)


def replace_blocks(text: str, blocks: dict[str, str]) -> str:
    """Put each block between its BEGIN/END markers; a missing marker is an error, not a silent skip."""
    for name, body in blocks.items():
        pattern = re.compile(rf"(<!-- BEGIN generated:{name} -->\n).*?(<!-- END generated:{name} -->)", re.DOTALL)
        if not pattern.search(text):
            raise ValueError(f"marker for block {name!r} not found in the doc")
        text = pattern.sub(lambda m, body=body: m.group(1) + body.rstrip("\n") + "\n" + m.group(2), text)
    return text


def blocks(res: Results, run_info: str) -> dict[str, str]:
    return {
        "summary": summary(res),
        "headline": headline(res),
        "sweep": sweep_tables(res),
        "rules": rules_table(res),
        "margin": margin_table(res),
        "alpha": alpha_table(res),
        "correction": correction_table(res),
        "run": run_info,
    }


def write_doc(path: Path, res: Results, run_info: str) -> None:
    path.write_text(replace_blocks(path.read_text(encoding="utf-8"), blocks(res, run_info)), encoding="utf-8")


def scenario_of(result: dict) -> Scenario:
    fields = {k: v for k, v in result["scenario"].items() if k != "one_way"}
    return Scenario(**fields)
