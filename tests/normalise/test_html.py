"""HTML -> plain text and sanitised minimal HTML: real Wahapedia markup and hostile input."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.normalise.html import ALLOWED_TAGS, html_to_text, sanitise_html

HOSTILE = [
    '<script>alert("x")</script>Ready',
    "<SCRIPT SRC=//evil.example/x.js></SCRIPT>Ready",
    '<img src=x onerror="alert(1)">Ready',
    '<a href="javascript:alert(1)">Ready</a>',
    '<a href="JaVaScRiPt:alert(1)" onclick="steal()">Ready</a>',
    '<svg onload="alert(1)"><circle/></svg>Ready',
    '<iframe src="javascript:alert(1)"></iframe>Ready',
    '<b onmouseover="alert(1)">Ready</b>',
    '<style>body{background:url("javascript:alert(1)")}</style>Ready',
    "<scr<script>ipt>alert(1)</script>Ready",
    "<<script>alert(1);//<</script>Ready",
    '<div style="x:expression(alert(1))">Ready</div>',
    "<object data=x.swf></object><embed src=x.swf>Ready",
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math>Ready',
    "<!--<script>alert(1)</script>-->Ready",
    "<p>Ready<script>alert(1)",  # unclosed
    '<a href="data:text/html;base64,PHNjcmlwdD4=">Ready</a>',
    "<html><body onload=alert(1)>Ready</body></html>",
]


@pytest.mark.parametrize("markup", HOSTILE)
def test_nothing_executable_survives_sanitising(markup: str) -> None:
    cleaned = sanitise_html(markup)
    assert "Ready" in cleaned
    tags = set(re.findall(r"</?\s*([a-zA-Z0-9]+)", cleaned))
    assert tags <= ALLOWED_TAGS
    assert not re.search(r"<[^>]*\s[a-z-]+\s*=", cleaned, re.IGNORECASE)  # no attribute at all
    assert "<script" not in cleaned.lower() and "javascript:" not in cleaned.lower()


@pytest.mark.parametrize("markup", HOSTILE)
def test_plain_text_keeps_words_and_drops_code(markup: str) -> None:
    expected = {
        "<scr<script>ipt>alert(1)</script>Ready": "ipt>alert(1)Ready",  # inert leftovers, as text
        "<<script>alert(1);//<</script>Ready": "<Ready",
    }.get(markup, "Ready")
    assert html_to_text(markup) == expected


def test_inert_leftovers_are_escaped_in_the_html_copy() -> None:
    assert sanitise_html("<scr<script>ipt>alert(1)</script>Ready") == "ipt&gt;alert(1)Ready"
    assert sanitise_html('<b onmouseover="alert(1)">Ready</b>') == "<b>Ready</b>"


def test_escaped_markup_stays_text() -> None:
    assert sanitise_html("&lt;script&gt;alert(1)&lt;/script&gt;") == "&lt;script&gt;alert(1)&lt;/script&gt;"
    assert html_to_text("5 &lt; 6 &amp; 7") == "5 < 6 & 7"


@pytest.mark.parametrize(
    ("markup", "text"),
    [
        ("<b>unclosed <i>tags <span class='kwb'>kw", "unclosed tags KW"),
        ("a</div>b<div>c", "ab\nc"),
        ("x < y > z", "x < y > z"),
        ("<", "<"),
        ("a\x00b\x07c", "abc"),
        ("", ""),
        ("   ", ""),
        ("<html><body><p>x</p></body></html><p>y</p>", "x\ny"),
    ],
)
def test_malformed_markup_never_raises(markup: str, text: str) -> None:
    assert html_to_text(markup) == text
    sanitise_html(markup)


@pytest.mark.parametrize(
    ("markup", "text"),
    [
        # Stratagems.csv line 2 (EXPLOSIVE CLEARANCE): bold labels, links, <br><br>
        (
            '<b>WHEN:</b> Your <a href="/wh40k10ed/the-rules/core-rules#SHOOTING-PHASE">Shooting phase</a>.'
            "<br><br><b>TARGET:</b> One unit from your army.",
            "WHEN: Your Shooting phase.\nTARGET: One unit from your army.",
        ),
        # Enhancements.csv line 2: keyword spans inside a tooltip wrapper
        (
            '<span class="tooltip00274" data-tooltip-content="#tooltip_content00274" '
            'data-tooltip-anchor="#tooltip_content00274"><span class="kwb kwbu">ANATHEMA</span> '
            '<span class="kwb kwbu">PSYKANA</span></span> model only.',
            "ANATHEMA PSYKANA model only.",
        ),
        # lower-case keyword words (`kwb2`) and struck-out keywords (`kwbs`) are printed in capitals
        (
            'One <span class="kwb">AGENTS</span> <span class="kwb2">of</span> '
            '<span class="kwb">the</span> unit; '
            '<span class="tooltip" title="x"><s class="kwbs">Captain Tycho</s></span>',
            "One AGENTS OF THE unit; CAPTAIN TYCHO",
        ),
        # tooltip rule names (`tt kwbu`) are not keywords: their case is kept
        (
            'the <span class="tooltip1"><span class="tt kwbu">Waaagh!</span></span> is active',
            "the Waaagh! is active",
        ),
        # Datasheets_models_cost.csv: <ky> keyword tag
        (
            "1 model (<ky>Agents of the Imperium</ky> Detachment)",
            "1 model (AGENTS OF THE IMPERIUM Detachment)",
        ),
        # Datasheets_options.csv style list
        (
            "This model can be equipped with one of the following:<ul><li>1 plasma pistol</li>"
            "<li>1 <b>power</b> fist</li></ul>",
            "This model can be equipped with one of the following:\n• 1 plasma pistol\n• 1 power fist",
        ),
        # tables (Abilities.csv) become one line per row
        ("<table><tr><td>1-2</td><td>Nothing</td></tr><tr><td>3+</td><td>Boom</td></tr></table>",
         "1-2 | Nothing\n3+ | Boom"),
        ("Cost&nbsp;10&emsp;points", "Cost 10 points"),
    ],
)  # fmt: skip
def test_html_to_text(markup: str, text: str) -> None:
    assert html_to_text(markup) == text


def test_sanitised_copy_keeps_structure() -> None:
    markup = (
        '<p class="ShowFluff">Select:</p><ul class="redSquare"><li><b>One</b> <a href="/x">link</a></li>'
        '<li><span class="kwb">infantry</span></li></ul><div>After</div><br><br><br>End'
    )
    assert sanitise_html(markup) == "<p>Select:</p><ul><li><b>One</b> link</li><li>INFANTRY</li></ul>After<br><br>End"


def test_real_export_cells_clean_without_leftover_markup(wahapedia_dir: Path) -> None:
    """Every description cell of three HTML-heavy tables: no tag survives in the text."""
    for name, column in (("Stratagems.csv", 9), ("Detachment_abilities.csv", 4), ("Abilities.csv", 4)):
        lines = (wahapedia_dir / name).read_text(encoding="utf-8-sig").split("\n")[1:]
        for line in filter(None, lines):
            cell = line.split("|")[column]
            text, cleaned = html_to_text(cell), sanitise_html(cell)
            assert not re.search(r"<\s*/?\s*[a-zA-Z][^>]*>", text), (name, text[:80])
            assert set(re.findall(r"</?([a-z0-9]+)", cleaned)) <= ALLOWED_TAGS


_FRAGMENTS = st.sampled_from(
    ["<", ">", "</", "<b>", "</b>", "<script>", "</script>", "<a href='javascript:x'>", "<li>", "<ul>",
     "<span class='kwb'>", "&", "&amp;", "&#0;", "\x00", "<!--", "-->", "<html>", "</html>", "<br/>", "\"",
     "'", "onerror=", "<img src=x onerror=alert(1)>", "<embed>", "<![CDATA[", "]]>", "<?xml ?>",
     "<table><tr><td>"]
)  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(_FRAGMENTS, st.text(max_size=8)), max_size=30).map("".join))
def test_any_input_is_cleaned_without_raising(markup: str) -> None:
    text, cleaned = html_to_text(markup), sanitise_html(markup)
    assert isinstance(text, str)
    assert set(re.findall(r"<\s*/?\s*([a-zA-Z0-9]+)", cleaned)) <= ALLOWED_TAGS
    assert not re.search(r"<[a-z]+\s", cleaned)  # allowed tags never carry attributes
