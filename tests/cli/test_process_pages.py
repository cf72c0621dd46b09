"""The report and check commands take their memory in ordinary pages, not transparent huge pages
(process.small_pages_only), unless the environment sets mimalloc's own option for it.

Linux keeps the setting per process and hands it to the processes it starts, so each case runs in a child process
that first clears it (a test process that ran the commands in-process has it set already)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a Linux process setting")

_CHILD = """
import ctypes, sys
libc = ctypes.CDLL("libc.so.6")
PR_SET_THP_DISABLE, PR_GET_THP_DISABLE = 41, 42
libc.prctl(PR_SET_THP_DISABLE, 0, 0, 0, 0)
before = libc.prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0)
from releasegate.process import cyclic_gc_paused
with cyclic_gc_paused():
    inside = libc.prctl(PR_GET_THP_DISABLE, 0, 0, 0, 0)
status = open("/proc/self/status").read()
print(before, inside, "THP_enabled:\\t0" in status if "THP_enabled" in status else "-")
"""


def _child(env_extra: dict[str, str]) -> list[str]:
    env = {k: v for k, v in os.environ.items() if k != "MIMALLOC_ALLOW_THP"} | env_extra
    done = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done.stdout.split()


def test_the_commands_ask_for_no_huge_pages():
    before, inside, status = _child({})
    assert (before, inside) == ("0", "1")
    assert status in ("True", "-")  # the kernel's own account of the process, where it gives one


def test_mimallocs_own_option_in_the_environment_stands():
    before, inside, _ = _child({"MIMALLOC_ALLOW_THP": "1"})
    assert (before, inside) == ("0", "0")
