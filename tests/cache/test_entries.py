"""Cache entries: what was written is read back; anything else is a miss, with a warning when it was there."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pipeline.cache.entries import CacheWarning, entry_path, read_entry, write_entry

PAYLOAD = {"release": "v0123456789ab", "rows": [1, 2, 3], "text": "Blast — ‘quoted’"}


def test_an_entry_reads_back_as_written(tmp_path: Path) -> None:
    write_entry(tmp_path, "runs", "k1", PAYLOAD)
    assert read_entry(tmp_path, "runs", "k1") == PAYLOAD
    assert [p.name for p in (tmp_path / "runs").iterdir()] == ["k1.json"]  # no temporary file left


def test_a_missing_entry_is_a_quiet_miss(tmp_path: Path, recwarn: pytest.WarningsRecorder) -> None:
    assert read_entry(tmp_path, "runs", "absent") is None
    assert not recwarn.list


def _tamper_payload(path: Path) -> None:
    head, body = path.read_text().split("\n", 1)
    path.write_text(head + "\n" + body.replace("v0123456789ab", "v999999999999"))


def _foreign_kind(path: Path) -> None:
    head, body = path.read_text().split("\n", 1)
    path.write_text(json.dumps({**json.loads(head), "kind": "parsed"}) + "\n" + body)


def _foreign_key(path: Path) -> None:
    head, body = path.read_text().split("\n", 1)
    path.write_text(json.dumps({**json.loads(head), "key": "k2"}) + "\n" + body)


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda p: p.write_bytes(p.read_bytes()[:40]), "no header"),
        (lambda p: p.write_bytes(p.read_bytes()[:-5]), "payload does not match its sha256"),
        (_tamper_payload, "payload does not match its sha256"),
        (_foreign_kind, "foreign header"),
        (_foreign_key, "foreign header"),
        (lambda p: p.write_bytes(b"\x80\x04\x95pickle"), "unreadable"),
        (lambda p: p.write_text("[]\n{}"), "foreign header"),
    ],
    ids=["truncated-header", "truncated-payload", "edited-payload", "other-kind", "other-key", "binary", "not-ours"],
)
def test_a_corrupt_or_foreign_entry_is_ignored_with_a_warning(tmp_path: Path, damage: object, why: str) -> None:
    path = write_entry(tmp_path, "runs", "k1", PAYLOAD)
    damage(path)  # type: ignore[operator]
    with pytest.warns(CacheWarning, match=why):
        assert read_entry(tmp_path, "runs", "k1") is None


def test_entries_live_under_their_kind(tmp_path: Path) -> None:
    assert entry_path(tmp_path, "parsed", "abc") == tmp_path / "parsed" / "abc.json"


def test_a_missing_input_has_a_fingerprint_and_is_left_to_its_parser(tmp_path: Path) -> None:
    from pipeline.cache.fingerprint import inputs_key, tree_fingerprint

    assert tree_fingerprint(tmp_path / "nowhere") == [("nowhere", "absent:2")]
    assert inputs_key([tmp_path / "nowhere"]) != inputs_key([tmp_path / "elsewhere"])
