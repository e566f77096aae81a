"""What keeps the explorer's pages safe with any data: a Content-Security-Policy that allows no
network source and only our own inline style and script (by hash), JSON embedded so that no value
can end the `<script>` element it sits in, and page paths built from validated ids only."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from importlib import resources
from typing import Any

from markupsafe import Markup

#: Characters that could end or confuse a `<script>` element or a JavaScript parser, as JSON escapes.
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}
_JSON_ESCAPE_RE = re.compile("[<>&\u2028\u2029]")
#: A unit id whose two parts are safe as a folder and a file name.
_UNIT_ID = re.compile(r"^unit:([a-z0-9-]+):([a-z0-9-]+)$")


def asset(name: str) -> str:
    """A file of `templates/` (the style sheet, the search script) as text."""
    return resources.files(__package__).joinpath("templates", name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode() + "'"


STYLE = asset("style.css")
SCRIPT = asset("search.js")


def content_security_policy() -> str:
    """No source at all but our inline style and script, named by hash: no fetch, image, font,
    frame, form target or base URL, from any host or from the page's own folder."""
    return (
        "default-src 'none'; "
        f"style-src {_sha256(STYLE)}; script-src {_sha256(SCRIPT)}; "
        "img-src 'none'; connect-src 'none'; font-src 'none'; object-src 'none'; frame-src 'none'; "
        "base-uri 'none'; form-action 'none'"
    )


def embedded_json(value: Any) -> Markup:
    """JSON for a `<script type="application/json">` element: `<`, `>`, `&`, U+2028 and U+2029 as
    `\\uXXXX` escapes (only strings can hold them, and the escapes decode to the same strings)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return Markup(_JSON_ESCAPE_RE.sub(lambda m: _JSON_ESCAPES[m.group(0)], text))


def unit_path(unit_id: str) -> str:
    """`units/<faction>/<name>.html` of a unit id; anything but a well-formed id is refused."""
    match = _UNIT_ID.match(unit_id)
    if match is None:
        raise ValueError(f"not a unit id: {unit_id!r}")
    return f"units/{match.group(1)}/{match.group(2)}.html"
