"""`ValueDigest` (`pipeline/cache/fingerprint.py`): the one digest of Python values cache keys use. Canonical
(the same in another process, whatever its hash seed), and every field of the engine's inputs is read."""

from __future__ import annotations

import dataclasses
import enum
import json
import subprocess
import sys
from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from pipeline import config
from pipeline.cache.fingerprint import ValueDigest, value_digest
from pipeline.matchups.sides import UnitOption
from pipeline.units.model import AttackEntry, AttackSide, ModelGroup, Phase, TargetUnit, Weapon
from schemas.dice import Dice, parse_dice
from tests.units.builders import group, side, weapon

FIGHT = Phase.FIGHT
SCRIPT = """
import json, sys
from pipeline.cache.fingerprint import value_digest
from pipeline.units.model import Phase
value = ({"b", "a", "c"}, frozenset({"INFANTRY", "VEHICLE", "MONSTER"}), {"z": 1, "y": {2.5, 1.5}}, Phase.FIGHT)
print(json.dumps(value_digest(*value)))
"""


def test_the_same_in_processes_with_other_hash_seeds() -> None:
    here = value_digest(
        {"b", "a", "c"}, frozenset({"INFANTRY", "VEHICLE", "MONSTER"}), {"z": 1, "y": {2.5, 1.5}}, FIGHT
    )
    seen = set()
    for seed in ("1", "2", "3"):
        proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, check=True,
                              cwd=config.REPO_ROOT, env={"PYTHONHASHSEED": seed, "PATH": ""})  # fmt: skip
        seen.add(json.loads(proc.stdout))
    assert seen == {here}


@pytest.mark.parametrize(
    ("one", "other"),
    [
        (1, 1.0), (1, True), (0, None), (1.0, 1.0 + 2**-52), (0.0, -0.0), ("1", 1), ("a", b"a"), ((1, 2), [1, 2]),
        ((1, 2), (2, 1)), (("ab", "c"), ("a", "bc")), ({"a": 1}, {"a": 2}), ({"a": 1}, {"b": 1}), ({1}, {2}),
        (Phase.FIGHT, "fight"), (np.array([1, 2], dtype=np.int64), np.array([1, 2], dtype=np.int32)),
        (np.zeros((2, 3)), np.zeros((3, 2))), (np.array([1.0]), np.array([1.0 + 2**-52])),
    ],
)  # fmt: skip
def test_different_values_have_different_digests(one: object, other: object) -> None:
    assert value_digest(one) != value_digest(other)


def test_equal_values_have_equal_digests() -> None:
    assert value_digest({"a": 1, "b": 2}) == value_digest({"b": 2, "a": 1})
    assert value_digest({3, 1, 2}) == value_digest(frozenset({2, 3, 1}))
    assert value_digest(np.arange(6).reshape(2, 3)) == value_digest(np.asfortranarray(np.arange(6).reshape(2, 3)))
    assert value_digest(np.float64(0.25)) != value_digest(np.float32(0.25))  # dtype read
    assert value_digest(weapon("w", attacks="D6")) == value_digest(weapon("w", attacks="D6"))  # not identity


def test_what_it_cannot_read_is_an_error() -> None:
    with pytest.raises(TypeError, match="cannot digest a object"):
        value_digest(object())
    with pytest.raises(TypeError, match="Python objects"):
        value_digest(np.array([object()]))


class _Colour(enum.Enum):
    RED = 1
    BLUE = 2


def _other(value: Any) -> Any:
    """A different value of the same kind (a field's value changed)."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, enum.Enum):
        return next(m for m in type(value) if m != value)
    if isinstance(value, int):
        return value + 1
    if isinstance(value, float):
        return value + 0.5
    if isinstance(value, str):
        return value + "x"
    if isinstance(value, Dice):
        return parse_dice(value.text + "+1" if value.plus == 0 else value.text[:-1] + str(value.plus + 1))
    if value is None:
        return parse_dice("D3")
    if isinstance(value, frozenset):
        return value | {"OTHER"}
    if isinstance(value, tuple):
        return (*value, value[0]) if value else ("x",)
    if isinstance(value, Mapping):
        return {k: v for k, v in list(value.items())[1:]} if value else {"x": 1}
    if dataclasses.is_dataclass(value):
        first = next(f.name for f in dataclasses.fields(value) if f.init)
        return dataclasses.replace(value, **{first: _other(getattr(value, first))})  # type: ignore[type-var]
    raise AssertionError(type(value))


GUN = weapon("bolter", attacks="2", skill=3, strength="4", ap=-1, damage="1", anti=(("INFANTRY", 4),))
CHOICE = AttackEntry(5, (GUN, weapon("plasma", attacks="1", skill=3, strength="7", ap=-2, damage="2")))
TROOPS = group(5, wounds=2, save=3, toughness=4, keywords=frozenset({"INFANTRY"}), points=18.0)
TARGET = TargetUnit((TROOPS,), (group(1, wounds=5, save=3, toughness=4, character=True),), name="unit:x:squad")
SIDE = AttackSide((CHOICE, AttackEntry(1, (GUN,))), Phase.SHOOTING, points=90.0, name="unit:x:squad", notes=("n",))
OPTION = UnitOption("unit:x:squad", "Squad", "Faction", 5, 90.0, TARGET, {Phase.SHOOTING: SIDE, Phase.FIGHT: side(
    (5, weapon("knife", ranged=False)), phase=Phase.FIGHT)})  # fmt: skip
VALUES = [OPTION, TARGET, TROOPS, SIDE, CHOICE, GUN, parse_dice("2D6+1")]


@pytest.mark.parametrize("value", VALUES, ids=lambda v: type(v).__name__)
def test_every_field_is_read(value: Any) -> None:
    """Changing any one field of the engine's inputs (and of what holds them) changes the digest, as it changes
    the digest of a unit option holding it: a key cannot miss a field the engine reads."""
    base = ValueDigest().hexdigest(value)
    if isinstance(value, Dice):
        names = list(Dice.model_fields)
    else:
        names = [f.name for f in dataclasses.fields(value) if f.init]
    assert names
    for name in names:
        changed = value.model_copy(update={name: getattr(value, name) + 1}) if isinstance(value, Dice) else (
            dataclasses.replace(value, **{name: _other(getattr(value, name))}))  # fmt: skip
        assert ValueDigest().hexdigest(changed) != base, name
    assert {f.name for f in dataclasses.fields(Weapon) if not f.init} == {"_key", "_hash", "_profile"}  # derived
    assert {f.name for f in dataclasses.fields(TargetUnit) if not f.init} == {
        "_hash",
        "_models",
        "_wounds",
        "_keywords",
    }


def test_a_nested_change_changes_the_holder() -> None:
    gun = dataclasses.replace(GUN, lethal_hits=True)
    side2 = dataclasses.replace(SIDE, entries=(CHOICE, AttackEntry(1, (gun,))))
    option = dataclasses.replace(OPTION, sides={**OPTION.sides, Phase.SHOOTING: side2})
    assert value_digest(option) != value_digest(OPTION)
    assert value_digest(_Colour.RED) != value_digest(_Colour.BLUE) != value_digest(2)
    assert isinstance(ModelGroup, type)


def test_the_encoding_is_pinned() -> None:
    """Every kind of value, digested twice by one digester (the second time from its memo and the classes it has
    met): the digest the isinstance-only encoder gave (stop 45), so a faster dispatch changed no byte."""
    import collections

    value = (
        None, True, False, 7, -2.5, "é", b"\x00", [1, (2, 3)], {"b", "a"}, frozenset({3}), {"k": Phase.FIGHT},
        collections.OrderedDict([("x", 1)]),
        ModelGroup(count=5, wounds=2, save=3, toughness=4, keywords=frozenset({"INFANTRY"}), points=18.0),
        Dice(n=2, sides=6, plus=1), np.array([1.5, 2.0]), np.int64(3),
    )  # fmt: skip
    digester = ValueDigest()
    pinned = "13b6fed076f8dd31e0d1d62b323194c526027c7227ea059cc36f5cb9317194be"
    assert digester.hexdigest(value) == digester.hexdigest(value) == pinned


def test_fixed_fields_digest_as_the_replaced_value() -> None:
    """`fixed`: a model group's and an attack side's points read as 0, deep inside a value, give the digest of
    the value built with those points at 0; another digester of the same value, not fixed, tells them apart."""
    costly = group(5, points=18.0)
    sides = {FIGHT: side((5, weapon(ranged=False)), points=4.5)}
    costless = ValueDigest(fixed={ModelGroup: {"points": 0.0}, AttackSide: {"points": 0.0}})
    replaced = (dataclasses.replace(costly, points=0.0), {FIGHT: dataclasses.replace(sides[FIGHT], points=0.0)})
    assert costless.hexdigest((costly, sides)) == ValueDigest().hexdigest(replaced)
    assert ValueDigest().hexdigest((costly, sides)) != ValueDigest().hexdigest(replaced)
