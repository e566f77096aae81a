"""Large feed files written around the page cache: the same bytes as Polars' writer, in chunks and blocks of any
size, with or without `O_DIRECT`, and the hash of what was written."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from pathlib import Path

import polars as pl
import pytest

from pipeline.publish import direct_write, formats
from pipeline.publish.direct_write import BLOCK, write_direct

#: Chunk sizes around the block and the buffer (two blocks here), and nothing at all.
CHUNKINGS = {
    "nothing": [],
    "one byte": [1],
    "a block less one": [BLOCK - 1],
    "a block": [BLOCK],
    "the buffer and one": [2 * BLOCK + 1],
    "many uneven": [7, BLOCK * 3 + 5, 0, 1000, BLOCK - 3, 12_345],
}


@pytest.fixture(autouse=True)
def _small_buffer(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(direct_write, "BUFFER_BYTES", 2 * BLOCK)


@pytest.mark.parametrize("direct", [True, False], ids=["O_DIRECT", "buffered"])
@pytest.mark.parametrize("sizes", list(CHUNKINGS.values()), ids=list(CHUNKINGS))
def test_the_file_holds_the_chunks_and_their_hash(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sizes: list[int], direct: bool
) -> None:
    if not direct:
        monkeypatch.delattr(os, "O_DIRECT", raising=False)  # a system without it: written as usual
    chunks = [os.urandom(n) for n in sizes]
    path = tmp_path / "out.ndjson"
    path.write_bytes(b"an older, longer file " * 1000)  # emptied first
    sha = write_direct(path, chunks)
    assert path.read_bytes() == b"".join(chunks)
    assert sha == hashlib.sha256(b"".join(chunks)).hexdigest()


def test_a_large_frame_s_feed_file_is_polars_ndjson_byte_for_byte(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Chunks of 3 rows through a buffer of two blocks: the file is the one `write_ndjson` writes at once."""
    monkeypatch.setattr(formats, "DIRECT_MIN_BYTES", 0)
    monkeypatch.setattr(formats, "FEED_CHUNK_ROWS", 3)
    frame = pl.DataFrame(
        {"weapon_id": [f"w{i}" for i in range(200)], "damage": [i / 3 for i in range(200)], "line": [None] * 200},
        schema={"weapon_id": pl.String, "damage": pl.Float64, "line": pl.Int64},
    )
    expected = tmp_path / "expected.ndjson"
    frame.write_ndjson(expected)
    path = tmp_path / "damage_vs_reference.ndjson"
    sha = formats.write_feed_table("damage_vs_reference", frame, path)
    assert path.read_bytes() == expected.read_bytes()
    assert sha == hashlib.sha256(expected.read_bytes()).hexdigest()
    assert len(expected.read_bytes()) > 2 * BLOCK  # the buffer was written more than once


def test_a_small_frame_is_written_by_polars_at_once(tmp_path: Path) -> None:
    frame = pl.DataFrame({"a": [1, 2]})
    assert formats.write_feed_table("damage_vs_reference", frame, tmp_path / "f.ndjson") is None
    assert (tmp_path / "f.ndjson").read_text() == '{"a":1}\n{"a":2}\n'


def test_a_write_the_device_refuses_goes_through_the_page_cache(tmp_path: Path) -> None:
    """Ten bytes from an unaligned buffer: refused with `O_DIRECT` (EINVAL), then written without it."""
    path = tmp_path / "refused.bin"
    fd = direct_write._open_direct(path)
    if fd is None:
        pytest.skip("no O_DIRECT on this file system")
    try:
        direct_write._write_all(fd, memoryview(b"0123456789"))
        assert not direct_write._stop_direct(fd)  # already cleared
    finally:
        os.close(fd)
    assert path.read_bytes() == b"0123456789"


def test_an_error_while_writing_is_the_one_raised(tmp_path: Path) -> None:
    """The chunks fail half way (a serialiser's error): that error comes out, not the buffer's clean-up's."""

    def failing() -> Iterator[bytes]:
        yield os.urandom(3 * BLOCK + 7)
        raise ValueError("serialiser failed")

    with pytest.raises(ValueError, match="serialiser failed"):
        write_direct(tmp_path / "half.ndjson", failing())
