"""The previous release of an output folder as the golden layer reads it: its tables.

Which release that is (the folder's `latest`, or what a rebuild of `latest`'s own version was compared
with) is decided by `outdir.OutputFolder.publication`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import polars as pl

from pipeline.cache.hashed import unchanged_sha256
from pipeline.publish.outdir import ReleaseInfo


@dataclass(frozen=True)
class PreviousRelease:
    folder: Path
    version: str

    @classmethod
    def of(cls, out_dir: Path, info: ReleaseInfo | None) -> PreviousRelease | None:
        return None if info is None else cls((out_dir / info.name).resolve(), info.version)

    def table(self, name: str) -> pl.DataFrame | None:
        """A published table of the previous release, or None when it did not publish one."""
        path = self.folder / f"{name}.parquet"
        return pl.read_parquet(path) if path.is_file() else None

    def parquet_sha256(self, name: str) -> str | None:
        """sha256 of the previous release's `<name>.parquet` (read from the file, not its manifest), or None."""
        path = self.folder / f"{name}.parquet"
        return unchanged_sha256(str(path)) if path.is_file() else None
