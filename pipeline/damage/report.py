"""What the damage engine did with its input, for the run report and the closing note.

Every weapon ability and every target row is accounted for here: abilities the
engine treats as no effect are counted with the reason, unknown ones with their
text, and targets without a statline are listed instead of vanishing.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from pipeline.damage.abilities import NO_EFFECT

#: Abilities whose effect exists only outside the published scenarios or outside `damage`.
CONDITIONAL_EFFECT: dict[str, str] = {
    "indirect_fire": "no effect while the target is visible (all published scenarios); "
    "implemented for the `indirect` scenario (-1 to hit, 1-3 fail, Benefit of Cover)",
    "hazardous": "no effect on damage; published as self_mortal_wounds = 3 x 1/6 = 0.5 per use",
}


@dataclass(frozen=True)
class DamageReport:
    """Counts of one engine run (JSON-ready through `as_dict`)."""

    scenarios: list[str]
    weapons: int
    weapon_profiles: int
    targets: int
    defensive_profiles: int
    skipped_targets: list[str]
    duplicate_target_ids: int
    cells_per_scenario: int
    distinct_cells_per_scenario: int
    no_effect_abilities: dict[str, int]
    unknown_abilities: dict[str, int]
    conditional_abilities: dict[str, int]
    skill_null_as_torrent: int
    weapons_without_points: int
    abilities_from_lists: int = 0
    effective_weapon_profiles: int = 0
    computed_cells: int = 0
    anti_keywords: list[str] = field(default_factory=list)
    #: Distinct work behind models_slain / wounds_lost (unit_keys.py): weapon and target parts, count
    #: keys, loss keys and the distinct (count key, loss key) pairs actually computed.
    unit_weapon_parts: int = 0
    unit_target_parts: int = 0
    unit_count_keys: int = 0
    unit_loss_keys: int = 0
    unit_distinct_pairs: int = 0

    @property
    def no_effect_reasons(self) -> dict[str, str]:
        return {a: NO_EFFECT[a] for a in self.no_effect_abilities}

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["no_effect_reasons"] = self.no_effect_reasons
        data["conditional_reasons"] = {a: CONDITIONAL_EFFECT[a] for a in self.conditional_abilities}
        return data

    def summary(self) -> str:
        """A few human-readable lines for the CLI."""
        return "\n".join(
            [
                f"damage: {self.weapons} weapons ({self.weapon_profiles} distinct profiles) x "
                f"{self.targets} targets ({self.defensive_profiles} distinct) = "
                f"{self.cells_per_scenario} cells per scenario, {len(self.scenarios)} scenarios",
                f"skipped targets without T/Sv/W: {len(self.skipped_targets)}",
                f"no-effect abilities: {self.no_effect_abilities}",
                f"unknown abilities (no effect): {self.unknown_abilities}",
            ]
        )
