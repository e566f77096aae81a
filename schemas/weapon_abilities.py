"""Typed 10th-edition weapon abilities.

The damage engine must know exactly which abilities a weapon has and with which
parameter; sources spell them a dozen ways. Each ability is one small model; an
ability nobody recognises is kept as `Other` with its raw text, never dropped.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from schemas.dice import DiceField

FlagName = Literal[
    "assault",
    "heavy",
    "pistol",
    "torrent",
    "blast",
    "lethal_hits",
    "devastating_wounds",
    "twin_linked",
    "lance",
    "ignores_cover",
    "indirect_fire",
    "precision",
    "hazardous",
    "psychic",
    "extra_attacks",
    "one_shot",
]

#: Flag ability names as printed in profiles (lower case), keyed by kind.
FLAG_TEXT: dict[str, str] = {
    "assault": "assault",
    "heavy": "heavy",
    "pistol": "pistol",
    "torrent": "torrent",
    "blast": "blast",
    "lethal_hits": "lethal hits",
    "devastating_wounds": "devastating wounds",
    "twin_linked": "twin-linked",
    "lance": "lance",
    "ignores_cover": "ignores cover",
    "indirect_fire": "indirect fire",
    "precision": "precision",
    "hazardous": "hazardous",
    "psychic": "psychic",
    "extra_attacks": "extra attacks",
    "one_shot": "one shot",
}


class _Ability(BaseModel):
    model_config = ConfigDict(frozen=True)

    raw: str = Field(description="The ability as written in the source.")

    @property
    def normalised(self) -> str:
        raise NotImplementedError

    def row(self) -> dict[str, str | None]:
        """Columns of the `weapon_abilities` table."""
        return {"ability": self.ability_name, "value": None, "keyword": None, "raw": self.raw}

    @property
    def ability_name(self) -> str:
        return str(getattr(self, "ability"))  # noqa: B009  (declared by each subclass)


class Flag(_Ability):
    """An ability without parameter (`lethal hits`, `torrent`, ...)."""

    ability: FlagName

    @property
    def normalised(self) -> str:
        return FLAG_TEXT[self.ability]


class _WithDice(_Ability):
    value: DiceField

    @property
    def normalised(self) -> str:
        return f"{self._label} {self.value.text.lower()}"

    _label = ""

    def row(self) -> dict[str, str | None]:
        return {**super().row(), "value": self.value.text}


class SustainedHits(_WithDice):
    ability: Literal["sustained_hits"] = "sustained_hits"
    _label = "sustained hits"


class RapidFire(_WithDice):
    ability: Literal["rapid_fire"] = "rapid_fire"
    _label = "rapid fire"


class Melta(_WithDice):
    ability: Literal["melta"] = "melta"
    _label = "melta"


class Anti(_Ability):
    """Anti-KEYWORD X+: unmodified wound rolls of X+ are Critical Wounds against KEYWORD."""

    ability: Literal["anti"] = "anti"
    keyword: str = Field(min_length=1, description="Upper-case target keyword, e.g. INFANTRY.")
    threshold: int = Field(ge=2, le=6)

    @property
    def normalised(self) -> str:
        return f"anti-{self.keyword.lower()} {self.threshold}+"

    def row(self) -> dict[str, str | None]:
        return {**super().row(), "value": f"{self.threshold}+", "keyword": self.keyword}


class Other(_Ability):
    """Anything not in the core vocabulary: faction abilities, typos; kept verbatim."""

    ability: Literal["other"] = "other"

    @property
    def normalised(self) -> str:
        return " ".join(self.raw.lower().split())


WeaponAbility = Annotated[
    Flag | SustainedHits | RapidFire | Melta | Anti | Other,
    Field(discriminator="ability"),
]
