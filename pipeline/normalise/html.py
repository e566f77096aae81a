"""HTML fields -> plain text, and a copy restricted to an attribute-free allow-list (lxml; docs/sources.md)."""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from html import escape
from typing import NamedTuple

import lxml.etree
import lxml.html

from pipeline.normalise.text import collapse_ws

#: Tags kept by `sanitise_html` (the contract's allow-list).
ALLOWED_TAGS = frozenset({"p", "br", "ul", "ol", "li", "b", "i", "strong", "em"})

#: Tags dropped with everything inside them: executable, embedded or form content.
DROPPED_TAGS = frozenset(
    {
        "script", "style", "iframe", "frame", "frameset", "object", "applet", "template", "noscript",
        "svg", "math", "head", "title", "form", "button", "textarea", "select", "option", "audio",
        "video", "canvas", "picture",
    }
)  # fmt: skip

#: HTML void elements: never have content, so what libxml2 nests inside some of them
#: (`<embed>Ready` -> `<embed>Ready</embed>`) is the text that follows; it is kept.
VOID_TAGS = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param", "source",
     "track", "wbr"}
)  # fmt: skip

#: Tags that end a line of text (their content starts and ends on its own line).
BLOCK_TAGS = frozenset(
    {
        "p", "div", "ul", "ol", "li", "table", "tbody", "thead", "tfoot", "tr", "h1", "h2", "h3",
        "h4", "h5", "h6", "blockquote", "section", "article", "header", "footer", "dl", "dt", "dd",
        "pre",
    }
)  # fmt: skip

#: Class names Wahapedia uses for keyword spans (printed in capitals on the cards).
KEYWORD_CLASSES = frozenset({"kwb", "kwb2", "kwbo", "kwbs"})
KEYWORD_TAGS = frozenset({"ky"})

BULLET = "•"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_TAG = re.compile(r"<[^>]*>?")
#: Document-level tags: libxml2 drops whatever follows `</html>`, so they are removed first.
_DOCUMENT_TAGS = re.compile(r"<\s*/?\s*(?:html|body|head)\b[^>]*>|<!doctype[^>]*>", re.IGNORECASE)
_LINE = "\n"


def looks_like_html(text: str) -> bool:
    """True when a value holds markup or entities (plain values skip the parser)."""
    return "<" in text or "&" in text


def _parse(fragment: str) -> lxml.html.HtmlElement | None:
    """A fragment as one `<div>` tree; None when lxml cannot make sense of it."""
    cleaned = _DOCUMENT_TAGS.sub("", _CONTROL.sub("", fragment))
    if not cleaned.strip():
        return None
    try:
        root: lxml.html.HtmlElement = lxml.html.fragment_fromstring(cleaned, create_parent="div")
    except (lxml.etree.LxmlError, ValueError):
        return None
    return root


def _tag(element: lxml.html.HtmlElement) -> str | None:
    """Lower-case tag name, or None for comments and processing instructions."""
    return element.tag.lower() if isinstance(element.tag, str) else None


def _is_keyword(element: lxml.html.HtmlElement, tag: str) -> bool:
    classes = set((element.get("class") or "").split())
    return tag in KEYWORD_TAGS or bool(classes & KEYWORD_CLASSES)


def _cased(text: str, upper: bool) -> str:
    return text.upper() if upper else text


def _escaped(text: str, upper: bool) -> str:
    return escape(re.sub(r"\s+", " ", _cased(text, upper)), quote=True)


# -- the tree walk --------------------------------------------------------------------------------


class _Rendering(NamedTuple):
    """What the walk writes: text (and whether in capitals), void elements, and around other elements."""

    text: Callable[[str, bool], str]
    void: dict[str, str]
    start: dict[str, str]
    end: dict[str, str]


#: Block elements on lines of their own, list items as bullets, `br`/`hr` as line breaks.
_PLAIN_TEXT = _Rendering(
    text=_cased,
    void={"br": _LINE, "hr": _LINE},
    start={**{tag: _LINE for tag in BLOCK_TAGS}, "li": f"{_LINE}{BULLET} "},
    end={tag: _LINE for tag in BLOCK_TAGS},
)
#: Allowed tags kept bare (no attributes), text escaped, other block elements end with `<br>`.
_MINIMAL_HTML = _Rendering(
    text=_escaped,
    void={"br": "<br>", "hr": "<br>"},
    start={tag: f"<{tag}>" for tag in ALLOWED_TAGS},
    end={**{tag: "<br>" for tag in BLOCK_TAGS}, **{tag: f"</{tag}>" for tag in ALLOWED_TAGS}},
)


def _children(element: lxml.html.HtmlElement, out: list[str], upper: bool, render: _Rendering) -> None:
    if element.text:
        out.append(render.text(element.text, upper))
    for child in element:
        _element(child, out, upper, render)
        if child.tail:
            out.append(render.text(child.tail, upper))


def _element(element: lxml.html.HtmlElement, out: list[str], upper: bool, render: _Rendering) -> None:
    """One element and its content; keyword spans upper-case what they hold, table cells are `|`-separated."""
    tag = _tag(element)
    if tag is None or tag in DROPPED_TAGS:
        return
    if tag in VOID_TAGS:
        out.append(render.void.get(tag, ""))
        _children(element, out, upper, render)
        return
    if tag in ("td", "th") and element.getprevious() is not None:
        out.append(" | ")
    out.append(render.start.get(tag, ""))
    _children(element, out, upper or _is_keyword(element, tag), render)
    out.append(render.end.get(tag, ""))


def _walk(root: lxml.html.HtmlElement, render: _Rendering) -> str:
    """The rendering of everything inside `root` (RecursionError on absurdly deep trees)."""
    out: list[str] = []
    _children(root, out, False, render)
    return "".join(out)


# -- plain text ---------------------------------------------------------------------------------


def _tidy_lines(text: str) -> str:
    """Collapse spaces per line and drop empty lines (paragraphs become single breaks)."""
    lines = (collapse_ws(line) for line in text.split(_LINE))
    return _LINE.join(line for line in lines if line and line != BULLET)


@lru_cache(maxsize=32768)
def html_to_text(fragment: str | None) -> str:
    """Plain text of an HTML fragment: keywords upper-cased, links as words, breaks and bullets kept.

    Never raises: a fragment lxml cannot parse loses its tags by a regex instead.
    """
    if not fragment:
        return ""
    if not looks_like_html(fragment):
        return _tidy_lines(_CONTROL.sub("", fragment))
    root = _parse(fragment)
    if root is None:
        return _tidy_lines(_TAG.sub(" ", _CONTROL.sub("", fragment)))
    try:
        text = _walk(root, _PLAIN_TEXT)
    except RecursionError:
        return _tidy_lines(_TAG.sub(" ", root.text_content()))
    return _tidy_lines(text)


def html_to_text_or_none(fragment: str | None) -> str | None:
    """`html_to_text`, with an empty result as None (for optional columns)."""
    return html_to_text(fragment) or None


# -- sanitised minimal HTML ---------------------------------------------------------------------


_EMPTY_ELEMENT = re.compile(r"<(p|b|i|strong|em|li|ul|ol)>(?:\s|<br>)*</\1>")


def _tidy_html(markup: str) -> str:
    previous = None
    while previous != markup:
        previous, markup = markup, _EMPTY_ELEMENT.sub("", markup)
    markup = re.sub(r"\s*<br>\s*", "<br>", markup)
    markup = re.sub(r"(<br>){3,}", "<br><br>", markup)
    markup = re.sub(r"^(<br>)+|(<br>)+$", "", markup.strip())
    return markup.strip()


@lru_cache(maxsize=8192)
def sanitise_html(fragment: str | None) -> str:
    """Minimal HTML: only `p br ul ol li b i strong em`, no attributes, text escaped.

    Other tags are unwrapped (their text kept; block tags end with `<br>`), dropped
    tags (script, style, iframe, ...) vanish with their content, comments vanish.
    """
    if not fragment:
        return ""
    root = _parse(fragment)
    if root is None:
        return escape(collapse_ws(_TAG.sub(" ", _CONTROL.sub("", fragment))), quote=True)
    try:
        markup = _walk(root, _MINIMAL_HTML)
    except RecursionError:
        return escape(collapse_ws(root.text_content()), quote=True)
    return _tidy_html(markup)


def has_structure(fragment: str | None) -> bool:
    """True when the markup carries structure plain text flattens (lists, breaks, tables)."""
    return bool(fragment) and re.search(r"<(ul|ol|li|br|table|p)\b", fragment or "", re.I) is not None


def structured_html_or_none(html: str | None) -> str | None:
    """The sanitised HTML copy published beside plain text, only where structure (lists, breaks) matters."""
    return sanitise_html(html) if has_structure(html) else None
