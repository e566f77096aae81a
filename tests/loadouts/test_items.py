"""Items of a statement -> weapons of the datasheet (built weapon lists)."""

from __future__ import annotations

import pytest

from pipeline.loadouts.items import ProfileRef, WeaponIndex, weapon_base
from pipeline.loadouts.rows import CarriedWeapon


def refs(*names: str, sheet: str = "s") -> list[ProfileRef]:
    return [ProfileRef(f"{sheet}:{n}", n, sheet) for n in names]


INDEX = WeaponIndex(
    refs("Rokkit pistol", "Plasma pistol – standard", "Plasma pistol - supercharge", "Lascannon", "Mauler goad",
         "Ripper claw", "Coward’s Bane", "Juggernaut’s bladed horn", "Heavy bolter"),
    wargear=["Regimental Banner", "Storm shield"],
)  # fmt: skip


@pytest.mark.parametrize(
    ("item", "expected"),
    [
        ("2 rokkit pistols", [("s:Rokkit pistol", 2, "Rokkit pistol")]),
        ("two rokkit pistols", [("s:Rokkit pistol", 2, "Rokkit pistol")]),
        ("plasma pistol", [("s:Plasma pistol – standard", 1, "Plasma pistol"),
                           ("s:Plasma pistol - supercharge", 1, "Plasma pistol")]),
        ("mauler goad and ripper claw", [("s:Mauler goad", 1, "Mauler goad"), ("s:Ripper claw", 1, "Ripper claw")]),
        ("Coward’s Bane, bladed horn", [("s:Coward’s Bane", 1, "Coward's Bane"),
                                        ("s:Juggernaut’s bladed horn", 1, "Juggernaut's bladed horn")]),
        ("a lascannon", [("s:Lascannon", 1, "Lascannon")]),
    ],
)  # fmt: skip
def test_items_name_weapons(item: str, expected: list[tuple[str, int, str]]) -> None:
    assert INDEX.resolve(item).weapons == tuple(CarriedWeapon(w, n, g, "s") for w, n, g in expected)


@pytest.mark.parametrize("item", ["regimental banner", "storm shields"])
def test_wargear_is_no_weapon_and_no_problem(item: str) -> None:
    resolved = INDEX.resolve(item)
    assert resolved.wargear and not resolved.weapons and not resolved.unknown


@pytest.mark.parametrize("item", ["twin heavy bolter", "flip belt", "bolt pistol"])
def test_unknown_items(item: str) -> None:
    assert INDEX.resolve(item).unknown


def test_home_weapons_fill_in_what_a_copy_lacks() -> None:
    index = WeaponIndex(refs("Bolt pistol", sheet="copy"), fallback=refs("Bolt pistol", "Laspistol", sheet="home"))
    assert index.resolve("bolt pistol").weapons[0].datasheet_id == "copy"
    assert index.resolve("laspistol").weapons[0].datasheet_id == "home"


@pytest.mark.parametrize(
    ("name", "base"),
    [("Plasma pistol – supercharge", "Plasma pistol"), ("➤ Plasma gun - standard", "Plasma gun"),
     ("Kill-shard", "Kill-shard")],
)  # fmt: skip
def test_weapon_base(name: str, base: str) -> None:
    assert weapon_base(name) == base
