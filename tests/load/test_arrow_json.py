"""pyarrow's JSON Lines reading (load/arrow_json.py) gives the frame the standard module's reading gives, or steps
aside for it: every file below is read both ways and compared, or refused alike."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from releasegate.errors import InputError
from releasegate.load import arrow_json, tidy


def _both(path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[bool, pd.DataFrame, pd.DataFrame]:
    """Whether pyarrow read the file, and the file as read_tidy gives it with pyarrow's reading and without."""
    read = arrow_json.read_json_lines
    taken: list[bool] = []
    with monkeypatch.context() as patch:
        patch.setattr(arrow_json, "read_json_lines", lambda path, *identity: taken.append(
                      (frame := read(path, *identity)) is not None) or frame)
        arrow = tidy.read_tidy(path)
    with monkeypatch.context() as patch:
        patch.setattr(arrow_json, "read_json_lines", lambda path, *identity: None)
        standard = tidy.read_tidy(path)
    return taken == [True], arrow, standard


def _same(arrow: pd.DataFrame, standard: pd.DataFrame) -> None:
    """The same columns, values, missing values and types of values; release, category and cluster come from
    pyarrow as categoricals of their text (as CSV's and Parquet's do), from the standard reading as text."""
    assert list(arrow.columns) == list(standard.columns)
    for name in arrow.columns:
        a, s = arrow[name], standard[name]
        if isinstance(a.dtype, pd.CategoricalDtype):
            assert name in arrow_json.DICTIONARY_COLUMNS and pd.api.types.is_string_dtype(s.dtype), name
            a, s = (column.astype(object).where(column.notna(), None) for column in (a, s))
        assert a.dtype == s.dtype, name
        assert a.isna().tolist() == s.isna().tolist(), name
        assert [type(v) for v in a.dropna()] == [type(v) for v in s.dropna()], name
        assert a.dropna().tolist() == s.dropna().tolist(), name


def _records(n: int) -> list[dict]:
    rng = np.random.default_rng(11)
    rows = []
    for i in range(n):
        row = {"case_id": f"c{i}", "release": "r1" if i % 2 else "r2", "category": ["A", "B", "Ünï"][i % 3],
               "passed": int(rng.integers(0, 2)), "ok": bool(i % 3), "latency_ms": int(rng.integers(5, 900)),
               "score": float(rng.random()), "note": None if i % 5 else "slow, \"quoted\"\nline"}
        if i % 7 == 0:
            row["latency_ms"] = None  # a null among whole numbers
        if i % 11 == 0:
            del row["score"]  # a key missing from some records
        if i > n - 3:
            row["late"] = "x"  # a key first seen near the end
        if i == n // 2:
            row["latency_ms"] = 12.5  # decimals among whole numbers
        rows.append(row)
    return rows


def _write(path: Path, rows: list[dict], end: str = "\n") -> None:
    path.write_text(end.join(json.dumps(r, ensure_ascii=False) for r in rows) + end, encoding="utf-8")


def test_plain_records_are_read_by_pyarrow_as_the_standard_reading_reads_them(tmp_path: Path,
                                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.jsonl"
    _write(path, _records(3_000))
    taken, arrow, standard = _both(path, monkeypatch)
    assert taken
    _same(arrow, standard)


@pytest.mark.parametrize("name, text", [
    ("line ends of Windows", '{"a": 1, "b": "x"}\r\n{"a": 2, "b": "y"}\r\n'),
    ("no line break at the end", '{"a": 1}\n{"a": 2}'),
    ("byte-order mark", '\ufeff{"a": 1}\n{"a": 2}\n'),
    ("a key null in some records", '{"a": 1, "n": null}\n{"a": 2, "n": "x"}\n'),
    ("dates stay text", '{"a": 1, "when": "2024-01-01"}\n{"a": 2, "when": "2024-01-02T10:00:00"}\n'),
    ("NaN and Infinity", '{"a": NaN}\n{"a": Infinity}\n{"a": 1.5}\n'),
    ("whole case ids", '{"case_id": 7, "release": "r1", "passed": 1}\n{"case_id": 8, "release": "r1", "passed": 0}\n'),
    ("spaces after a record", '{"a": 1}  \n{"a": 2}\t\n'),
    ("square brackets in text", '{"a": "[x] [y]", "b": 1}\n{"a": "]", "b": 2}\n'),
])
def test_small_files_read_alike(name: str, text: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(text, encoding="utf-8")
    taken, arrow, standard = _both(path, monkeypatch)
    assert taken, name
    _same(arrow, standard)


# Files pyarrow would read otherwise than the standard reading (or read where it refuses): each goes to it.
ASIDE = {
    "two records on one line": '{"a": 1} {"a": 2}\n{"a": 3}\n',
    "a record over two lines": '{"a":\n 1}\n{"a": 2}\n',
    "a blank line": '{"a": 1}\n\n{"a": 2}\n',
    "a blank first line": ' \n{"a": 1}\n',
    "two records on one line, one over two": '{"a": 1} {"a": 2}\n{"a":\n 3}\n',
    "a blank line and two records on one": '{"a": 1}\n\n{"a": 2} {"a": 3}\n',
    "a key given twice": '{"a": 1, "a": 2}\n',
    "a number beyond 64 bits": '{"a": 1}\n{"a": 123456789012345678901234567890}\n',
    "a whole number beyond a double's": '{"a": 1.5}\n{"a": 9007199254740993}\n',
    "a missing true or false": '{"a": true}\n{"a": null}\n{"b": 1}\n',
    "an object in a record": '{"a": {"b": 1}}\n{"a": {"b": 2}}\n',
    "a list in a record": '{"a": [1, 2]}\n',
    "an escaped surrogate pair": '{"a": "\\ud83d\\ude00"}\n',
    "a lone surrogate": '{"a": "\\ud800"}\n',
    "not a record": '[1, 2]\n',
    "numbers, then text": '{"a": 1}\n{"a": "x"}\n',
    "an empty record": '{}\n',
    "a key only ever null": '{"a": 1, "n": null}\n{"a": 2, "n": null}\n',
    "spaces before a record": '  {"a": 1}\n{"a": 2}\n',
    "a null line": '{"a": 1}\nnull\n',
    "a null after a record": '{"a": 1} null\n{"a": 2}\n',
    "only null": 'null\n',
    "a record over two lines and a null": '{"a": {\n"b": 1}} null\n',
    "a record over two lines, the second starting an object": '{"a":\n{"b": 1}}\n{"a": {"b": 2}}\n',
    "a record nested 30,000 deep": '{"a":' * 30_000 + '1' + '}' * 30_000 + '\n',
}


@pytest.mark.parametrize("name", sorted(ASIDE))
def test_what_pyarrow_would_read_otherwise_is_left_to_the_standard_reading(name: str, tmp_path: Path,
                                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "r.jsonl"
    path.write_text(ASIDE[name], encoding="utf-8")
    assert arrow_json.read_json_lines(path) is None
    # And the command's reading is the standard one's: its frame, or its refusal.
    try:
        expected = tidy.read_tidy(path)
    except InputError as exc:
        with monkeypatch.context() as patch:
            patch.setattr(arrow_json, "read_json_lines", lambda path, *identity: None)
            with pytest.raises(InputError) as standard:
                tidy.read_tidy(path)
        assert str(standard.value) == str(exc)
        return
    with monkeypatch.context() as patch:
        patch.setattr(arrow_json, "read_json_lines", lambda path, *identity: None)
        pd.testing.assert_frame_equal(tidy.read_tidy(path), expected)


@pytest.mark.parametrize("data", [b'{"a": "ok"}\n{"a": "\xff"}\n', b'{"\xffa": 1}\n'])
def test_bytes_that_are_not_utf8_are_left_to_the_standard_reading(data: bytes, tmp_path: Path) -> None:
    path = tmp_path / "r.jsonl"
    path.write_bytes(data)
    assert arrow_json.read_json_lines(path) is None
    with pytest.raises(InputError, match="UTF-8"):
        tidy.read_tidy(path)


@pytest.mark.parametrize("piece", [7, 64, 1000, 1 << 20])
def test_lines_are_counted_across_pieces(piece: int, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of a line or less, of many lines, and one piece: every line is read once, a last line without a line
    break and spaces after the last one too; two records on a line in a middle piece stop the reading."""
    monkeypatch.setattr(arrow_json, "PIECE", piece)
    path = tmp_path / "r.jsonl"
    rows = [{"case_id": f"c{i}", "text": "x" * (i % 40)} for i in range(200)]
    _write(path, rows)
    assert len(arrow_json.read_json_lines(path)) == 200
    text = path.read_text(encoding="utf-8")
    path.write_text(text.rstrip("\n"), encoding="utf-8")
    assert len(arrow_json.read_json_lines(path)) == 200
    path.write_text(text + "  \t", encoding="utf-8")
    assert len(arrow_json.read_json_lines(path)) == 200
    cut = text.index("\n", 500) + 1
    path.write_text(text[:cut] + '{"case_id": "a"} {"case_id": "b"}\n' + text[cut:], encoding="utf-8")
    assert arrow_json.read_json_lines(path) is None


@pytest.mark.parametrize("scanned", [1, 3, 64, 1000])
def test_the_scan_finds_every_byte_slice_by_slice(scanned: int, monkeypatch: pytest.MonkeyPatch) -> None:
    """The positions of a byte found a slice at a time are those of the whole text at once, at every slice size
    (a slice of one byte, slices that do not divide the text, one slice)."""
    monkeypatch.setattr(arrow_json, "_SLICE", scanned)
    rng = np.random.default_rng(7)
    for size in (1, 2, 63, 640, 999):
        text = rng.choice(np.frombuffer(b'{}\n"a', np.uint8), size)
        for character in "}\n":
            expected = np.flatnonzero(text == ord(character))
            assert np.array_equal(arrow_json._positions(text, character), expected)


def test_no_piece_is_begun_after_one_that_is_not_plain(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A piece that is not plain lines (here the first: an object inside a record) ends the reading: of 200
    pieces, the two begun at once and at most a few after them are read, not the rest."""
    monkeypatch.setattr(arrow_json, "PIECE", 64)
    path = tmp_path / "r.jsonl"
    rows = [{"case_id": f"c{i}", "text": "x" * 40} for i in range(200)]
    rows[0]["nested"] = {"a": 1}
    _write(path, rows)
    begun: list[int] = []
    piece = arrow_json._piece
    monkeypatch.setattr(arrow_json, "_piece", lambda path, start, *rest: begun.append(start) or piece(path, start,
                                                                                                          *rest))
    assert arrow_json.read_json_lines(path) is None
    assert 1 <= len(begun) < 20


def _random_file(rng: np.random.Generator) -> bytes:
    """A small JSON Lines file of random records, with now and then one of the shapes the two readings differ on."""
    keys = ["case_id", "release", "passed", "score", "ok", "note", "n"][: int(rng.integers(1, 8))]
    values = [lambda: int(rng.integers(-5, 5)), lambda: float(rng.normal()), lambda: bool(rng.integers(0, 2)),
              lambda: str(rng.choice(["a", "b c", "Ünï", "x\ny", '"q"', "2024-01-0%d" % rng.integers(1, 9)])),
              lambda: None, lambda: 2 ** int(rng.integers(50, 70)), lambda: {"k": 1}, lambda: [1]]
    # Each key keeps one kind of value most of the time, as real files do, and now and then takes another.
    kinds = {key: int(rng.integers(0, 4)) if rng.random() < 0.9 else int(rng.integers(4, 8)) for key in keys}
    missing = 0.1 if rng.random() < 0.3 else 0.0
    other = 0.03 if rng.random() < 0.4 else 0.0
    lines = []
    for _ in range(int(rng.integers(1, 30))):
        record = {}
        for key in keys:
            if rng.random() < missing:
                continue  # a key missing from this record
            kind = kinds[key] if rng.random() >= other else int(rng.integers(0, len(values)))
            record[key] = values[kind]()
        lines.append(json.dumps(record, ensure_ascii=bool(rng.integers(0, 2))))
    flaw = int(rng.integers(0, 12))  # 0-4: a flaw; the rest: none
    at = int(rng.integers(0, len(lines)))
    if flaw == 0:
        lines.insert(at, "")  # a blank line
    elif flaw == 1:
        lines[at] = lines[at] + " " + lines[at]  # two records on a line
    elif flaw == 2:
        lines[at] = lines[at].replace(", ", ",\n", 1)  # a record over two lines
    elif flaw == 3 and lines[at].startswith("{\""):
        lines[at] = '{"dup": 1, "dup": 2, ' + lines[at][1:]  # a key given twice
    end = ["\n", "\r\n"][int(rng.integers(0, 2))]
    data = end.join(lines) + (end if rng.random() < 0.8 else "")
    raw = data.encode("utf-8")
    if flaw == 4:
        raw = raw.replace(b"a", b"\xff", 1)  # a byte that is not UTF-8
    return raw


@pytest.mark.parametrize(("piece", "scanned"), [(48 << 20, 8 << 20), (64, 8 << 20), (48 << 20, 5)])
def test_random_files_read_alike_or_are_refused_alike(piece: int, scanned: int, tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Differential: 150 random small files, each read by read_tidy with pyarrow's reading and without it, give the
    same frame or the same refusal; pyarrow's reading takes a good share of them (else the test proves little).
    In pieces of 64 bytes too: a piece of a line or two, joined to the next at the type holding both; and with
    the scan's slices of 5 bytes, so that line breaks and closing braces fall at a slice's edge."""
    monkeypatch.setattr(arrow_json, "PIECE", piece)
    monkeypatch.setattr(arrow_json, "_SLICE", scanned)
    rng = np.random.default_rng(2026)
    taken = 0
    for number in range(150):
        path = tmp_path / f"r{number}.jsonl"
        path.write_bytes(_random_file(rng))
        outcomes = []
        for arrow in (True, False):
            with monkeypatch.context() as patch:
                if not arrow:
                    patch.setattr(arrow_json, "read_json_lines", lambda path, *identity: None)
                try:
                    outcomes.append(tidy.read_tidy(path))
                except InputError as exc:
                    outcomes.append(str(exc))
        if isinstance(outcomes[1], str):
            assert outcomes[0] == outcomes[1], path.read_bytes()
            continue
        assert not isinstance(outcomes[0], str), (outcomes[0], path.read_bytes())
        _same(outcomes[0], outcomes[1])
        taken += arrow_json.read_json_lines(path) is not None
    assert taken >= 30


def test_a_file_read_in_pieces_gives_the_frame_of_the_standard_reading(tmp_path: Path,
                                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Pieces of 2 KiB: a key first seen in a late piece, decimals in one piece among whole numbers, a null among
    whole numbers, a release and a category dictionary-encoded piece by piece, each piece its own dictionary."""
    monkeypatch.setattr(arrow_json, "PIECE", 2 << 10)
    path = tmp_path / "r.jsonl"
    _write(path, _records(3_000))
    pieces: list[int] = []
    piece = arrow_json._piece
    monkeypatch.setattr(arrow_json, "_piece", lambda *args: pieces.append(1) or piece(*args))
    taken, arrow, standard = _both(path, monkeypatch)
    assert taken and len(pieces) > 50
    assert isinstance(arrow["release"].dtype, pd.CategoricalDtype)
    assert isinstance(arrow["category"].dtype, pd.CategoricalDtype)
    _same(arrow, standard)


def _at_a_block_start(first: str, then: str, mib: int) -> str:
    """Records of one key holding ``first`` filling ``mib`` MiB exactly, then one holding ``then``: the last
    record is the first of a block of pyarrow's reader (1 MiB blocks by default)."""
    line = f'{{"a":{first}'.ljust(14) + "}\n"  # 16 bytes, spaces before the brace
    count, rest = divmod(mib << 20, len(line))
    assert rest == 0
    return line * count + f'{{"a":{then}}}\n'


@pytest.mark.parametrize("first, then", [("1", "true"), ("1.5", "false")])
def test_a_change_of_kind_at_a_block_start_does_not_crash_the_process(first: str, then: str,
                                                                      tmp_path: Path) -> None:
    """pyarrow's reader, given the whole file, crashed the process (a segmentation fault, exit 139) where a
    block's first record changed a column from a number to true or false: each piece is read as one block now,
    and the change is refused there, so the standard reading reads the file. In a child process, so that a crash
    fails this test and not the run."""
    import subprocess
    import sys

    path = tmp_path / "r.jsonl"
    path.write_text(_at_a_block_start(first, then, 2), encoding="utf-8")
    code = ("import sys; from pathlib import Path; from releasegate.load import tidy; "
            "print(tidy.read_tidy(Path(sys.argv[1]))['a'].dtype)")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=120)
    assert (done.returncode, done.stdout.strip()) == (0, "object"), done.stderr[-500:]
    assert arrow_json.read_json_lines(path) is None


def test_numbers_before_a_block_starting_with_text_stay_numbers(tmp_path: Path,
                                                                monkeypatch: pytest.MonkeyPatch) -> None:
    """Given the whole file, pyarrow's reader read every number of a column as text ("120") when a later block
    began with a text value of it: a piece is one block, and a number and a text do not join."""
    path = tmp_path / "r.jsonl"
    path.write_text(_at_a_block_start("120", '"slow"', 1), encoding="utf-8")
    assert arrow_json.read_json_lines(path) is None
    taken, arrow, standard = _both(path, monkeypatch)
    assert not taken and arrow["a"].head(2).tolist() == [120, 120]
    _same(arrow, standard)
