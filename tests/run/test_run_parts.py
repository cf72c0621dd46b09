"""Parts of ``releasegate run``: order, deadline, Retry-After dates, progress, the table file, callables."""

from __future__ import annotations

import email.utils
import io

import pandas as pd
import pytest

import releasegate
from conftest import run_cli
from releasegate.errors import InputError
from releasegate.run import run_config
from releasegate.run.config import load_config, parse_config
from releasegate.run.plan import make_plan, read_cases
from releasegate.run.progress import Progress
from releasegate.run.store import Store
from releasegate.run.calls import AttemptError, http_error, parse_retry_after
from run_support import FakeClock, write_cases, write_config


def _config(tmp_path, seed=0, n=30, runs=2, **run):
    cases = write_cases(tmp_path / "cases.csv", n)
    systems = [{"name": "a", "kind": "fake"}, {"name": "b", "kind": "fake"}, {"name": "c", "kind": "fake"}]
    return load_config(write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store", "runs": runs,
                                                            "seed": seed, **run}, systems, {"kind": "exact"}))


def _calls(plan):
    """The planned calls in order (a plan streams them a batch at a time; a test of 180 may hold them)."""
    return [cell.key for cell in plan.calls_of(set(plan.calls_by_system))]


def test_cases_are_shuffled_by_the_seed_and_releases_interleaved_within_a_case(tmp_path):
    config = _config(tmp_path)
    cases = read_cases(config.cases_path)
    with Store(tmp_path / "store") as db:
        first = _calls(make_plan(db, config, cases))
        again = _calls(make_plan(db, config, cases))
        other = _calls(make_plan(db, _config(tmp_path, seed=1), cases))
    assert first == again and first != other and sorted(first) == sorted(other)
    assert len(first) == 30 * 2 * 3
    for i in range(0, len(first), 6):  # each block of 6 is one case: its 2 runs x 3 releases, releases inner
        block = first[i:i + 6]
        assert len({case for _, case, _ in block}) == 1
        assert [(r, n) for r, _, n in block] == [(r, n) for n in (0, 1) for r in ("a", "b", "c")]
    order = [case for _, case, _ in first[::6]]
    assert order != sorted(order)  # shuffled, not in file order


def test_the_per_cell_deadline_ends_the_attempts(tmp_path):
    cases = write_cases(tmp_path / "cases.csv", 1)
    config = parse_config({"cases": str(cases), "store": str(tmp_path / "s"), "deadline_s": 10.0, "max_attempts": 50,
                           "backoff_s": 4.0, "system": [{"name": "a", "kind": "fake", "rate_5xx": 1.0}],
                           "metric": {"kind": "exact"}})
    clock = FakeClock()
    result = run_config(config, clock=clock, sleep=clock.sleep)
    hole = result.holes[0]
    assert hole.kind in ("server", "deadline") and hole.attempts < 6
    assert clock.now < 10.0 + 8.0  # the last wait may start before the deadline, none after it


def test_retry_after_as_an_http_date_and_the_classification():
    now = 1_800_000_000.0
    date = email.utils.formatdate(now + 30, usegmt=True)
    assert parse_retry_after(date, now=now) == 30.0
    assert parse_retry_after("12") == 12.0 and parse_retry_after("soon") is None and parse_retry_after(None) is None
    assert http_error(429, "", "3").retry_after == 3.0 and http_error(429, "", None).transient
    for status in (408, 425, 500, 502, 503, 504):
        assert http_error(status, "", None).transient
    for status in (400, 404, 422):
        error = http_error(status, "", None)
        assert not error.transient and not error.stop
    assert http_error(401, "", None).stop and http_error(403, "", None).stop


def test_progress_on_a_terminal_and_off_it():
    stream = io.StringIO()
    bar = Progress(total=3, stream=stream, live=True)
    bar.cell("r1", ok=True, cost=0.5)
    bar.rate_limited("r2")
    bar.cell("r2", ok=False, cost=0.0)
    bar.finish("done")
    text = stream.getvalue()
    assert "\r[1/3] r1: 1 done, 0 errors, 0 rate-limited, $0.5000" in text
    assert text.endswith("[2/3] r1: 1 done, 0 errors, 0 rate-limited, $0.5000; r2: 0 done, 1 errors, 1 rate-limited, "
                         "$0.0000\x1b[K\ndone\n")
    quiet = io.StringIO()
    log = Progress(total=1, stream=quiet)  # not a terminal: only the summary
    log.cell("r1", ok=True, cost=0.0)
    log.finish("summary")
    assert quiet.getvalue() == "summary\n"


def test_the_table_as_parquet_and_its_holes(tmp_path):
    config = tmp_path / "run.toml"
    write_cases(tmp_path / "cases.csv", 10)
    write_config(config, {"cases": "cases.csv", "store": "store", "max_attempts": 1},
                 [{"name": "a", "kind": "fake", "rate_timeout": 0.3}], {"kind": "exact"})
    out = tmp_path / "t.parquet"
    done = run_cli("run", config, "-o", out)
    assert done.exit_code == 4
    table = pd.read_parquet(out)
    holes = table[table["passed"].isna()]
    assert len(holes) >= 1 and holes["error"].str.contains("timeout").all()
    assert table.loc[table["passed"].notna(), "error"].isna().all()


def test_sync_and_async_callables_and_a_template_error(tmp_path):
    cases = write_cases(tmp_path / "cases.csv", 3)

    async def answer(case, run):
        return {"output": case["reference"], "usage": {"input_tokens": 5, "output_tokens": 1}}

    result = releasegate.run_systems(systems={"async": answer, "sync": lambda case, run: case["reference"]}, cases=cases,
                             metric="exact", store=tmp_path / "s")
    assert result.complete and result.table["passed"].eq(1.0).all()
    assert result.table.loc[result.table.release == "async", "input_tokens"].eq(5).all()

    system = {"kind": "openai", "base_url": "http://127.0.0.1:9/v1", "model": "m", "user_template": "{missing}"}
    with pytest.raises(InputError, match=r"user_template uses \{missing\}, which the case table does not have"):
        releasegate.run_systems(systems={"t": system}, cases=cases, metric="exact", store=tmp_path / "t")
    assert not (tmp_path / "t").exists()  # refused before the store is made or anything is called


def test_attempt_records_are_short_and_typed():
    record = AttemptError("server", "x" * 2000, status=503).record()
    assert record == {"kind": "server", "status": 503, "message": "x" * 500}


def test_sync_callables_run_up_to_max_concurrency_at_once(tmp_path):
    import threading

    lock, state = threading.Lock(), {"now": 0, "peak": 0}
    barrier = threading.Barrier(8, timeout=30)

    def slow(case, run):
        with lock:
            state["now"] += 1
            state["peak"] = max(state["peak"], state["now"])
        try:
            barrier.wait()  # only passes when 8 calls are in flight together
        finally:
            with lock:
                state["now"] -= 1
        return case["reference"]

    result = releasegate.run_systems(systems={"s": slow}, cases=write_cases(tmp_path / "c.csv", 16), metric="exact",
                             store=tmp_path / "s", max_concurrency=8, max_attempts=1)
    assert result.complete and state["peak"] == 8
