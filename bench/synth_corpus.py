"""A k-times BSData corpus from the shared catalogues, for the scaling bench (temporary folders only).

The game system is copied once; each chosen catalogue k times, copy i > 1 with every id defined in the
chosen catalogues suffixed `-s<i>` wherever it occurs (entries, links, catalogue links) and its name
suffixed `(copy i)`, so each copy parses as a catalogue of its own with its own datasheets and weapons.

    python bench/synth_corpus.py OUT_DIR FACTOR [CATALOGUE ...]   # default: every catalogue in the folder
"""

from __future__ import annotations

import re
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

_DEFINED_ID = re.compile(rb'\bid="([^"]+)"')
_QUOTED = re.compile(rb'"([^"<>]+)"')
_ROOT_NAME = re.compile(rb'(<catalogue\b[^>]*?\bname=")([^"]+)(")')


def _copy(text: bytes, ids: set[bytes], index: int) -> bytes:
    suffix = f"-s{index}".encode()
    renamed = _QUOTED.sub(lambda m: b'"' + m[1] + suffix + b'"' if m[1] in ids else m[0], text)
    return _ROOT_NAME.sub(lambda m: m[1] + m[2] + f" (copy {index})".encode() + m[3], renamed, count=1)


def build(out: Path, factor: int, source: Path, catalogues: Sequence[str] = ()) -> Path:
    """`out/bsdata/` holding the game system(s) and `factor` copies of each catalogue (default: every one in
    `source`); returns that folder."""
    catalogues = catalogues or sorted(p.name for p in source.glob("*.cat"))
    folder = out / "bsdata"
    folder.mkdir(parents=True)
    for system in sorted(source.glob("*.gst")):
        shutil.copy(system, folder / system.name)
    texts = {name: (source / name).read_bytes() for name in catalogues}
    ids = {found for text in texts.values() for found in _DEFINED_ID.findall(text)}
    for name, text in texts.items():
        stem = Path(name).stem
        (folder / name).write_bytes(text)
        for index in range(2, factor + 1):
            (folder / f"{stem} (copy {index}).cat").write_bytes(_copy(text, ids, index))
    return folder


def main(argv: list[str]) -> None:
    from pipeline import config

    out, factor = Path(argv[0]), int(argv[1])
    print(build(out, factor, config.bsdata_dir(), argv[2:]))


if __name__ == "__main__":
    main(sys.argv[1:])
