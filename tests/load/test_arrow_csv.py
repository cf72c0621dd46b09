"""pyarrow's CSV reading (load/arrow_csv.py) gives the frame pandas' reading gives, or steps aside for it."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from releasegate.load import arrow_csv, tidy


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[pd.DataFrame, pd.DataFrame]:
    arrow = tidy.read_tidy(path)
    with monkeypatch.context() as patch:
        patch.setattr(arrow_csv, "read_delimited", lambda *args, **kwargs: None)
        pandas = tidy.read_tidy(path)
    return arrow, pandas


def _same(arrow: pd.DataFrame, pandas: pd.DataFrame) -> None:
    assert list(arrow.columns) == list(pandas.columns)
    for name in arrow.columns:
        a, p = arrow[name], pandas[name]
        if isinstance(a.dtype, pd.CategoricalDtype):
            a = a.astype(object).where(a.notna(), None)
            p = p.astype(object).where(p.notna(), None)
        else:
            assert a.dtype == p.dtype, name
        assert a.tolist() == p.tolist() or (a.isna().equals(p.isna()) and a.dropna().tolist() == p.dropna().tolist()), name


TEXTS = {
    "identity kept as written": "release,case_id,category,passed\nr1,007,NA,1\nr1,None,null,0\nr2,007,NA,1\nr2,None,,0\n",
    "missing words in other columns": "release,case_id,passed,note,latency_ms\nr1,a,1,NA,12.5\nr1,b,0,fine,NA\n"
                                      "r2,a,1,,3\nr2,b,1,null,\n",
    "quoted line breaks and commas": 'release,case_id,passed,output\nr1,a,1,"two\nlines, and a comma"\nr2,a,0,"x ""q"""\n',
    "dates stay text": "release,case_id,passed,when,at\nr1,a,1,2024-01-01,12:30:00\nr2,a,0,2024-01-02,13:00:00\n",
    "spaces around identity values": "release,case_id,category,passed\n r1 , a ,  Fraud ,1\nr2,a,Fraud,0\n",
    "true and false words": "release,case_id,passed,flag\nr1,a,true,1\nr2,a,False,0\n",
    "byte-order mark": "\ufeffrelease,case_id,passed\nr1,a,1\nr2,a,0\n",
    "a column with no value": "release,case_id,passed,cluster,empty\nr1,a,1,,\nr2,a,0,,\n",
    "tab-separated": "release\tcase_id\tpassed\nr1\t01\t1\nr2\t01\t0\n",
}


@pytest.mark.parametrize("name", sorted(TEXTS))
def test_small_files_read_alike(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / ("r.tsv" if "tab" in name else "r.csv")
    path.write_text(TEXTS[name], encoding="utf-8")
    arrow, pandas = _both(path, monkeypatch)
    _same(arrow, pandas)
    assert isinstance(arrow["release"].dtype, pd.CategoricalDtype)  # dictionary-encoded at read


def _generated(path: Path, n: int, late: str = "") -> None:
    rng = np.random.default_rng(7)
    frame = pd.DataFrame({"case_id": [f"c{i}" for i in range(n)] * 2, "release": ["r1"] * n + ["r2"] * n,
                          "category": rng.choice(["A", "B", "C"], 2 * n), "passed": rng.integers(0, 2, 2 * n),
                          "latency_ms": rng.gamma(2.0, 100.0, 2 * n).round(1), "error": ""})
    if late:
        frame.loc[2 * n - 3, "error"] = late
    frame.to_csv(path, index=False)


def test_pieces_read_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "big.csv"
    _generated(path, 20_000)
    monkeypatch.setattr(arrow_csv, "PIECE", 128 << 10)
    monkeypatch.setattr(arrow_csv, "BLOCK", 16 << 10)
    seen = []
    original = arrow_csv._piece
    monkeypatch.setattr(arrow_csv, "_piece", lambda *args: seen.append(args[1:3]) or original(*args))
    arrow, pandas = _both(path, monkeypatch)
    size = path.stat().st_size
    assert len(seen) == -(-size // (128 << 10)) > 4  # every piece, each cut at a line end, none left out
    assert seen[0][0] == 0 and seen[-1][1] == size and all(a[1] == b[0] for a, b in zip(seen, seen[1:]))
    data = path.read_bytes()
    assert all(data[stop - 1:stop] == b"\n" for _, stop in seen)
    _same(arrow, pandas)


def _cut_between_releases(path: Path, lines: list[str], n: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file written, read in two pieces cut where the second release's rows start."""
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    boundary = len("\n".join(lines[:n + 1]).encode()) + 1
    monkeypatch.setattr(arrow_csv, "line_ends", lambda path, size, piece: [0, boundary, size])


@pytest.mark.parametrize("column, first, second", [("latency_ms", "12", "12.5"),  # whole numbers, then decimals
                                                    ("error", "", "timeout")])  # empty, then text
def test_pieces_of_other_types_are_joined_as_pandas_types_the_column(column: str, first: str, second: str,
                                                                     tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "typed.csv"
    n = 4_000
    lines = ["case_id,release,passed,latency_ms,error"]
    lines += [f"c{i},r1,1,{first if column == 'latency_ms' else 10},{first if column == 'error' else ''}"
              for i in range(n)]
    lines += [f"c{i},r2,0,{second if column == 'latency_ms' else 10},{second if column == 'error' else ''}"
              for i in range(n)]
    _cut_between_releases(path, lines, n, monkeypatch)
    import pyarrow.csv as csv

    whole = []
    original = csv.read_csv
    monkeypatch.setattr(csv, "read_csv", lambda *args, **kwargs: whole.append(args[0]) or original(*args, **kwargs))
    arrow, pandas = _both(path, monkeypatch)
    assert [w for w in whole if isinstance(w, Path)] == []  # joined from the pieces, not read again whole
    _same(arrow, pandas)


def _readers(monkeypatch: pytest.MonkeyPatch) -> tuple[list[int], list[int]]:
    """The starts of the pieces and of the streams the reader reads, as it reads them."""
    pieces: list[int] = []
    streams: list[int] = []
    piece, stream = arrow_csv._piece, arrow_csv._stream
    monkeypatch.setattr(arrow_csv, "_piece", lambda *args: pieces.append(args[1]) or piece(*args))
    monkeypatch.setattr(arrow_csv, "_stream", lambda *args: streams.append(args[1]) or stream(*args))
    return pieces, streams


def _quoted(path: Path, n: int) -> None:
    """The generated file with its text quoted as R's write.csv and pandas' QUOTE_NONNUMERIC write it, a comma and
    a doubled quote inside some values."""
    _generated(path, n)
    lines = path.read_text(encoding="utf-8").splitlines()
    out = ['"' + '","'.join(lines[0].split(",")) + '"']
    for i, line in enumerate(lines[1:]):
        case, release, category, passed, latency, error = line.split(",")
        note = '"late, ""slow"""' if i % 97 == 0 else '""'
        out.append(f'"{case}","{release}","{category}",{passed},{latency},{note}')
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


def test_a_file_with_quotes_but_no_line_break_in_a_value_is_read_in_pieces(tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "quoted.csv"
    _quoted(path, 5_000)
    monkeypatch.setattr(arrow_csv, "PIECE", 32 << 10)
    monkeypatch.setattr(arrow_csv, "BLOCK", 16 << 10)
    pieces, streams = _readers(monkeypatch)
    arrow, pandas = _both(path, monkeypatch)
    assert len(pieces) > 4 and streams == []
    _same(arrow, pandas)
    assert arrow["error"].dropna().iloc[0] == 'late, "slow"'


# Where a line break sits inside a quoted value: each sends the file to the one stream, which reads it as pandas.
BREAKS = {
    "in a text value": ("error", 'two\nlines'),
    "a carriage return": ("error", 'two\rlines'),
    "in a case id": ("case_id", 'c\n1'),
    "in a category": ("category", 'Fraud\nA'),
    "in a number's column": ("latency_ms", '12\n5'),
}


@pytest.mark.parametrize("where", ["first piece", "last piece", "across a cut"])
@pytest.mark.parametrize("name", sorted(BREAKS))
def test_a_line_break_inside_a_quoted_value_sends_the_file_to_one_stream(name: str, where: str, tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "broken.csv"
    _quoted(path, 3_000)
    column, value = BREAKS[name]
    lines = path.read_text(encoding="utf-8").split("\n")
    at = {"first piece": 5, "last piece": len(lines) - 5, "across a cut": len(lines) // 2}[where]
    fields = lines[at].split(",")
    fields[["case_id", "release", "category", "passed", "latency_ms", "error"].index(column)] = f'"{value}"'
    lines[at] = ",".join(fields)
    data = "\n".join(lines).encode("utf-8")
    path.write_bytes(data)
    monkeypatch.setattr(arrow_csv, "PIECE", 32 << 10)
    monkeypatch.setattr(arrow_csv, "BLOCK", 16 << 10)
    if where == "across a cut":  # the file cut just after the line break inside the value, where a line end looks
        line_break = value.index("\n") if "\n" in value else value.index("\r")
        cut = data.index(f'"{value}"'.encode("utf-8")) + 1 + line_break + 1
        monkeypatch.setattr(arrow_csv, "line_ends", lambda path, size, piece: [0, cut, size])
    pieces, streams = _readers(monkeypatch)
    arrow, pandas = _both(path, monkeypatch)
    assert streams == [0]
    # The pieces stop at the first one holding the line break.
    assert (len(pieces) > 4) if where == "last piece" else (len(pieces) == 1)
    _same(arrow, pandas)
    assert value in arrow[column].astype(str).tolist()


def test_a_block_ending_inside_a_quoted_carriage_return_and_line_feed_leaves_the_file_to_pandas(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """pyarrow's stream drops the line feed of a "\\r\\n" inside a quoted value where its block ends between the
    two bytes (a note read as "x\\ry"); a file with a carriage return in a value is read by pandas instead."""
    path = tmp_path / "windows.csv"
    lines = ["case_id,release,passed,note"] + [f'c{i},r{1 + i % 2},{i % 2},"plain"' for i in range(40)]
    lines[20] = 'c19,r2,1,"x\r\ny"'
    data = "\r\n".join(lines).encode("utf-8") + b"\r\n"
    path.write_bytes(data)
    monkeypatch.setattr(arrow_csv, "BLOCK", data.index(b"x\r\ny") + 2)  # the block ends after the "\r"
    assert arrow_csv.read_delimited(path, ",", lines[0].split(","), ["case_id", "release"],
                                    tidy.DEFAULT_NA_WORDS) is None
    arrow, pandas = _both(path, monkeypatch)
    _same(arrow, pandas)
    assert "x\r\ny" in arrow["note"].tolist()


def test_a_line_longer_than_the_search_is_not_cut(tmp_path: Path) -> None:
    path = tmp_path / "long.csv"
    path.write_bytes(b"h\n" + b"x" * (3 << 20) + b"\n" + b"y\n" * 10)
    size = path.stat().st_size
    cuts = arrow_csv.line_ends(path, size, 1 << 20)
    assert cuts[0] == 0 and cuts[-1] == size and cuts == sorted(set(cuts))
    data = path.read_bytes()
    assert all(data[c - 1:c] == b"\n" for c in cuts[1:-1])
    assert len(cuts) == 3  # only the cut whose next MiB holds the long line's end


def test_a_column_filled_late_is_read_with_its_type(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An error column empty until near the end is text: the pieces' types are joined."""
    path = tmp_path / "late.csv"
    _generated(path, 20_000, late="timeout")
    monkeypatch.setattr(arrow_csv, "PIECE", 128 << 10)
    monkeypatch.setattr(arrow_csv, "BLOCK", 16 << 10)
    arrow, pandas = _both(path, monkeypatch)
    _same(arrow, pandas)
    assert arrow["error"].dropna().tolist() == ["timeout"]


@pytest.mark.parametrize("text", ["release,case_id,passed\nr1,a,1\nr2,a,0,7\n",  # a line with a field too many
                                  "release,case_id,passed,passed\nr1,a,1,0\n"])  # a name given twice
def test_what_pyarrow_would_read_otherwise_is_left_to_pandas(text: str, tmp_path: Path) -> None:
    path = tmp_path / "r.csv"
    path.write_text(text, encoding="utf-8")
    header = text.splitlines()[0].split(",")
    assert arrow_csv.read_delimited(path, ",", header, ["release", "case_id"], tidy.DEFAULT_NA_WORDS) is None


def test_pieces_no_type_joins_take_the_whole_file_reader(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Numbers in one piece and text in the other: the whole-file reader settles the column as text, as pandas."""
    import pyarrow.csv as csv

    path = tmp_path / "mixed.csv"
    n = 4_000
    lines = ["case_id,release,passed,note"] + [f"c{i},r1,1,{i}" for i in range(n)] + \
        [f"c{i},r2,0,slow" for i in range(n)]
    _cut_between_releases(path, lines, n, monkeypatch)
    whole = []
    original = csv.read_csv
    monkeypatch.setattr(csv, "read_csv", lambda *args, **kwargs: whole.append(args[0]) or original(*args, **kwargs))
    arrow, pandas = _both(path, monkeypatch)
    assert [w for w in whole if isinstance(w, Path)] == [path]
    _same(arrow, pandas)


def test_parquet_reads_release_and_category_as_categories(tmp_path: Path) -> None:
    path = tmp_path / "r.parquet"
    frame = pd.DataFrame({"release": ["r1", "r1", "r2", "r2"], "case_id": ["007", "b", "007", "b"],
                          "category": [" Fraud", None, "Fraud", None], "passed": [1, 0, 0, 1]})
    frame.to_parquet(path, index=False)
    read = tidy.read_tidy(path)
    assert isinstance(read["release"].dtype, pd.CategoricalDtype)
    assert read["category"].astype(object).where(read["category"].notna(), None).tolist() == \
        ["Fraud", None, "Fraud", None]  # stripped on its categories, the missing value kept missing
    assert read["case_id"].tolist() == ["007", "b", "007", "b"]
