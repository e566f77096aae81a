"""The in-memory dataset passed between stages: validated records per table."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Iterator

from schemas.records import Record


class Dataset:
    """Records grouped by their table, in the order they arrived.

    Stages read and extend it; the store turns each table into a DuckDB table.
    """

    def __init__(self, records: Iterable[Record] = ()) -> None:
        self._tables: dict[str, list[Record]] = defaultdict(list)
        self.extend(records)

    def add(self, record: Record) -> None:
        self._tables[record.TABLE].append(record)

    def extend(self, records: Iterable[Record]) -> None:
        for record in records:
            self.add(record)

    def table(self, name: str) -> list[Record]:
        """Records of one table (empty list if none)."""
        return self._tables.get(name, [])

    def replace(self, name: str, records: Iterable[Record]) -> None:
        """Swap a table's records (stages that rewrite rows, e.g. reconcile)."""
        self._tables[name] = list(records)

    def tables(self) -> Iterator[tuple[str, list[Record]]]:
        for name in sorted(self._tables):
            yield name, self._tables[name]

    def counts(self) -> dict[str, int]:
        return {name: len(rows) for name, rows in self.tables()}
