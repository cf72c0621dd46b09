"""Issue 15, item 10: decompression is bounded; a zip bomb is refused before memory grows."""

from __future__ import annotations

import io
import tracemalloc
import zipfile

import pytest
from zip_bombs import DEFLATE, ZSTD, write_bomb

from releasegate.errors import InputError
from releasegate.load.adapters.bounded_unzip import MEMBER_LIMIT, Budget, read_chunks
from releasegate.load.adapters.inspect_ai import read_inspect

INFLATED = 64 << 20  # small enough to build in a test, 2**25 times what the member declares


@pytest.mark.parametrize("method", [ZSTD, DEFLATE], ids=["zstd", "deflate"])
def test_a_member_inflating_past_its_declared_size_is_refused_early(tmp_path, method):
    path = write_bomb(tmp_path / "bomb.eval", method, INFLATED, declared=2)
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as caught:
            read_inspect(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    message = str(caught.value)
    if method == ZSTD:
        assert "member samples/1_epoch_1.json inflates beyond its declared size of 2 bytes" in message
        assert "zip bomb" in message
    else:  # zipfile stops at the declared size itself; the CRC then fails
        assert "member samples/1_epoch_1.json is corrupt" in message
    assert peak < 16 << 20, peak  # on main: the whole 64 MiB (and 4.3 GB for the bomb)


@pytest.mark.parametrize("method", [ZSTD, DEFLATE], ids=["zstd", "deflate"])
def test_a_member_declaring_more_than_the_limit_is_refused_before_decompressing(tmp_path, method):
    path = write_bomb(tmp_path / "big.eval", method, 1 << 10, declared=MEMBER_LIMIT + 1)
    with pytest.raises(InputError, match=r"declares 268,435,457 bytes, above the limit of 268,435,456 per member"):
        read_inspect(path)


def _info(size: int) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo("samples/x.json")
    info.file_size = size
    return info


def test_the_budget_covers_every_member_of_a_log():
    budget = Budget(total=100, member=80)
    assert read_chunks("log.eval", _info(60), io.BytesIO(b"a" * 60), budget) == b"a" * 60
    with pytest.raises(InputError, match="inflates beyond the limit of 100 bytes per log"):
        read_chunks("log.eval", _info(60), io.BytesIO(b"b" * 60), budget)


def test_declared_sizes_over_the_total_are_refused_up_front():
    budget = Budget(total=100, member=80)
    with pytest.raises(InputError, match="declare 120 bytes in all, above the limit of 100"):
        budget.check_declared("log.eval", [_info(60), _info(60)])


def test_output_within_the_declared_size_is_read_whole():
    data = bytes(range(256)) * 4097  # more than one chunk
    assert read_chunks("log.eval", _info(len(data)), io.BytesIO(data), Budget()) == data


def test_many_members_are_bounded_in_total_before_anything_inflates(tmp_path):
    """Issue 28 item 13: 20,000 members of 100 KB (a 6.4 MB file) declare 2 GB in all: refused from the central
    directory, before a byte is decompressed (it held 2.07 GB of memory under the old 2 GiB limit)."""
    from zip_bombs import write_many_members

    path = write_many_members(tmp_path / "many.eval", 20_000, 100_000)
    assert path.stat().st_size < 8 << 20
    tracemalloc.start()
    try:
        with pytest.raises(InputError) as caught:
            read_inspect(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "declare 2,000,000,061 bytes in all, above the limit of 1,073,741,824" in str(caught.value)
    assert peak < 64 << 20  # the central directory, not the members


def test_member_count_is_bounded(tmp_path):
    from zip_bombs import write_many_members

    path = write_many_members(tmp_path / "count.eval", 30, 10)
    budget = Budget(count=20)
    with zipfile.ZipFile(path) as archive, pytest.raises(InputError, match="31 members to read, above the limit of 20"):
        budget.check_declared(path, archive.infolist())
