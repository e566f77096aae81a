"""Source parsers: one subpackage per input format (`page`, `wahapedia`, `bsdata`), each exporting
`parse(path) -> Iterator[Record]`; here, which format an input path is. Formats, accounting and
judgement calls: docs/sources.md."""

from __future__ import annotations

from pathlib import Path

from pipeline.errors import InputFormatError
from schemas.records import SourceFormat


def detect_format(path: Path) -> SourceFormat:
    """Format of an input path, by the contract's rules.

    A folder holding `Datasheets.csv` is a Wahapedia export; `.cat`/`.gst` files or a
    folder of them are BSData catalogues; `.txt` files or a folder of them are page exports.
    """
    if path.is_dir():
        if (path / "Datasheets.csv").is_file():
            return "wahapedia_csv"
        suffixes = {p.suffix.lower() for p in path.iterdir() if p.is_file()}
        if suffixes & {".cat", ".gst"}:
            return "bsdata"
        if ".txt" in suffixes:
            return "page_export"
    elif path.is_file():
        if path.suffix.lower() in {".cat", ".gst"}:
            return "bsdata"
        if path.suffix.lower() == ".txt":
            return "page_export"
    if not path.exists():
        raise InputFormatError("input path does not exist", path=path)
    raise InputFormatError(
        "cannot tell the format: expected a Wahapedia folder (Datasheets.csv), "
        "BSData .cat/.gst files or page-export .txt files",
        path=path,
    )
