"""An input the machine cannot hold is refused before it is read, in one line with the figures."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from conftest import run_cli
from releasegate.load import capacity


def _results(tmp_path: Path) -> Path:
    path = tmp_path / "r.csv"
    path.write_text("release,case_id,passed\n" + "".join(f"r{r},c{i},{(i + r) % 2}\n" for r in (1, 2)
                                                         for i in range(50)))
    return path


def test_refused_with_the_figures_before_reading(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _results(tmp_path)
    monkeypatch.setattr(capacity, "available", lambda: 100 << 20)  # 0.1 GiB free
    read = []
    from releasegate.load import tidy

    monkeypatch.setattr(tidy, "read_tidy", lambda *args, **kwargs: read.append(args))
    out = tmp_path / "n.json"
    result = run_cli("report", path, "--baseline", "r1", "-o", out)
    assert result.exit_code == 2 and not read and not out.exists()
    line = result.output.strip()
    assert line.count("\n") == 0
    assert f"{path} (0 MB of CSV) would need about 0.2 GiB of memory to compare" in line
    assert "this machine has 0.1 GiB available" in line
    monkeypatch.setenv(capacity.SKIP, "0")
    monkeypatch.undo()  # the real reader again; the check is skipped by the variable
    monkeypatch.setattr(capacity, "available", lambda: 100 << 20)
    monkeypatch.setenv(capacity.SKIP, "0")
    assert run_cli("report", path, "--baseline", "r1", "-o", out).exit_code == 0


def test_the_estimates(tmp_path: Path) -> None:
    path = _results(tmp_path)
    assert capacity.needed(path) == int(path.stat().st_size * capacity.PER_CSV_BYTE)
    parquet = tmp_path / "r.parquet"
    pd.read_csv(path).to_parquet(parquet)
    assert capacity.needed(parquet) == 100 * capacity.PER_ROW  # the rows from the footer
    assert capacity.needed(tmp_path / "log.eval") is None
    free = capacity.available()
    assert free is None or free > 0


def test_what_fits_is_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(capacity, "available", lambda: 64 << 30)
    assert run_cli("report", _results(tmp_path), "--baseline", "r1", "-o", tmp_path / "n.md").exit_code == 0
