"""One role vocabulary; model counts from unit composition text."""

from __future__ import annotations

import pytest

from pipeline.reconcile.composition import Counted, counts_for, parse_lines
from pipeline.reconcile.roles import role_of


@pytest.mark.parametrize(
    ("label", "keywords", "role"),
    [
        ("Epic Hero", (), "Character"),
        ("Characters", (), "Character"),
        (None, ("INFANTRY", "CHARACTER", "EPIC HERO"), "Character"),
        ("Vehicle", ("VEHICLE", "DEDICATED TRANSPORT"), "Dedicated Transport"),
        ("Fortifications", (), "Fortification"),
        ("Battleline", (), "Battleline"),
        ("Infantry", ("INFANTRY",), "Other"),
        (None, (), "Other"),
    ],
)
def test_role_vocabulary(label: str | None, keywords: tuple[str, ...], role: str) -> None:
    assert role_of(label, keywords) == role


def test_composition_lines() -> None:
    lines = parse_lines(["1 Assault Terminator Sergeant", "4\u20119 Assault Terminators", "Every model has X."])
    assert lines == [Counted(1, 1, ("assault", "terminator", "sergeant")), Counted(4, 9, ("assault", "terminator"))]
    assert counts_for(("assault", "terminator"), lines) == (4, 9)
    assert counts_for(("terminator",), lines) == (4, 9)
    assert counts_for(("librarian",), lines) is None
    assert parse_lines(["1 Captain", "OR", "1 Captain in Terminator Armour"]) == []
