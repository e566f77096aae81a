"""`make help`: every target listed, colour codes only when stdout is a terminal."""

from __future__ import annotations

import os
import pty
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HELP = ["make", "--no-print-directory", "--silent", "help"]
CYAN = "\x1b[36m"


def _env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "MAKEFLAGS", "MAKELEVEL")}


def _on_a_terminal() -> str:
    """`make help` with its stdout on a pseudo-terminal: what a person sees."""
    main, child = pty.openpty()
    try:
        subprocess.run(HELP, stdout=child, cwd=ROOT, env=_env(), check=True)
    finally:
        os.close(child)
    chunks = []
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # EIO: the terminal's other side is closed and drained
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(main)
    return b"".join(chunks).decode()


def test_help_through_a_pipe_is_plain_text_listing_every_target() -> None:
    text = subprocess.run(HELP, capture_output=True, text=True, cwd=ROOT, env=_env(), check=True).stdout
    assert "\x1b" not in text
    targets = [line.split()[0] for line in text.splitlines()]
    assert {"install", "lock", "run", "test", "test-fast", "lint", "typecheck", "bench", "clean"} <= set(targets)


def test_help_on_a_terminal_is_coloured() -> None:
    text = _on_a_terminal()
    assert f"{CYAN}test-fast" in text and f"{CYAN}lint" in text and f"{CYAN}lock" in text
