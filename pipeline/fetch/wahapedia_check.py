"""Is this body the Wahapedia table it claims to be? Checked while it streams, before it replaces a good copy.

A table must be: non-empty, strict UTF-8 throughout, not an HTML page, a header row
holding every column the parser requires for that file, at least one data row, and
a last line ending with the export's `|` (a body cut inside a row is refused).
"""

from __future__ import annotations

import codecs

from pipeline.fetch.http import ContentRefused
from pipeline.sources.wahapedia.tables import REQUIRED_COLUMNS

BOM = "\ufeff"
DELIMITER = "|"
MAX_HEADER_CHARS = 1 << 16
BLANK = " \t\r\n"


def required_columns(file_name: str) -> tuple[str, ...]:
    """The columns the parser needs in `file_name` (the one place the fetch learns them)."""
    return REQUIRED_COLUMNS.get(file_name, ())


class WahapediaTableCheck:
    """A streaming `BodyCheck` for one export file."""

    def __init__(self, file_name: str) -> None:
        self.file_name = file_name
        self._decoder = codecs.getincrementaldecoder("utf-8")("strict")
        self._offset = 0
        self._header: str | None = None
        self._pending = ""  # text before the header's end of line
        self._rows_seen = False
        self._last = ""  # last non-blank character so far

    def feed(self, chunk: bytes) -> None:
        self._consume(self._decode(chunk))
        self._offset += len(chunk)

    def finish(self) -> None:
        self._consume(self._decode(b"", final=True))
        if self._header is None and not self._pending.strip(BLANK + BOM):
            raise ContentRefused("empty body")
        if self._header is None:
            self._take_header(self._pending)
        if not self._rows_seen:
            raise ContentRefused(f"{self.file_name}: a header row but no data rows")
        if self._last != DELIMITER:
            raise ContentRefused(f"{self.file_name}: the last row does not end with '|' (cut short)")

    def _decode(self, chunk: bytes, final: bool = False) -> str:
        try:
            return self._decoder.decode(chunk, final)
        except UnicodeDecodeError as error:
            raise ContentRefused(f"not UTF-8 (byte {self._offset + error.start})") from error

    def _consume(self, text: str) -> None:
        if self._header is None:
            text = self._find_header(text)
        stripped = text.rstrip(BLANK)
        if stripped:
            self._rows_seen = True
            self._last = stripped[-1]

    def _find_header(self, text: str) -> str:
        """Buffer text until the first non-blank line is complete; return what follows it."""
        self._pending += text
        while True:
            head, newline, rest = self._pending.partition("\n")
            if not newline:
                self._refuse_markup(self._pending)
                if len(self._pending) > MAX_HEADER_CHARS:
                    raise ContentRefused(f"no header row in the first {MAX_HEADER_CHARS} characters")
                return ""
            self._pending = rest
            if head.strip(BLANK + BOM):
                self._pending = ""
                self._take_header(head)
                return rest

    def _refuse_markup(self, head: str) -> None:
        if head.lstrip(BLANK + BOM).startswith("<"):
            raise ContentRefused("an HTML/XML page, not a Wahapedia table")

    def _take_header(self, line: str) -> None:
        self._refuse_markup(line)
        self._header = line
        columns = {c.strip() for c in line.lstrip(BOM).rstrip("\r").split(DELIMITER)}
        missing = [c for c in required_columns(self.file_name) if c not in columns]
        if missing:
            raise ContentRefused(f"{self.file_name}: header row lacks {', '.join(missing)}")
        self._last = line.rstrip(BLANK)[-1:] or self._last
