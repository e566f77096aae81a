"""Headless Chromium for the explorer's browser test: the Debian package, installed when absent and
possible (root with apt-get), driven by playwright-python with `executable_path` (no `playwright install`)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")


def _install() -> str | None:
    """None when Chromium is there (installed now if need be), else why it cannot be."""
    if CHROMIUM.is_file():
        return None
    apt = shutil.which("apt-get")
    if apt is None or os.geteuid() != 0:
        return "no /usr/bin/chromium, and apt-get as root is not available to install the Debian package"
    for command in ([apt, "update"], [apt, "install", "-y", "--no-install-recommends", "chromium"]):
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=900)
        if done.returncode != 0:
            return f"`{' '.join(command)}` failed: {done.stderr.strip()[-300:]}"
    return None if CHROMIUM.is_file() else "apt-get installed chromium but /usr/bin/chromium is missing"


def chromium_or_skip() -> Path:
    """The Chromium binary, or a skip that says why there is none."""
    problem = _install()
    if problem is not None:
        pytest.skip(f"browser test skipped: {problem}")
    return CHROMIUM
