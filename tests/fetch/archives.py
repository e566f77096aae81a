"""BSData-style repository archives built at test time from the shared catalogues (never committed).

`repo_members` gives what GitHub's archive of a ref holds: one top folder, the
catalogues, a README and a workflow file (the two are not catalogues). Hostile
members (links, devices, `..` paths) are added per test with `Member`.
"""

from __future__ import annotations

import io
import tarfile
from dataclasses import dataclass, field
from pathlib import Path

from tests.fetch.loopback import gzipped

#: Three small catalogues that parse into 12 datasheets together (the game system, an army, its library).
CATALOGUES = ("Warhammer 40,000.gst", "Chaos - Titanicus Traitoris.cat", "Library - Titans.cat")
DATASHEETS = 12
TOP = "wh40k-10e-main"


@dataclass(frozen=True)
class Member:
    name: str
    data: bytes = b""
    type: bytes = tarfile.REGTYPE
    linkname: str = ""
    pax: dict[str, str] = field(default_factory=dict)


def repo_members(bsdata_dir: Path, names: tuple[str, ...] = CATALOGUES) -> list[Member]:
    members = [Member(TOP, type=tarfile.DIRTYPE), Member(f"{TOP}/README.md", b"# wh40k-10e\n")]
    members += [Member(f"{TOP}/.github/workflows", type=tarfile.DIRTYPE)]
    members += [Member(f"{TOP}/.github/workflows/ci.yml", b"on: push\n")]
    return members + [Member(f"{TOP}/{name}", (bsdata_dir / name).read_bytes()) for name in names]


def tar_gz(members: list[Member]) -> bytes:
    """A .tar.gz of exactly these members (names kept as given, even hostile ones)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for member in members:
            info = tarfile.TarInfo(member.name)
            info.type, info.linkname, info.mtime, info.mode = member.type, member.linkname, 1_700_000_000, 0o644
            info.pax_headers = member.pax
            info.size = len(member.data) if member.type == tarfile.REGTYPE else 0
            tar.addfile(info, io.BytesIO(member.data) if member.type == tarfile.REGTYPE else None)
    return gzipped(buffer.getvalue())
