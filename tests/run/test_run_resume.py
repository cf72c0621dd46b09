"""Done-when 5 of issue 20: resume by key; a changed prompt re-runs exactly its cells; duplicates upsert."""

from __future__ import annotations

import re

from conftest import run_cli
from releasegate.run import run_config
from releasegate.run.config import load_config
from releasegate.run.store import Store
from run_support import StubServer, write_cases, write_config


def _setup(tmp_path, stub, runs=2, n=12):
    cases = write_cases(tmp_path / "cases.csv", n)
    (tmp_path / "a.txt").write_text("You are system A.")
    (tmp_path / "b.txt").write_text("You are system B.")
    systems = [{"name": name, "kind": "openai", "base_url": stub.base_url, "model": "m", "system_prompt_file": f}
               for name, f in (("ra", "a.txt"), ("rb", "b.txt"))]
    return write_config(tmp_path / "run.toml", {"cases": cases.name, "store": "store", "runs": runs,
                                                "max_concurrency": 3}, systems, {"kind": "contains"})


def _dry_run_counts(path) -> dict[str, int]:
    done = run_cli("run", path, "--dry-run")
    assert done.exit_code == 0, done.output
    found = {k: int(v) for v, k in re.findall(r"(\d+) (done|stale|errored|new)", done.output)}
    found["calls"] = int(re.search(r"would make (\d+) system call", done.output).group(1))
    return found


def test_editing_one_prompt_reruns_exactly_its_cells_as_the_dry_run_predicted(tmp_path):
    with StubServer() as stub:
        path = _setup(tmp_path, stub)
        assert _dry_run_counts(path) == {"done": 0, "stale": 0, "errored": 0, "new": 48, "calls": 48}
        assert not (tmp_path / "store").exists()  # a dry run creates nothing
        assert run_cli("run", path).exit_code == 0
        assert stub.calls == 48
        with Store(tmp_path / "store") as db:
            before = {(c["release"], c["case_id"], c["run"]): c for c in db.cells()}

        assert run_cli("run", path).exit_code == 0
        assert stub.calls == 48  # a second full run makes no call

        (tmp_path / "b.txt").write_text("You are system B, version 2.")
        predicted = _dry_run_counts(path)
        assert predicted == {"done": 24, "stale": 24, "errored": 0, "new": 0, "calls": 24}
        done = run_cli("run", path)
        assert done.exit_code == 0 and "24 cell(s) are stale" in done.output
        assert stub.calls == 48 + predicted["calls"]
        assert {b["messages"][0]["content"] for b in stub.bodies[48:]} == {"You are system B, version 2."}
        with Store(tmp_path / "store") as db:
            after = {(c["release"], c["case_id"], c["run"]): c for c in db.cells()}
        assert all(after[k] == c for k, c in before.items() if k[0] == "ra")
        assert all(after[k]["system_hash"] != c["system_hash"] for k, c in before.items() if k[0] == "rb")


def test_keys_timeouts_and_concurrency_are_not_part_of_the_system_hash(tmp_path):
    with StubServer() as stub:
        path = _setup(tmp_path, stub)
        text = path.read_text()
        first = load_config(path)
        path.write_text(text.replace("max_concurrency = 3", "max_concurrency = 7\ntimeout_s = 5")
                        .replace('model = "m"', 'model = "m"\napi_key_env = "SOME_KEY"', 1))
        second = load_config(path)
        path.write_text(text.replace('model = "m"', 'model = "m2"', 1))
        third = load_config(path)
    assert [s.system_hash for s in first.systems] == [s.system_hash for s in second.systems]
    assert third.systems[0].system_hash != first.systems[0].system_hash
    assert third.systems[1].system_hash == first.systems[1].system_hash


def test_a_late_duplicate_answer_leaves_one_row(tmp_path):
    with Store(tmp_path / "store") as db:
        cell = {"release": "r1", "case_id": "C1", "run": 0, "input_hash": "i", "system_hash": "s", "status": "ok",
                "output": "first", "output_hash": "h1", "attempts": [{"n": 1, "kind": "timeout"}],
                "started_at": "t0", "finished_at": "t1"}
        db.put_cell(cell)
        db.put_cell({**cell, "output": "late original", "output_hash": "h2", "finished_at": "t2"})
        rows = db.cells()
    assert len(rows) == 1 and rows[0]["output"] == "late original" and rows[0]["finished_at"] == "t2"


def test_only_calls_one_system_and_fresh_starts_over(tmp_path):
    with StubServer() as stub:
        path = _setup(tmp_path, stub, runs=1, n=5)
        done = run_cli("run", path, "--only", "ra")
        assert done.exit_code == 4 and "5 cells missing or errored" in done.output  # rb's cells are holes
        assert stub.calls == 5 and {b["messages"][0]["content"] for b in stub.bodies} == {"You are system A."}
        assert run_cli("run", path).exit_code == 0 and stub.calls == 10
        assert run_cli("run", path, "--fresh").exit_code == 0 and stub.calls == 20
        bad = run_cli("run", path, "--only", "nope")
        assert bad.exit_code == 2 and "no such system" in bad.output


def test_a_changed_case_reruns_its_cells_only(tmp_path):
    with StubServer() as stub:
        path = _setup(tmp_path, stub, runs=1, n=6)
        config = load_config(path)
        run_config(config)
        cases = tmp_path / "cases.csv"
        cases.write_text(cases.read_text().replace("question 3 ", "question three "))
        result = run_config(load_config(path))
    assert result.plan.counts["stale"] == 2 and stub.calls == 12 + 2
    assert result.complete
