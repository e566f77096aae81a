"""The explorer's safety helpers on hostile values: embedded JSON, page paths, SVG labels, the CSP."""

from __future__ import annotations

import json

import pytest

from pipeline.publish.site.build import environment
from pipeline.publish.site.heatmap import Grid, band, heatmap_svg, number
from pipeline.publish.site.safe import SCRIPT, STYLE, content_security_policy, embedded_json, unit_path

HOSTILE = "</script><script>alert(1)</script>\u2028&amp;<img src=x onerror=alert(2)>"


def test_embedded_json_cannot_end_its_script_element() -> None:
    text = str(embedded_json([{"n": HOSTILE}]))
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == [{"n": HOSTILE}]


@pytest.mark.parametrize(
    ("unit_id", "path"),
    [("unit:world-eaters:lord-invocatus", "units/world-eaters/lord-invocatus.html")],
)
def test_unit_path_of_a_unit_id(unit_id: str, path: str) -> None:
    assert unit_path(unit_id) == path


@pytest.mark.parametrize("unit_id", ["unit:../../etc:passwd", "unit:a:b/c", "unit:A:b", "wh:000000001", "unit:a:b:c"])
def test_unit_path_refuses_anything_else(unit_id: str) -> None:
    with pytest.raises(ValueError, match="not a unit id"):
        unit_path(unit_id)


def test_heatmap_escapes_labels_and_draws_one_cell_per_value() -> None:
    svg = str(heatmap_svg(Grid(HOSTILE, [HOSTILE], ["GEQ", "MEQ"], [[0.0, None]])))
    assert "<script>" not in svg and "<img" not in svg and "&lt;script&gt;" in svg
    assert svg.count("<rect ") == 2 and 'class="h0"' in svg and 'class="hn"' in svg


@pytest.mark.parametrize(
    ("value", "css", "text"), [(0.0, "h0", "0.00"), (0.3, "h2", "0.30"), (12.34, "h7", "12.3"), (150.0, "h8", "150")]
)
def test_bands_and_numbers(value: float, css: str, text: str) -> None:
    assert band(value) == css and number(value) == text


def test_pages_are_autoescaped() -> None:
    html = environment().from_string("<h1>{{ name }}</h1>").render(name=HOSTILE)
    assert "<script>" not in html and "<img" not in html


def test_csp_allows_only_our_inline_style_and_script() -> None:
    csp = content_security_policy()
    assert "default-src 'none'" in csp and "unsafe-inline" not in csp and "http" not in csp
    assert csp.count("'sha256-") == 2 and STYLE and SCRIPT
