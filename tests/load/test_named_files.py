"""releasegate.files: a named file is a regular file read within a cap, whatever it is named for; a device, a
FIFO or a directory is refused in one line saying what it is, before anything is read or waited for."""

from __future__ import annotations

import os
import re
import resource
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli
from releasegate.errors import FileError, PolicyError
from releasegate.files import check_regular, read_capped, read_text_capped, size_text

EXAMPLE = ROOT / "examples" / "bank-assistant"


def test_a_regular_file_is_read_whole_up_to_its_cap(tmp_path):
    path = tmp_path / "p.txt"
    path.write_bytes(b"abc")
    assert read_capped(path, "prompt", cap=3) == b"abc"
    assert check_regular(path, "prompt", cap=3) == 3
    with pytest.raises(FileError, match=r"prompt .*p.txt is 3 bytes, over the cap of 2 bytes"):
        read_capped(path, "prompt", cap=2)
    with pytest.raises(FileError, match="over the cap"):
        check_regular(path, "prompt", cap=2)


@pytest.mark.parametrize("make,kind", [
    (lambda tmp: "/dev/zero", "a character device"),
    (lambda tmp: (os.mkfifo(tmp / "f"), tmp / "f")[1], "a FIFO (named pipe)"),
    (lambda tmp: tmp, "a directory"),
])
def test_what_is_not_a_regular_file_is_named(tmp_path, make, kind):
    path = make(tmp_path)
    for read in (lambda: read_capped(path, "policy file", cap=1 << 20, error=PolicyError),
                 lambda: check_regular(path, "policy file", error=PolicyError)):
        with pytest.raises(PolicyError, match=re.escape(f"policy file {path} is {kind}, not a regular file")):
            read()


def test_missing_unreadable_and_not_utf8(tmp_path):
    with pytest.raises(FileError, match="gold file not found: .*nothere"):
        read_capped(tmp_path / "nothere", "gold file", cap=10)
    (tmp_path / "latin.txt").write_bytes(b"caf\xe9")
    with pytest.raises(FileError, match=r"not UTF-8 text \(byte 0xE9 at offset 3\)"):
        read_text_capped(tmp_path / "latin.txt", "prompt")


def test_sizes_read_as_a_person_reads_them():
    assert [size_text(n) for n in (300, 1 << 10, 1 << 20, 3 << 29)] == ["300 bytes", "1 KiB", "1 MiB", "1.5 GiB"]


def test_verify_names_a_device_given_as_the_note():
    done = run_cli("verify", "/dev/zero", EXAMPLE / "eval_results.csv")
    assert done.exit_code == 2 and "note /dev/zero is a character device, not a regular file" in done.output


def _capped():  # 2 GiB of address space: a file read until memory runs out fails well before the OOM killer
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


@pytest.mark.parametrize("flag", ["--policy", "--cases", "--gold"])
def test_dev_zero_and_a_fifo_end_at_once_under_an_address_space_cap(tmp_path, flag):
    os.mkfifo(tmp_path / "pipe")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    for named in ("/dev/zero", "pipe"):
        done = subprocess.run([sys.executable, "-m", "releasegate", "check", str(EXAMPLE / "eval_results.csv"),
                               "--baseline", "r1-live", flag, named,
                               *(("--no-policy",) if flag != "--policy" else ())], cwd=tmp_path, env=env, capture_output=True,
                              text=True, timeout=60, preexec_fn=_capped, check=False)
        assert done.returncode == 2, done.stderr
        assert done.stderr.count("\n") == 1 and "not a regular file" in done.stderr, done.stderr
