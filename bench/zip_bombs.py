"""Build the zip bombs of issue 15 (item 10) into a folder, to measure reading them with /usr/bin/time -v.

    python bench/zip_bombs.py /tmp/bombs
    /usr/bin/time -v releasegate report /tmp/bombs/zstd.eval -o /tmp/bombs/out.json   # refused: exit 2

zstd.eval: one member of 4 GiB of zeros declaring 2 bytes (about 130 KB on disk); deflate.eval: the same in
deflate (about 4 MB on disk). Building them takes a minute and little memory.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "load"))

from zip_bombs import DEFLATE, ZSTD, write_bomb

INFLATED = 4 << 30


def main(folder: str) -> None:
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    for name, method in (("zstd.eval", ZSTD), ("deflate.eval", DEFLATE)):
        path = write_bomb(out / name, method, INFLATED, declared=2)
        print(f"{path}: {path.stat().st_size:,} bytes, inflates to {INFLATED:,}")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else "bombs")
