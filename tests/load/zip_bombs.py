"""Zip bombs shaped like Inspect .eval logs, for tests/test_zip_bombs.py and bench/zip_bombs.py.

Written by hand (local headers, central directory, end record): the declared size of a member can then be
a lie, as in a real bomb, and zstd (method 93) can be written on Python 3.11.
"""

from __future__ import annotations

import json
import struct
import zipfile
import zlib
from pathlib import Path

ZSTD, DEFLATE = 93, 8
HEADER = json.dumps({"eval": {"task": "bomb", "model": "m"}, "status": "success"}).encode()


def _compressed(method: int, size: int) -> bytes:
    """``size`` zero bytes, compressed one MiB at a time (memory stays small while building)."""
    block = bytes(1 << 20)
    full, rest = divmod(size, len(block))
    if method == ZSTD:
        import zstandard

        stream = zstandard.ZstdCompressor(level=19).compressobj()
        compress, flush = stream.compress, stream.flush
    else:
        stream = zlib.compressobj(9, zlib.DEFLATED, -15)
        compress, flush = stream.compress, stream.flush
    parts = [compress(block) for _ in range(full)]
    parts.append(compress(block[:rest]))
    parts.append(flush())
    return b"".join(parts)


def write_bomb(path: Path, method: int, inflated: int, declared: int | None = None,
               name: str = "samples/1_epoch_1.json") -> Path:
    """An .eval with a real header.json and one member of ``inflated`` zeros that declares ``declared`` bytes."""
    members = [("header.json", 0, HEADER, len(HEADER), zipfile.crc32(HEADER)),
               (name, method, _compressed(method, inflated), inflated if declared is None else declared, 0)]
    body, central = bytearray(), bytearray()
    for filename, kind, packed, size, crc in members:
        encoded, offset = filename.encode(), len(body)
        common = (0, kind, 0, 33, crc, len(packed), size, len(encoded))
        body += struct.pack("<IH" + "HHHHIIIH" + "H", 0x04034B50, 63, *common, 0) + encoded + packed
        central += struct.pack("<IHH" + "HHHHIIIH" + "HHHHII", 0x02014B50, 63, 63, *common, 0, 0, 0, 0, 0,
                               offset) + encoded
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(body), 0)
    path.write_bytes(bytes(body + central + end))
    return path


def write_many_members(path: Path, count: int, size: int, method: int = DEFLATE) -> Path:
    """An .eval of ``count`` sample members of ``size`` zero bytes each, sizes declared truthfully (issue 28,
    item 13: 20,000 members of 100 KB are a 6.4 MB file that inflates to 2 GB)."""
    packed_one = _compressed(method, size)
    body, central = bytearray(), bytearray()
    members = [("header.json", 0, HEADER, len(HEADER), zipfile.crc32(HEADER))]
    crc = zlib.crc32(bytes(size))
    members += [(f"samples/{i}_epoch_1.json", method, packed_one, size, crc) for i in range(count)]
    for filename, kind, packed, declared, member_crc in members:
        encoded, offset = filename.encode(), len(body)
        common = (0, kind, 0, 33, member_crc, len(packed), declared, len(encoded))
        body += struct.pack("<IH" + "HHHHIIIH" + "H", 0x04034B50, 63, *common, 0) + encoded + packed
        central += struct.pack("<IHH" + "HHHHIIIH" + "HHHHII", 0x02014B50, 63, 63, *common, 0, 0, 0, 0, 0,
                               offset) + encoded
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, len(members), len(members), len(central), len(body), 0)
    path.write_bytes(bytes(body + central + end))
    return path
