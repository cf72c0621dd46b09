"""Property: whatever a comparison sets apart (cases on one side only, changed content, errored cases, missing
runs), the verdict never stands without the clause that names it, wherever the verdict is read: the headline
(the check line and the JSON), the job summary, the PR comment and page one's paragraph; and a SHIP that rests on
fewer than all the baseline's cases says so in its first sentence. Fixed seed, bounded examples."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from releasegate.errors import InputError
from releasegate.load import Source
from releasegate.pipeline import run
from releasegate.policy import make_policy
from releasegate.render.comment import render_comment
from releasegate.render.console import verdict_lines
from releasegate.render.json_out import to_json_dict
from releasegate.render.summary import render_summary
from releasegate.wording.exclusions import clause
from releasegate.wording.plain import paragraphs

SETTINGS = settings(max_examples=40, derandomize=True, deadline=None, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@st.composite
def releases(draw):
    """40 to 80 cases, one or two runs; the candidate mostly passing; some cases missing on either side, some
    with another question, some errored, some lacking a run."""
    n = draw(st.integers(40, 80))
    runs = draw(st.sampled_from((1, 2)))
    rows = []
    for i in range(n):
        question = f"question {i}"
        only = draw(st.sampled_from(("both", "both", "both", "both", "both", "base", "cand")))
        changed = draw(st.booleans()) and draw(st.booleans()) and draw(st.booleans())
        errored = draw(st.integers(0, 15)) == 0
        short = runs > 1 and draw(st.integers(0, 10)) == 0
        for release in ("r1", "r2"):
            if (only == "base" and release == "r2") or (only == "cand" and release == "r1"):
                continue
            text = f"{question} (new)" if changed and release == "r2" else question
            for run_index in range(1, runs + 1):
                if short and release == "r2" and run_index == runs:
                    continue
                error = "Timeout" if errored and release == "r2" and run_index == 1 else ""
                passed = "" if error else int(draw(st.integers(0, 9)) > (0 if release == "r2" else 1))
                rows.append((release, f"c{i:03d}", run_index, passed, text, error))
    return rows


@SETTINGS
@given(rows=releases())
def test_what_was_set_apart_is_named_wherever_the_verdict_is_read(rows):
    with tempfile.TemporaryDirectory() as scratch:
        path = Path(scratch) / "results.csv"
        path.write_text("release,case_id,run,passed,input,error\n"
                        + "".join(",".join(map(str, r)) + "\n" for r in rows))
        policy = make_policy(baseline="r1", allow_missing=True, allow_changed=True, allow_incomplete_runs=True,
                             margin=0.5)
        try:
            report = run([Source(path)], policy)
        except InputError as exc:  # refused in one line (e.g. every row of a release errored): nothing judged
            assert "\n" not in str(exc)
            return
    cand = report.analysis.candidates[0]
    verdict = report.verdicts[0]
    named = clause(cand.exclusions, "r2")
    data = to_json_dict(report)["candidates"][0]
    assert data["exclusions"]["clause"] == named
    assert cand.exclusions.compared == cand.overall.n
    if not cand.exclusions.count:
        assert named == "" and "left out" not in verdict.headline
        return
    assert verdict.headline.startswith(f"{verdict.label} r2 ({named}): ")
    assert verdict_lines(report)[0].startswith(f"{verdict.label} r2 ({named}): ")
    assert named in render_summary(report)
    assert named in render_comment(report)
    assert named in paragraphs(report)["r2"].split(". ")[0]
    if verdict.ship and cand.exclusions.left_out:
        assert verdict.headline.startswith(f"SHIP r2 ({cand.exclusions.left_out:,} of ")
