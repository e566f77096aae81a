"""Which statline of a unit has which invulnerable save: innate first, then wargear every loadout has;
optional wargear and options only add a note (docs/sources.md#invulnerable-saves)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from pipeline.normalise.text import match_key
from pipeline.sources.bsdata.checks import CheckLedger
from pipeline.sources.bsdata.index import Element
from pipeline.sources.bsdata.invulns import InvulnReading, is_invuln_characteristic, read_invuln
from pipeline.sources.bsdata.text import characteristics, clean_name, profile_text, rule_text
from pipeline.sources.bsdata.walk import UNIT_PROFILE, ProfileHit, RuleHit, is_weapon_profile, type_name
from schemas.records import InvulnCondition


def _is_statline_or_weapon(profile: Element) -> bool:
    return type_name(profile) == UNIT_PROFILE or is_weapon_profile(profile)


@dataclass(frozen=True)
class Save:
    """The invulnerable save columns of one model profile."""

    value: int | None = None
    condition: InvulnCondition | None = None
    melee: int | None = None
    note: str | None = None


@dataclass(frozen=True)
class _Grant:
    reading: InvulnReading
    source: Element
    model: str | None
    rank: int  # 0: innate, 1: wargear every loadout has, 2: optional (note only)
    note: str | None


def _same_save(a: InvulnReading, b: InvulnReading) -> bool:
    return (a.value, a.condition, a.melee) == (b.value, b.condition, b.melee)


def _source_of(hit: ProfileHit | RuleHit) -> tuple[Element, str, str]:
    if isinstance(hit, ProfileHit):
        return hit.profile, clean_name(hit.profile.get("name")), profile_text(hit.profile)
    return hit.rule, clean_name(hit.rule.get("name")), rule_text(hit.rule)


def _rank(hit: ProfileHit | RuleHit, name: str, reading: InvulnReading) -> tuple[int, str | None]:
    wargear = isinstance(hit, ProfileHit) and hit.owner_kind == "upgrade"
    optional = hit.unlocked_by is not None or (wargear and isinstance(hit, ProfileHit) and not hit.mandatory)
    if optional:
        via = name if not hit.unlocked_by else f"{name}, shown by {hit.unlocked_by}"
        return 2, f"{reading.value}+ with {via} (optional)"
    return (1, f"{name} (wargear)") if wargear else (0, None)


class SaveReader:
    """Reads the grants of one unit once; `save_of` answers per Unit profile."""

    def __init__(
        self,
        hits: Iterable[ProfileHit | RuleHit],
        ledger: CheckLedger | None = None,
        models: Iterable[str] = (),
    ) -> None:
        self.ledger = ledger or CheckLedger()
        self.grants: list[_Grant] = []
        hits = list(hits)
        self.statline_models = {
            h.model for h in hits if isinstance(h, ProfileHit) and type_name(h.profile) == UNIT_PROFILE
        }
        self.shared_models = set(models) - self.statline_models
        self._pending: list[tuple[ProfileHit | RuleHit, Element, str, InvulnReading]] = []
        for hit in hits:
            if not isinstance(hit, ProfileHit) or not _is_statline_or_weapon(hit.profile):
                self._read(hit)
        self._read_shared()

    def _read(self, hit: ProfileHit | RuleHit) -> None:
        source, name, text = _source_of(hit)
        reading = read_invuln(name, text)
        if reading is None:
            return
        if not reading.grants:
            if reading.conditional:
                self.ledger.explain("invulns", source, reading.conditional)
            else:
                self.ledger.problem("invulns", source, "mentions an invulnerable save, no value read")
            return
        rank, note = _rank(hit, name, reading)
        if rank < 2 and hit.model is not None and hit.model not in self.statline_models:
            self._pending.append((hit, source, name, reading))  # a model type sharing a statline
            return
        if rank == 2:
            self.ledger.explain("invulns", source, "optional wargear or option (invuln_note)")
        model = hit.model if hit.model in self.statline_models else None
        self.grants.append(_Grant(reading, source, model, rank, note))

    def _read_shared(self) -> None:
        """Saves of model types without a statline of their own: the shared statline's if every
        such model type has the same one (`Wulfen with Storm Shields`), else a note per model type."""
        for hit, source, name, reading in self._pending:
            covered = {h.model for h, _, _, r in self._pending if _same_save(r, reading)}
            if self.shared_models and covered >= self.shared_models:
                rank = 1 if isinstance(hit, ProfileHit) and hit.owner_kind == "upgrade" else 0
                self.grants.append(_Grant(reading, source, None, rank, f"{name} (wargear)" if rank else None))
            else:
                self.ledger.explain("invulns", source, "one model type of a shared statline (invuln_note)")
                self.grants.append(_Grant(reading, source, None, 2, f"{reading.value}+ for {hit.model} ({name})"))

    def save_of(self, profile: ProfileHit, profile_names: list[str]) -> Save:
        """The save of one Unit profile (its own characteristic first, then the grants that reach it)."""
        own = self._characteristic(profile)
        if own is not None:
            return own
        name = match_key(clean_name(profile.profile.get("name")))
        reaching = [g for g in self.grants if self._reaches(g, profile, name, profile_names)]
        applying = sorted((g for g in reaching if g.rank < 2), key=lambda g: (g.rank, g.model is None))
        notes = [g.note for g in reaching if g.rank == 2 and g.note]
        if applying:
            best = applying[0]
            for grant in applying:
                if _same_save(grant.reading, best.reading):
                    self.ledger.publish("invulns", grant.source)
                else:
                    self.ledger.explain("invulns", grant.source, "another save of the model applies")
            note = "; ".join(n for n in [best.note, *notes] if n) or None
            return Save(best.reading.value, best.reading.condition, best.reading.melee, note)
        return Save(note="; ".join(dict.fromkeys(notes)) or None)

    def _characteristic(self, profile: ProfileHit) -> Save | None:
        """An invulnerable save written as a characteristic of the Unit profile itself (`InvSv 4+`)."""
        for key, value in characteristics(profile.profile).items():
            if is_invuln_characteristic(key):
                reading = read_invuln("Invulnerable Save", value)
                if reading is not None and reading.grants:
                    self.ledger.publish("invulns", profile.profile)
                    return Save(reading.value, reading.condition, reading.melee)
        return None

    @staticmethod
    def _reaches(grant: _Grant, profile: ProfileHit, name: str, profile_names: list[str]) -> bool:
        if grant.model is not None and grant.model != profile.model:
            return False
        if any(match_key(x) in name or name in match_key(x) for x in grant.reading.excluding):
            return False
        sentence = match_key(grant.reading.sentence)
        named = [n for n in profile_names if n and re.search(rf"\b{re.escape(n)}\b", sentence)]
        return len(profile_names) < 2 or not named or name in named
