"""The content cache (issue 30 item 4): a reverted config finds its answers by content, numbers in params are
hashed by value, and a judge is asked once per distinct (output, judge) key, within a run and across resumes
and rubric edits. Stub servers on 127.0.0.1."""

from __future__ import annotations

import re

from conftest import run_cli
from releasegate.run import run
from releasegate.run.config import parse_config
from releasegate.run.store import Store
from run_support import StubServer, write_cases, write_config

VERDICTS = {"judge": 0}


def _setup(tmp_path, stub, prompt="You are B.", temperature=0.7, n=10):
    write_cases(tmp_path / "cases.csv", n)
    (tmp_path / "b.txt").write_text(prompt)
    systems = [{"name": "ra", "kind": "openai", "base_url": stub.base_url, "model": "m", "system_prompt": "A."},
               {"name": "rb", "kind": "openai", "base_url": stub.base_url, "model": "m", "system_prompt_file": "b.txt",
                "params": {"temperature": temperature, "max_tokens": 50}}]
    return write_config(tmp_path / "run.toml", {"cases": "cases.csv", "store": "store", "runs": 2}, systems,
                        {"kind": "exact"})


def test_a_reverted_config_reuses_its_answers(tmp_path):
    with StubServer() as stub:
        path = _setup(tmp_path, stub)
        assert run_cli("run", path).exit_code == 0 and stub.calls == 40
        first = run(path).table.sort_values(["release", "case_id", "run"]).reset_index(drop=True)

        _setup(tmp_path, stub, prompt="You are B, edited.")
        assert run_cli("run", path).exit_code == 0 and stub.calls == 60  # the edit: rb's 20 cells called

        _setup(tmp_path, stub)  # reverted: every rb answer is in the store by content
        dry = run_cli("run", path, "--dry-run")
        assert "20 stale" in dry.output and "20 answered before" in dry.output and "0 system call(s)" in dry.output
        done = run_cli("run", path)
        assert done.exit_code == 0 and stub.calls == 60, done.output
        assert "20 answered before: restored, not called" in done.output
        again = run(path).table.sort_values(["release", "case_id", "run"]).reset_index(drop=True)
    columns = ["release", "case_id", "run", "passed", "output", "latency_ms", "input_tokens", "model"]
    assert again[columns].equals(first[columns])


def test_numbers_in_params_are_hashed_by_value(tmp_path):
    def config(temperature):
        return parse_config({"cases": "c.csv", "store": "s", "metric": {"kind": "exact"},
                             "system": [{"name": "r", "kind": "openai", "base_url": "http://127.0.0.1:9/v1",
                                         "model": "m", "params": {"temperature": temperature, "top_p": 1}}]})

    assert config(0).systems[0].system_hash == config(0.0).systems[0].system_hash
    assert config(1).systems[0].system_hash == config(1.0).systems[0].system_hash
    assert config(0.7).systems[0].system_hash != config(0.0).systems[0].system_hash
    with StubServer() as stub:
        assert run_cli("run", _setup(tmp_path, stub, temperature=0)).exit_code == 0 and stub.calls == 40
        path = _setup(tmp_path, stub, temperature=0.0)
        assert run_cli("run", path).exit_code == 0 and stub.calls == 40  # 0 and 0.0: nothing to call
        assert [b["temperature"] for b in stub.bodies if "temperature" in b][-1] == 0  # sent as written


def judge(case, run):
    VERDICTS["judge"] += 1
    return "PASS" if case["output"] == case["reference"] else "FAIL"


def system_a(case, run):
    return case["reference"] if int(case["case_id"][1:]) % 3 else "no idea"


def test_judge_calls_equal_the_distinct_keys_across_runs_resumes_and_rubric_edits(tmp_path):
    cases = write_cases(tmp_path / "cases.csv", 30)

    def go(rubric, store="store", **systems):
        return run(systems=systems or {"a": system_a, "b": {"kind": "python", "function": system_a, "version": "2"}},
                   cases=cases, store=tmp_path / store, runs=3,
                   metric={"kind": "judge", "rubric": rubric, "system": {"kind": "python", "function": judge}})

    VERDICTS["judge"] = 0
    first = go("Q {input}\nA {output}\nRef {reference}\nPASS or FAIL?")
    with Store(tmp_path / "store") as db:
        keys = {h for (h,) in db.connection.execute("SELECT DISTINCT output_hash FROM cells WHERE status = 'ok'")}
    # 180 cells; the answers depend on the case only, so 30 distinct (case, output) keys: 30 calls, not 180.
    assert first.complete and len(first.table) == 180 and len(keys) == 30
    assert VERDICTS["judge"] == first.stats.judge_calls == 30
    assert first.table.groupby("case_id")["passed"].nunique().eq(1).all()

    again = go("Q {input}\nA {output}\nRef {reference}\nPASS or FAIL?")
    assert again.complete and VERDICTS["judge"] == 30  # a resume asks nothing: every key is scored

    edited = go("Question: {input}\nAnswer: {output}\nReference: {reference}\nReply PASS or FAIL.")
    assert edited.complete and VERDICTS["judge"] == 60 and edited.stats.system_calls == 0  # 30 new keys
    assert edited.plan.counts["unscored"] == 180
    described = edited.plan.describe()
    assert re.search(r"at most 30 judge call\(s\)", described), described
