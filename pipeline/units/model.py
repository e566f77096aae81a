"""The unit engine's inputs: target units as model groups, attack sides as weapon entries.

Rules: `DAMAGE_RULES.md`, section "Unit level". Everything here is immutable and
hashable so identical inputs dedupe by value (`signature.py`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field, replace
from enum import StrEnum

from schemas.dice import Dice

NO_ROLL = 7
"""A threshold no D6 reaches: "no invulnerable save", "no Feel No Pain"."""


class Phase(StrEnum):
    """Which weapons attack: ranged in the shooting phase, melee in the fight phase."""

    SHOOTING = "shooting"
    FIGHT = "fight"


@dataclass(frozen=True, slots=True)
class ModelGroup:
    """`count` identical models of one profile, as they stand in a target unit."""

    count: int
    wounds: int
    save: int
    toughness: int
    invuln_ranged: int = NO_ROLL
    invuln_melee: int = NO_ROLL
    fnp: int = NO_ROLL
    damage_reduction: int = 0
    halve_damage: bool = False
    character: bool = False
    stealth: bool = False
    keywords: frozenset[str] = frozenset()
    points: float = 0.0
    """Cost of one model of the group (points destroyed when it is slain)."""

    def __post_init__(self) -> None:
        if self.count < 1 or self.wounds < 1:
            raise ValueError(f"a model group needs count >= 1 and wounds >= 1, got {self.count}, {self.wounds}")

    def invuln(self, phase: Phase) -> int:
        return self.invuln_ranged if phase is Phase.SHOOTING else self.invuln_melee


def majority_toughness(groups: tuple[ModelGroup, ...]) -> int:
    """The Toughness most models have; ties: the highest (a documented judgement call)."""
    votes: Counter[int] = Counter()
    for group in groups:
        votes[group.toughness] += group.count
    return max(votes, key=lambda t: (votes[t], t))


def allocation_order(groups: tuple[ModelGroup, ...]) -> tuple[ModelGroup, ...]:
    """Non-CHARACTER models first, then the most numerous profile first (stable for ties)."""
    return tuple(sorted(groups, key=lambda g: (g.character, -g.count)))


@dataclass(frozen=True, slots=True, eq=False)
class TargetUnit:
    """A target: `groups` in allocation order; `leader` the attached Leader's models (empty: not attached)."""

    groups: tuple[ModelGroup, ...]
    leader: tuple[ModelGroup, ...] = ()
    name: str = ""
    _hash: int = field(init=False, repr=False)
    _models: int = field(init=False, repr=False)
    _wounds: int = field(init=False, repr=False)
    _keywords: frozenset[str] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if not self.groups:
            raise ValueError("a target unit needs at least one model group")
        object.__setattr__(self, "_hash", hash((self.groups, self.leader, self.name)))
        # read per job and per pair by the engine and the tables: summed once (the groups are immutable)
        object.__setattr__(self, "_models", sum(g.count for g in self.all_groups))
        object.__setattr__(self, "_wounds", sum(g.count * g.wounds for g in self.all_groups))
        object.__setattr__(self, "_keywords", frozenset().union(*(g.keywords for g in self.all_groups)))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TargetUnit) and (
            self is other or (self._hash == other._hash and (self.groups, self.leader, self.name)
                              == (other.groups, other.leader, other.name))
        )  # fmt: skip

    @property
    def attached(self) -> bool:
        return bool(self.leader)

    @property
    def all_groups(self) -> tuple[ModelGroup, ...]:
        return self.groups + self.leader

    @property
    def models(self) -> int:
        return self._models

    @property
    def total_wounds(self) -> int:
        return self._wounds

    @property
    def points(self) -> float:
        return sum(g.count * g.points for g in self.all_groups)

    @property
    def toughness(self) -> int:
        """Wound rolls use the Bodyguard's Toughness in an Attached unit, else the majority's."""
        return majority_toughness(self.groups)

    @property
    def keywords(self) -> frozenset[str]:
        """A unit has a keyword when any of its models has it (Anti checks the unit)."""
        return self._keywords

    @property
    def stealth(self) -> bool:
        """Stealth needs every model to have it."""
        return all(g.stealth for g in self.all_groups)


@dataclass(frozen=True, slots=True, eq=False)
class Weapon:
    """One weapon profile as the engine reads it (abilities parsed; the scenario is applied later)."""

    weapon_id: str
    attacks: Dice
    skill: int | None
    strength: Dice
    ap: int
    damage: Dice
    ranged: bool = True
    torrent: bool = False
    sustained_hits: Dice | None = None
    lethal_hits: bool = False
    devastating_wounds: bool = False
    anti: tuple[tuple[str, int], ...] = ()
    twin_linked: bool = False
    blast: bool = False
    rapid_fire: Dice | None = None
    melta: Dice | None = None
    lance: bool = False
    heavy: bool = False
    ignores_cover: bool = False
    precision: bool = False
    indirect_fire: bool = False

    _key: tuple[object, ...] = field(init=False, repr=False)
    _hash: int = field(init=False, repr=False)
    _profile: Weapon = field(init=False, repr=False)

    def __post_init__(self) -> None:
        key = tuple((v.n, v.sides, v.plus) if isinstance(v, Dice) else v for v in _fields(self))
        object.__setattr__(self, "_key", key)
        object.__setattr__(self, "_hash", hash(key))
        # built once: every attack signature asks for it (`replace` re-runs this, ≈ 7 % of unit_vs_reference)
        object.__setattr__(self, "_profile", self if not self.weapon_id else replace(self, weapon_id=""))

    def __hash__(self) -> int:
        return self._hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Weapon) and (self is other or self._key == other._key)

    @property
    def auto_hit(self) -> bool:
        return self.torrent or self.skill is None

    def profile(self) -> Weapon:
        """The same weapon without its id: equal profiles resolve as one."""
        return self._profile


def _fields(weapon: Weapon) -> tuple[object, ...]:
    return tuple(getattr(weapon, name) for name in _FIELD_NAMES)


#: The weapon's fields, its key (the derived `_` fields left out); read for every weapon built.
_FIELD_NAMES = tuple(name for name in Weapon.__dataclass_fields__ if not name.startswith("_"))


@dataclass(frozen=True, slots=True)
class AttackEntry:
    """`models` models each attacking with one of `choices` (several: the best against the target)."""

    models: int
    choices: tuple[Weapon, ...]

    def __post_init__(self) -> None:
        if self.models < 1 or not self.choices:
            raise ValueError("an attack entry needs models >= 1 and at least one weapon")


@dataclass(frozen=True, slots=True)
class AttackSide:
    """Every model of an attacking unit option and what it attacks with in one phase."""

    entries: tuple[AttackEntry, ...]
    phase: Phase
    points: float = 0.0
    name: str = ""
    notes: tuple[str, ...] = field(default=(), compare=False)
