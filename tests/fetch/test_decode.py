"""Streaming decoders, Retry-After and the Wahapedia table check, on real bytes (no server needed)."""

from __future__ import annotations

import gzip
import itertools
import zlib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from pipeline import config
from pipeline.fetch.decode import CHUNK, DecodeError, GzipInflater, Identity, decoder_for, inflate_all
from pipeline.fetch.http import ContentRefused
from pipeline.fetch.wahapedia_check import WahapediaTableCheck, required_columns
from pipeline.fetch.waits import parse_retry_after


def test_a_gzip_bomb_inflates_one_bounded_piece_at_a_time() -> None:
    """256 MiB of zeros in ~250 KB: a consumer that stops at 1 MiB has inflated at most 1 MiB + one chunk."""
    bomb = gzip.compress(bytes(256 << 20), compresslevel=9)
    pieces = GzipInflater().feed(bomb)
    taken = list(itertools.takewhile(lambda total: total <= 1 << 20, itertools.accumulate(map(len, pieces))))
    assert taken[-1] == 1 << 20 and len(taken) == (1 << 20) // CHUNK
    assert max(len(p) for p in GzipInflater().feed(bomb)) == CHUNK


@pytest.mark.parametrize("split", [1, 7, 4096, 1 << 20])
def test_gzip_inflates_any_split_of_the_stream_exactly(wahapedia_dir: Path, split: int) -> None:
    data = (wahapedia_dir / "Source.csv").read_bytes()
    packed = gzip.compress(data) + gzip.compress(b"second member|\n")  # two members are one body
    chunks = [packed[i : i + split] for i in range(0, len(packed), split)]
    assert b"".join(inflate_all(chunks, GzipInflater())) == data + b"second member|\n"


def test_identity_passes_bytes_through() -> None:
    assert list(inflate_all([b"a|", b"", b"b|"], Identity())) == [b"a|", b"b|"]


@pytest.mark.parametrize(
    ("header", "kind"),
    [(None, Identity), ("", Identity), ("identity", Identity), ("gzip", GzipInflater), ("X-GZIP", GzipInflater)],
)
def test_accepted_encodings(header: str | None, kind: type) -> None:
    assert isinstance(decoder_for(header), kind)


@pytest.mark.parametrize(
    ("header", "message"),
    [
        ("gzip, gzip", "stacked Content-Encoding refused: 'gzip, gzip'"),
        ("gzip,identity,gzip", "stacked Content-Encoding refused: 'gzip,identity,gzip'"),
        ("deflate", "unsupported Content-Encoding: 'deflate'"),
        ("zstd", "unsupported Content-Encoding: 'zstd'"),
    ],
)
def test_refused_encodings(header: str, message: str) -> None:
    with pytest.raises(DecodeError) as refused:
        decoder_for(header)
    assert str(refused.value) == message


def test_a_truncated_gzip_member_is_an_error() -> None:
    packed = zlib.compress(b"x" * 10_000, wbits=31)
    with pytest.raises(DecodeError, match="the stream ends inside a member"):
        list(inflate_all([packed[:-4]], GzipInflater()))


NOW = datetime(2025, 7, 9, 12, 0, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        ("120", 120.0),
        (" 0 ", 0.0),
        ("Wed, 09 Jul 2025 12:01:30 GMT", 90.0),
        ("Wednesday, 09-Jul-25 13:00:00 GMT", 3600.0),  # RFC 850 form
        ("Wed, 09 Jul 2025 11:00:00 GMT", 0.0),  # in the past: go now
        ("soon", None),
        ("-5", None),
        ("", None),
        (None, None),
    ],
)
def test_retry_after_in_seconds_or_as_an_http_date(value: str | None, seconds: float | None) -> None:
    assert parse_retry_after(value, now=NOW) == seconds


# -- the Wahapedia table check ----------------------------------------------------------


def _check(name: str, data: bytes, chunk: int = 4093) -> None:
    check = WahapediaTableCheck(name)
    for start in range(0, len(data), chunk):
        check.feed(data[start : start + chunk])
    check.finish()


@pytest.mark.parametrize("name", config.WAHAPEDIA_FILES)
def test_every_real_table_passes_its_check(wahapedia_dir: Path, name: str) -> None:
    assert required_columns(name)  # the parser names the columns of every file the fetch knows
    _check(name, (wahapedia_dir / name).read_bytes())


def test_multibyte_characters_split_across_chunks_pass(wahapedia_dir: Path) -> None:
    data = (wahapedia_dir / "Factions.csv").read_bytes()
    assert "’".encode() in data
    _check("Factions.csv", data, chunk=1)


@pytest.mark.parametrize("name", config.WAHAPEDIA_FILES)
def test_a_header_without_a_required_column_is_refused(wahapedia_dir: Path, name: str) -> None:
    data = (wahapedia_dir / name).read_bytes()
    column = required_columns(name)[-1]
    header, rest = data.split(b"\n", 1)
    renamed = b"|".join(b"renamed" if cell == column.encode() else cell for cell in header.split(b"|"))
    assert renamed != header
    with pytest.raises(ContentRefused) as refused:
        _check(name, renamed + b"\n" + rest)
    assert str(refused.value) == f"{name}: header row lacks {column}"


def test_html_is_refused_before_the_whole_page_arrives() -> None:
    check = WahapediaTableCheck("Factions.csv")
    with pytest.raises(ContentRefused, match="an HTML/XML page"):
        check.feed(b"\xef\xbb\xbf  \n<html")
