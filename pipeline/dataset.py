"""The in-memory dataset passed between stages: validated records per table.

A stage never changes the dataset it is given: it returns a new one (`replacing`,
`adding`) that shares every table it did not touch. Tables are tuples, records are
frozen Pydantic models, so "shares" is safe.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Generic, TypeVar, cast

from schemas.records import Record

R = TypeVar("R", bound=Record)
Report = TypeVar("Report")


class Dataset:
    """Records grouped by their table, in the order they arrived; one model class per table."""

    __slots__ = ("_tables",)

    def __init__(self, records: Iterable[Record] = ()) -> None:
        self._tables: dict[str, tuple[Record, ...]] = {}
        self._append(records)

    def _append(self, records: Iterable[Record]) -> None:
        """Append records to a dataset under construction (tables rebuilt as new tuples)."""
        grouped: dict[str, list[Record]] = {}
        for record in records:
            grouped.setdefault(record.TABLE, []).append(record)
        for name, rows in grouped.items():
            self._tables[name] = _checked(name, (*self._tables.get(name, ()), *rows))

    def records(self, model: type[R]) -> tuple[R, ...]:
        """The records of `model`'s table (empty if none), typed."""
        rows = self._tables.get(model.TABLE, ())
        if rows and not isinstance(rows[0], model):
            raise TypeError(f"table {model.TABLE} holds {type(rows[0]).__name__}, not {model.__name__}")
        return cast(tuple[R, ...], rows)

    def table(self, name: str) -> tuple[Record, ...]:
        """Records of one table by name (empty if none), for code that handles every table alike."""
        return self._tables.get(name, ())

    def replacing(self, tables: Mapping[type[Record], Iterable[Record]]) -> Dataset:
        """A new dataset with these models' tables swapped for the given records; the rest shared."""
        new = Dataset()
        new._tables = dict(self._tables)
        for model, records in tables.items():
            rows = tuple(records)
            wrong = next((r for r in rows if not isinstance(r, model)), None)
            if wrong is not None:
                raise TypeError(f"{type(wrong).__name__} given for table {model.TABLE} ({model.__name__})")
            new._tables[model.TABLE] = _checked(model.TABLE, rows)
        return new

    def adding(self, records: Iterable[Record]) -> Dataset:
        """A new dataset with `records` appended to their tables; the rest shared."""
        new = Dataset()
        new._tables = dict(self._tables)
        new._append(records)
        return new

    def tables(self) -> Iterator[tuple[str, tuple[Record, ...]]]:
        for name in sorted(self._tables):
            yield name, self._tables[name]

    def counts(self) -> dict[str, int]:
        return {name: len(rows) for name, rows in self.tables()}


def _checked(name: str, rows: tuple[Record, ...]) -> tuple[Record, ...]:
    """`rows` if they are all of one model class (what makes `records()` type-safe)."""
    if rows:
        model = type(rows[0])
        odd = next((r for r in rows if type(r) is not model), None)
        if odd is not None:
            raise TypeError(f"table {name} mixes {model.__name__} and {type(odd).__name__}")
    return rows


@dataclass(frozen=True)
class Staged(Generic[Report]):
    """What a dataset stage returns: the next dataset and the stage's report."""

    dataset: Dataset
    report: Report
