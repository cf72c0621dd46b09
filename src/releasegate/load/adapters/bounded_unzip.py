"""Decompress zip members in bounded chunks: a zip bomb is refused before memory grows.

A member's size is declared twice (central directory, local header) and checked by zipfile only after it is
inflated in full; a 64 KB zstd member declaring 2 bytes inflated to 4.3 GB of memory, and a 2 MB deflate one
took 4.3 GB and 31 s (issue 15, item 10). Here every member is decompressed CHUNK bytes at a time, and
refused as soon as its output passes its declared size, MEMBER_LIMIT, or (over the whole archive)
TOTAL_LIMIT; declared sizes above the limits are refused before anything is decompressed.
"""

from __future__ import annotations

import io
import zipfile
import zlib
from pathlib import Path

from releasegate.errors import FileError

CHUNK = 1 << 20
MEMBER_LIMIT = 256 << 20  # the largest sample of a real log is a few MB; a header, less
# Over the whole archive: a 6.4 MB .eval of 20,000 members of 100 KB inflated to 2 GB and held 2.07 GB of memory
# under a limit of 2 GiB (issue 28, item 13). The reader keeps only each sample's outcome and clipped texts, so
# memory no longer grows with the log; 1 GiB of JSON is what it can parse in a few seconds on this machine.
TOTAL_LIMIT = 1 << 30
MEMBER_COUNT_LIMIT = 200_000  # 100,000 samples of 2 epochs


class Budget:
    """The bytes the archive may still inflate to, over all its members."""

    def __init__(self, total: int = TOTAL_LIMIT, member: int = MEMBER_LIMIT, count: int = MEMBER_COUNT_LIMIT) -> None:
        self.left = total
        self.total = total
        self.member = member
        self.count = count

    def check_declared(self, path: Path, infos: list[zipfile.ZipInfo]) -> None:
        if len(infos) > self.count:
            raise FileError(f"{path}: {len(infos):,} members to read, above the limit of {self.count:,}; not read "
                             "(decompression is bounded)")
        for info in infos:
            if info.file_size > self.member:
                raise FileError(f"{path}: member {info.filename} declares {info.file_size:,} bytes, above the "
                                 f"limit of {self.member:,} per member; not read (decompression is bounded)")
        declared = sum(info.file_size for info in infos)
        if declared > self.total:
            raise FileError(f"{path}: the members declare {declared:,} bytes in all, above the limit of "
                             f"{self.total:,}; not read (decompression is bounded)")


def read_chunks(path: Path, info: zipfile.ZipInfo, stream: io.RawIOBase | io.BufferedIOBase, budget: Budget) -> bytes:
    """Read a decompressing ``stream`` of ``info`` CHUNK bytes at a time, within its declared size and budget.

    The caller checks the CRC (zipfile does so itself at the end of a deflate member).
    """
    limit = min(info.file_size, budget.member, budget.left)
    parts, size = [], 0
    while True:
        # One byte more than allowed tells "ends here" from "goes on": a member's output never passes it.
        chunk = stream.read(min(CHUNK, limit - size + 1))
        if not chunk:
            break
        size += len(chunk)
        if size > limit:
            raise FileError(f"{path}: member {info.filename} inflates beyond "
                             f"{_limit_text(limit, info, budget)}; refused as a zip bomb (decompression is bounded)")
        parts.append(chunk)
    budget.left -= size
    return b"".join(parts)


def _limit_text(limit: int, info: zipfile.ZipInfo, budget: Budget) -> str:
    if limit == info.file_size:
        return f"its declared size of {info.file_size:,} bytes"
    if limit == budget.member:
        return f"the limit of {budget.member:,} bytes per member"
    return f"the limit of {budget.total:,} bytes per log"


def read_deflated(path: Path, archive: zipfile.ZipFile, info: zipfile.ZipInfo, budget: Budget) -> bytes:
    """A stored or deflate member, bounded; zipfile checks its CRC-32 when the stream ends."""
    try:
        with archive.open(info) as stream:
            return read_chunks(path, info, stream, budget)
    except NotImplementedError:
        raise FileError(f"{path}: member {info.filename} uses zip compression method {info.compress_type}; "
                         "deflate and zstd are supported") from None
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError) as exc:
        raise FileError(f"{path}: member {info.filename} is corrupt ({exc})") from None
