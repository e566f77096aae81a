"""Data Docs made byte-identical and slim."""

from __future__ import annotations

from pathlib import Path

from pipeline.quality.docs import prune_unreferenced_static, stabilise_docs

PAGE = (
    '<img src="https://x/logo-long.png?d=20261129T151922.937239Z">'
    '<a href="#body-7e023527-5011-49aa-b310-faab201de929">x</a>'
    "<div id=body-7e023527-5011-49aa-b310-faab201de929></div>"
    "<span>20261129T151922.705443Z</span><div id=c-8f8694ef-ffad-48a8-9119-367c30a7222a></div>"
)


def test_stabilise_replaces_clock_and_random_ids(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text(PAGE)
    assert stabilise_docs(tmp_path, "20000101T000000.000000Z") == 1
    assert (tmp_path / "index.html").read_text() == (
        '<img src="https://x/logo-long.png">'
        '<a href="#body-id-000001">x</a><div id=body-id-000001></div>'
        "<span>20000101T000000.000000Z</span><div id=c-id-000002></div>"
    )
    assert stabilise_docs(tmp_path, "20000101T000000.000000Z") == 0


def test_prune_keeps_only_linked_static_files(tmp_path: Path) -> None:
    (tmp_path / "static" / "images").mkdir(parents=True)
    (tmp_path / "static" / "fonts").mkdir()
    (tmp_path / "static" / "images" / "logo-long.png").write_bytes(b"png")
    (tmp_path / "static" / "images" / "glossary_scroller.gif").write_bytes(b"gif")
    (tmp_path / "static" / "fonts" / "HKGrotesk-Bold.otf").write_bytes(b"otf")
    (tmp_path / "index.html").write_text('<img src="static/images/logo-long.png">')
    removed = prune_unreferenced_static(tmp_path)
    assert removed == ["static/fonts/HKGrotesk-Bold.otf", "static/images/glossary_scroller.gif"]
    assert sorted(p.name for p in (tmp_path / "static").rglob("*")) == ["images", "logo-long.png"]
