"""`weapon_abilities` rows -> one row of engine columns per weapon.

Every row is accounted for: an ability with an effect becomes a column, an
ability the rules say changes nothing (Assault, Pistol, ...) is counted as
"no effect", and anything else (faction abilities, `other`, values that do not
parse) is counted as unknown — nothing is dropped silently. When a weapon lists
the same ability twice with different values the strongest one is used (largest
mean for Sustained Hits / Rapid Fire / Melta, lowest threshold per Anti keyword).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

import polars as pl

from pipeline.normalise.text import collapse_ws, parse_plus
from pipeline.normalise.weapon_abilities import parse_weapon_ability
from schemas.dice import Dice, parse_dice

#: Abilities with an effect on the expected damage, as boolean columns.
EFFECT_FLAGS: tuple[str, ...] = (
    "torrent", "blast", "lethal_hits", "devastating_wounds", "twin_linked", "heavy", "lance",
    "ignores_cover", "indirect_fire", "hazardous",
)  # fmt: skip

#: Abilities that change nothing for one model's expected damage (DAMAGE_RULES.md).
NO_EFFECT: dict[str, str] = {
    "assault": "only lets the unit shoot after Advancing",
    "pistol": "only lets the unit shoot in Engagement Range",
    "precision": "only changes which model an attack is allocated to",
    "psychic": "a keyword for other rules; no effect on the attack sequence",
    "extra_attacks": "only lets the bearer attack with it in addition to another weapon",
    "one_shot": "limits uses per battle; one use is what a cell measures",
}

#: Abilities whose effect is outside `damage` or outside the published scenarios (see report.py).
CONDITIONAL: tuple[str, ...] = ("hazardous", "indirect_fire")

#: Abilities whose value is dice text: the mean, and the dice (`mel_`, `sus_`, `rf_` n/sides/plus) for
#: the distributions (Melta's damage, and every count at unit level).
DICE_ABILITIES: tuple[str, ...] = ("sustained_hits", "rapid_fire", "melta")

_VALUE_SCHEMA = {
    "v_n": pl.Int64, "v_sides": pl.Int64, "v_plus": pl.Int64, "v_mean": pl.Float64,
    "v_thr": pl.Int64, "kw": pl.String, "valid": pl.Boolean,
}  # fmt: skip


@dataclass(frozen=True)
class AbilityColumns:
    """Per-weapon ability columns plus the report's counts."""

    frame: pl.DataFrame
    anti_keywords: list[str]
    no_effect: dict[str, int] = field(default_factory=dict)
    unknown: dict[str, int] = field(default_factory=dict)
    conditional: dict[str, int] = field(default_factory=dict)

    @property
    def anti_columns(self) -> list[str]:
        return [f"anti_{k}" for k in self.anti_keywords]

    def fill_defaults(self) -> list[pl.Expr]:
        """Values for weapons without the ability (or without any ability row)."""
        return [
            *[pl.col(f).fill_null(False) for f in EFFECT_FLAGS],
            *[pl.col(c).fill_null(0.0) for c in ("sustained_hits", "rapid_fire")],
            *[pl.col(f"{d}_{p}").fill_null(0) for d in ("mel", "sus", "rf") for p in ("n", "sides", "plus")],
            *[pl.col(c).fill_null(7) for c in self.anti_columns],
        ]


def _parse_value(ability: str, value: str | None, keyword: str | None) -> dict[str, object]:
    """One (ability, value, keyword) -> parsed value columns; `valid` False when it does not parse."""
    row: dict[str, object] = dict.fromkeys(_VALUE_SCHEMA)
    row["valid"] = True
    try:
        if ability in DICE_ABILITIES:
            dice: Dice = parse_dice(value or "")
            row.update(v_n=dice.n, v_sides=dice.sides, v_plus=dice.plus, v_mean=dice.mean)
        elif ability == "anti":
            threshold = parse_plus(value)
            if threshold is None or not 2 <= threshold <= 6 or not (keyword or "").strip():
                raise ValueError("anti needs a keyword and a 2+..6+ threshold")
            row.update(v_thr=threshold, kw=collapse_ws(str(keyword)).upper())
    except ValueError:
        row["valid"] = False
    return row


def _parsed_rows(weapon_abilities: pl.DataFrame) -> pl.DataFrame:
    """weapon_abilities + parsed value columns (each distinct value parsed once)."""
    frame = weapon_abilities.select("weapon_id", "ability", "value", "keyword", "raw")
    distinct = frame.select("ability", "value", "keyword").unique(maintain_order=True)
    parsed = pl.DataFrame([_parse_value(a, v, k) for a, v, k in distinct.iter_rows()], schema=_VALUE_SCHEMA)
    lookup = pl.concat([distinct, parsed], how="horizontal")
    return frame.join(lookup, on=["ability", "value", "keyword"], how="left", nulls_equal=True)


def _counts(rows: pl.DataFrame) -> tuple[dict[str, int], dict[str, int]]:
    """(no-effect ability -> rows, unknown ability text -> rows)."""
    no_effect = Counter(a for a in rows["ability"].to_list() if a in NO_EFFECT)
    known = set(EFFECT_FLAGS) | set(DICE_ABILITIES) | {"anti"}
    unknown: Counter[str] = Counter()
    for ability, raw, valid in rows.select("ability", "raw", "valid").iter_rows():
        if ability in NO_EFFECT or (ability in known and valid):
            continue
        label = collapse_ws(str(raw or ability)).lower()
        unknown[label if ability == "other" else f"{ability}: {label}"] += 1
    return dict(sorted(no_effect.items())), dict(sorted(unknown.items()))


def _aggregations(anti_keywords: list[str]) -> list[pl.Expr]:
    ability, valid = pl.col("ability"), pl.col("valid")

    def strongest(name: str, column: str) -> pl.Expr:
        chosen = pl.col(column).filter((ability == name) & valid)
        return chosen.sort_by(pl.col("v_mean").filter((ability == name) & valid), descending=True).first()

    return [
        *[(ability == f).any().alias(f) for f in EFFECT_FLAGS],
        pl.col("v_mean").filter((ability == "sustained_hits") & valid).max().alias("sustained_hits"),
        pl.col("v_mean").filter((ability == "rapid_fire") & valid).max().alias("rapid_fire"),
        *[
            strongest(name, f"v_{p}").alias(f"{prefix}_{p}")
            for name, prefix in (("melta", "mel"), ("sustained_hits", "sus"), ("rapid_fire", "rf"))
            for p in ("n", "sides", "plus")
        ],
        *[
            pl.col("v_thr").filter((ability == "anti") & valid & (pl.col("kw") == k)).min().alias(f"anti_{k}")
            for k in anti_keywords
        ],
    ]


def complete_abilities(weapons: pl.DataFrame, weapon_abilities: pl.DataFrame) -> tuple[pl.DataFrame, int]:
    """weapon_abilities plus rows parsed from `weapons.abilities` for weapons that have none.

    A producer that fills the `abilities` list but not the `weapon_abilities` table
    must not make the engine ignore those abilities. Returns the rows and how many
    weapons needed the fallback.
    """
    if "abilities" not in weapons.columns:
        return weapon_abilities, 0
    covered = weapon_abilities["weapon_id"].unique().implode()
    missing = weapons.filter(~pl.col("weapon_id").is_in(covered), pl.col("abilities").list.len() > 0)
    if missing.is_empty():
        return weapon_abilities, 0
    pairs = missing.select("weapon_id", "abilities").explode("abilities")
    parsed = {text: parse_weapon_ability(text).row() for text in pairs["abilities"].unique().to_list()}
    rows = [{"weapon_id": w, **parsed[text]} for w, text in pairs.iter_rows()]
    extra = pl.DataFrame(rows, schema=weapon_abilities.schema).select(weapon_abilities.columns)
    return pl.concat([weapon_abilities, extra]), missing.height


def weapon_ability_columns(weapon_abilities: pl.DataFrame) -> AbilityColumns:
    """One row per weapon_id with the engine's ability columns, and the report counts."""
    rows = _parsed_rows(weapon_abilities)
    anti = rows.filter((pl.col("ability") == "anti") & pl.col("valid"))
    anti_keywords = sorted(anti["kw"].unique().to_list())
    frame = rows.group_by("weapon_id").agg(_aggregations(anti_keywords))
    no_effect, unknown = _counts(rows)
    conditional = Counter(a for a in rows["ability"].to_list() if a in CONDITIONAL)
    return AbilityColumns(frame, anti_keywords, no_effect, unknown, dict(sorted(conditional.items())))
