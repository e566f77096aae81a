"""Defence signatures: what a distribution reads of a target, cached by the Anti keywords the target has."""

from __future__ import annotations

import pytest

from pipeline.units import Phase, TargetUnit
from pipeline.units.model import NO_ROLL
from pipeline.units.signature import defence_signature
from tests.units.builders import group

#: A Bodyguard of INFANTRY models with a VEHICLE model (keywords as the parser folds them), and a Leader.
TARGET = TargetUnit(
    (
        group(4, keywords=frozenset({"infantry", "imperium"}), invuln_ranged=5, invuln_melee=4, points=20.0),
        group(1, keywords=frozenset({"vehicle"}), stealth=True, points=60.0),
    ),
    (group(1, wounds=5, character=True, keywords=frozenset({"infantry", "character"}), points=80.0),),
)


@pytest.mark.parametrize(
    ("phase", "anti", "kept"),
    [
        (Phase.SHOOTING, frozenset(), [set(), set(), set()]),
        (Phase.SHOOTING, frozenset({"infantry", "monster", "titanic"}), [{"infantry"}, set(), {"infantry"}]),
        (Phase.FIGHT, frozenset({"vehicle", "character", "psyker"}), [set(), {"vehicle"}, {"character"}]),
    ],
)
def test_each_group_keeps_the_anti_keywords_it_has_and_nothing_of_its_cost(
    phase: Phase, anti: frozenset[str], kept: list[set[str]]
) -> None:
    signature = defence_signature(TARGET, phase, anti)
    groups = signature.all_groups
    assert [set(g.keywords) for g in groups] == kept
    assert [g.points for g in groups] == [0.0, 0.0, 0.0]
    assert [g.character for g in groups] == [False, False, False]
    shooting = phase is Phase.SHOOTING
    assert [g.invuln_ranged for g in groups] == ([5, NO_ROLL, NO_ROLL] if shooting else [NO_ROLL] * 3)
    assert [g.invuln_melee for g in groups] == ([NO_ROLL] * 3 if shooting else [4, NO_ROLL, NO_ROLL])
    assert groups[1].stealth is shooting  # Stealth counts when shot at only


def test_anti_keywords_the_target_lacks_give_the_same_cached_signature() -> None:
    """The cache is keyed by the Anti keywords the target has: other keywords change nothing, and the
    signature is the one object (so digests and dict lookups of it are shared between partitions)."""
    plain = defence_signature(TARGET, Phase.SHOOTING, frozenset({"infantry"}))
    wider = defence_signature(TARGET, Phase.SHOOTING, frozenset({"infantry", "monster", "fly", "titanic"}))
    assert wider is plain
    assert defence_signature(TARGET, Phase.SHOOTING, frozenset({"vehicle"})) != plain
    assert defence_signature(TARGET, Phase.FIGHT, frozenset({"infantry"})) != plain
