"""Time the CSV reader (load/arrow_csv.py) alone at several piece and block sizes, each read in a fresh process.

Each setting reads the file into one Arrow table the way ``releasegate report`` does (the identity columns
dictionary-encoded or kept as text), in its own process so that its peak RSS is its own; the settings take turns
round after round, so a drift of the machine's speed touches each alike. Prints one JSON line per read: the
setting, wall and CPU seconds (the kernel's part apart), peak RSS in MiB. ``--stream`` adds the reader of a file
whose quoted values hold line breaks (one stream, one block in flight) as a setting, for comparison.

    PYTHONPATH=src python bench/csv_pieces.py RESULTS.csv --pieces 48,96,1024 --blocks 8,16 --rounds 3 --stream
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ONE_READ = """
import json, resource, sys, time
from pathlib import Path
import pyarrow as pa, pyarrow.csv as csv
from releasegate.load import arrow_csv
from releasegate.load.headers import delimited_header
from releasegate.load.identity import TEXT_COLUMNS
from releasegate.load.tidy import DEFAULT_NA_WORDS

path, piece, block, stream = Path(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4] == "1"
arrow_csv.PIECE, arrow_csv.BLOCK = int(piece * 2**20), int(block * 2**20)
header = delimited_header(path, ",")
identity = [name for name in header if name.strip() in TEXT_COLUMNS]
types = {name: (pa.dictionary(pa.int32(), pa.string()) if name.strip() in arrow_csv.DICTIONARY_COLUMNS
                else pa.large_string()) for name in identity}
options = csv.ConvertOptions(column_types=types, null_values=DEFAULT_NA_WORDS, strings_can_be_null=False)
start, cpu, before = time.perf_counter(), time.process_time(), resource.getrusage(resource.RUSAGE_SELF)
if stream:
    table = arrow_csv._stream(path, 0, path.stat().st_size, csv.ParseOptions(delimiter=",", newlines_in_values=True),
                              options, None)
else:
    table = arrow_csv._read_table(path, csv.ParseOptions(delimiter=","), options, header, quoted=False)
after = resource.getrusage(resource.RUSAGE_SELF)
print(json.dumps({"rows": table.num_rows, "wall_s": round(time.perf_counter() - start, 3),
                  "cpu_s": round(time.process_time() - cpu, 3), "sys_s": round(after.ru_stime - before.ru_stime, 3),
                  "peak_mib": round(after.ru_maxrss / 1024)}))
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("results", type=Path)
    parser.add_argument("--pieces", default="48", help="piece sizes in MiB (fractions too), comma-separated")
    parser.add_argument("--blocks", default="8", help="block sizes in MiB (fractions too), comma-separated")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--stream", action="store_true", help="also the one-stream reader of a quoted file")
    args = parser.parse_args()
    settings = [(float(p), float(b), False) for p in args.pieces.split(",") for b in args.blocks.split(",")]
    settings += [(0.0, float(args.blocks.split(",")[0]), True)] if args.stream else []
    for round_ in range(args.rounds):
        for piece, block, stream in settings:
            done = subprocess.run([sys.executable, "-c", ONE_READ, str(args.results), str(piece), str(block),
                                   "1" if stream else "0"], capture_output=True, text=True, check=True)
            read = json.loads(done.stdout)
            print(json.dumps({"round": round_, "reader": "stream" if stream else "pieces", "piece_mib": piece,
                              "block_mib": block, **read}), flush=True)


if __name__ == "__main__":
    main()
