"""Records of one walked BattleScribe unit: datasheet, statlines, weapons, abilities, keywords, points
(docs/sources.md#bsdata-judgement-calls)."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pipeline.normalise.text import match_key
from pipeline.normalise.weapon_abilities import parse_ability_list
from pipeline.sources.bsdata.checks import CheckLedger
from pipeline.sources.bsdata.frame import UnitFrame, quarantine
from pipeline.sources.bsdata.index import Element
from pipeline.sources.bsdata.points import PointsTiers
from pipeline.sources.bsdata.saves import Save, SaveReader
from pipeline.sources.bsdata.text import (
    ap_value,
    characteristics,
    clean_name,
    clean_text,
    damaged_range,
    is_none_value,
    loose_dice,
    profile_text,
    rule_text,
    stat_inches,
    stat_int,
    stat_plus,
)
from pipeline.sources.bsdata.walk import UNIT_PROFILE, ProfileHit, UnitContent, is_weapon_profile, type_name
from schemas.records import (
    Ability,
    Datasheet,
    Keyword,
    ModelProfile,
    Points,
    Record,
    Weapon,
    WeaponAbilityRow,
)

FACTION_PREFIX = "faction:"


@dataclass(frozen=True)
class Finding:
    """A value published after reading it loosely; the raw text is kept for the run report."""

    line: int
    table: str
    field: str
    raw: str
    read_as: str
    where: str

    def as_dict(self) -> dict[str, str | int]:
        return {"line": self.line, "table": self.table, "field": self.field, "raw": self.raw,
                "read_as": self.read_as, "where": self.where}  # fmt: skip


#: name, kind, parameter, text, model, line, unlocked_by
AbilityRow = tuple[str, str, str | None, str, str | None, int, str | None]


class UnitBuilder:
    """Builds the records of one walked unit."""

    def __init__(self, content: UnitContent, frame: UnitFrame, ledger: CheckLedger | None = None) -> None:
        self.content = content
        self.frame = frame
        self.ledger = ledger or CheckLedger()
        self.findings: list[Finding] = []
        self.keywords = self._keywords()
        #: Each weapon profile reached -> the weapon_id published for it (a duplicate's: the kept one's).
        self.weapon_ids: dict[Element, str] = {}

    # -- categories ---------------------------------------------------------------
    def _category_name(self, link: Element) -> str:
        resolved = self.frame.scope.resolve(link.get("targetId"))
        name = resolved[0].get("name") if resolved is not None else None
        return clean_name(name or link.get("name"))

    def _keywords(self) -> list[tuple[str, bool, str | None, bool]]:
        """(keyword, is_faction, model, primary), unit-level first, repeats dropped."""
        found: dict[tuple[str, str | None], tuple[str, bool, str | None, bool]] = {}
        ordered = sorted(self.content.categories, key=lambda c: c.model is not None)
        for hit in ordered:
            name = self._category_name(hit.link)
            if not name or (hit.link.get("hidden") or "").lower() == "true":
                continue
            is_faction = name.casefold().startswith(FACTION_PREFIX)
            keyword = name[len(FACTION_PREFIX) :].strip() if is_faction else name
            unit_level = (match_key(keyword), None)
            key = (match_key(keyword), hit.model)
            if key not in found and unit_level not in found:
                primary = (hit.link.get("primary") or "").lower() == "true"
                found[key] = (keyword, is_faction, hit.model, primary)
        return list(found.values())

    def faction(self) -> str:
        """The unit's `Faction: X` matching its army's catalogue, else its first, else the army's."""
        factions = [k for k, is_faction, model, _ in self.keywords if is_faction and model is None]
        army = self.frame.catalogue.faction_name
        return next((f for f in factions if match_key(f) == match_key(army)), factions[0] if factions else army)

    def role(self) -> str | None:
        return next((k for k, f, m, primary in self.keywords if primary and not f and m is None), None)

    def keyword_records(self) -> Iterator[Keyword]:
        for keyword, is_faction, model, _ in self.keywords:
            yield Keyword(
                datasheet_id=self.frame.datasheet_id,
                keyword=keyword,
                is_faction=is_faction,
                model=model,
                source_id=self.frame.source_id,
                line=self.frame.line,
            )

    # -- datasheet ----------------------------------------------------------------
    def _profiles_named(self, kind: str) -> list[ProfileHit]:
        return [h for h in self.content.profiles if type_name(h.profile) == kind]

    def datasheet(self) -> Datasheet:
        leader = transport = damaged_w = damaged_text = None
        for hit in self._profiles_named("abilities"):
            name = clean_name(hit.profile.get("name"))
            if hit.owner_kind != "upgrade" and name.casefold() == "leader" and leader is None:
                leader = profile_text(hit.profile)
            if damaged_range(name) and damaged_w is None:
                damaged_w, damaged_text = damaged_range(name), profile_text(hit.profile)
        for hit in self._profiles_named("transport"):
            transport = transport or profile_text(hit.profile)
        return Datasheet(
            datasheet_id=self.frame.datasheet_id,
            source_id=self.frame.source_id,
            faction=self.faction(),
            name=clean_name(self.content.entry.get("name")),
            role=self.role(),
            transport=transport or None,
            damaged_w=damaged_w,
            damaged_description=damaged_text or None,
            leader_text=leader or None,
            line=self.frame.line,
        )

    # -- statlines ----------------------------------------------------------------
    def model_records(self, unit_size: int | None) -> Iterator[Record]:
        saves = SaveReader([*self.content.profiles, *self.content.rules], self.ledger, self.content.model_names)
        keywords = [k for k, _f, _m, _p in self.keywords]
        statlines = self._profiles_named(UNIT_PROFILE)
        names = list(dict.fromkeys(match_key(clean_name(h.profile.get("name"))) for h in statlines))
        seen: set[tuple[object, ...]] = set()
        for hit in statlines:
            values, save = characteristics(hit.profile), saves.save_of(hit, names)
            key = (match_key(hit.profile.get("name") or ""), save, *values.values())
            if key in seen:
                self.ledger.explain("statlines", hit.profile, "duplicate of a published statline")
                continue
            seen.add(key)
            try:
                profile = self._model_profile(hit, values, save, keywords, unit_size)
            except ValueError as exc:
                self.ledger.explain("statlines", hit.profile, "quarantined")
                yield quarantine(self.frame, hit, ModelProfile.TABLE, exc)
                continue
            self.ledger.publish("statlines", hit.profile)
            yield profile

    def _model_profile(
        self,
        hit: ProfileHit,
        values: dict[str, str],
        save: Save,
        keywords: list[str],
        unit_size: int | None,
    ) -> ModelProfile:
        return ModelProfile(
            profile_id=self.frame.child_id(hit.profile),
            datasheet_id=self.frame.datasheet_id,
            name=clean_name(hit.profile.get("name")),
            movement=stat_inches(values.get("m")),
            toughness=stat_int(values.get("t")),
            save=stat_plus(values.get("sv")),
            wounds=stat_int(values.get("w")),
            leadership=stat_plus(values.get("ld")),
            oc=stat_int(values.get("oc")),
            invuln=save.value,
            invuln_condition=save.condition,
            invuln_melee=save.melee,
            invuln_note=save.note,
            keywords=keywords,
            unit_size=unit_size,
            source_id=self.frame.source_id,
            line=self.frame.line_of(hit.profile, hit.catalogue),
        )

    # -- weapons ------------------------------------------------------------------
    def weapon_records(self) -> Iterator[Record]:
        seen: set[tuple[str, ...]] = set()
        kept: dict[tuple[str, ...], str] = {}
        for hit in self.content.profiles:
            if not is_weapon_profile(hit.profile):
                continue
            values = characteristics(hit.profile)
            key = (type_name(hit.profile), match_key(clean_name(hit.profile.get("name"))), *values.values())
            if key in seen:
                self.ledger.explain("weapons", hit.profile, "duplicate of a published weapon")
                if key in kept:
                    self.weapon_ids.setdefault(hit.profile, kept[key])
                continue
            seen.add(key)
            try:
                weapon = self._weapon(hit, values)
            except ValueError as exc:
                self.ledger.explain("weapons", hit.profile, "quarantined")
                yield quarantine(self.frame, hit, Weapon.TABLE, exc)
                continue
            self.ledger.publish("weapons", hit.profile)
            kept[key] = self.weapon_ids[hit.profile] = weapon.weapon_id
            yield weapon
            yield from self._weapon_abilities(weapon)

    def _dice(self, hit: ProfileHit, values: dict[str, str], key: str) -> str:
        """A dice characteristic; one read loosely (`8+` -> 8) is kept as a finding with its raw text."""
        text, loose = loose_dice(values.get(key))
        if loose:
            where = f"profile '{clean_name(hit.profile.get('name'))}' of unit '{self.frame.unit_name}'"
            line = self.frame.line_of(hit.profile, hit.catalogue)
            self.findings.append(Finding(line, "weapons", key, values.get(key) or "", text, where))
        return text

    def _weapon(self, hit: ProfileHit, values: dict[str, str]) -> Weapon:
        keywords = values.get("keywords")
        typed = [] if is_none_value(keywords) else parse_ability_list(keywords or "")
        skill = values.get("bs", values.get("ws"))
        return Weapon(
            weapon_id=self.frame.child_id(hit.profile),
            datasheet_id=self.frame.datasheet_id,
            name=clean_name(hit.profile.get("name")),
            kind="melee" if "melee" in type_name(hit.profile) else "ranged",
            range_inches=stat_inches(values.get("range")),
            attacks=self._dice(hit, values, "a"),
            skill=stat_plus(skill),
            strength=self._dice(hit, values, "s"),
            ap=ap_value(values.get("ap")),
            damage=self._dice(hit, values, "d"),
            abilities=[a.normalised for a in typed],
            unlocked_by=hit.unlocked_by,
            typed_abilities=typed,
            source_id=self.frame.source_id,
            line=self.frame.line_of(hit.profile, hit.catalogue),
        )

    def _weapon_abilities(self, weapon: Weapon) -> Iterator[WeaponAbilityRow]:
        for ability in weapon.typed_abilities:
            yield WeaponAbilityRow(
                weapon_id=weapon.weapon_id, source_id=weapon.source_id, line=weapon.line, **ability.row()
            )

    # -- abilities ----------------------------------------------------------------
    def ability_records(self) -> Iterator[Record]:
        seen: set[tuple[str, str, str | None]] = set()
        for ability in [*self._profile_abilities(), *self._rule_abilities()]:
            key = (match_key(ability[0]), ability[1], ability[4])
            if key in seen:
                continue
            seen.add(key)
            name, kind, parameter, text, model, line, unlocked_by = ability
            yield Ability(
                datasheet_id=self.frame.datasheet_id,
                name=name,
                kind=kind,
                parameter=parameter,
                text=text or None,
                model=model,
                unlocked_by=unlocked_by,
                source_id=self.frame.source_id,
                line=line,
            )

    def _profile_abilities(self) -> list[AbilityRow]:
        """Ability-like profiles: `Abilities` and any other non-statline, non-weapon type."""
        found: list[AbilityRow] = []
        for hit in self.content.profiles:
            kind_name = type_name(hit.profile)
            if kind_name in {UNIT_PROFILE, "transport"} or is_weapon_profile(hit.profile):
                continue
            name = clean_name(hit.profile.get("name"))
            kind = "wargear" if hit.owner_kind == "upgrade" else "datasheet"
            kind = "damaged" if damaged_range(name) else kind
            line = self.frame.line_of(hit.profile, hit.catalogue)
            found.append((name, kind, None, profile_text(hit.profile), hit.model, line, hit.unlocked_by))
        return found

    def _rule_abilities(self) -> list[AbilityRow]:
        """Rules linked to the unit or its models (`core` if from the game system, else `faction`).

        Rules linked from weapon entries (`Pistol`, `Lance`) are weapon abilities, already
        carried by the weapons' Keywords, so they are not datasheet abilities.
        """
        weapon_owners = {id(h.owner) for h in self.content.profiles if is_weapon_profile(h.profile)}
        found: list[AbilityRow] = []
        for hit in self.content.rules:
            if id(hit.owner) in weapon_owners:
                continue
            kind = "core" if hit.catalogue.is_game_system else "faction"
            parameter = clean_text(hit.parameter) or None
            line = self.frame.line_of(hit.rule, hit.catalogue)
            name = clean_name(hit.rule.get("name"))
            found.append((name, kind, parameter, rule_text(hit.rule), hit.model, line, hit.unlocked_by))
        return found

    # -- points -------------------------------------------------------------------
    def points_records(self, points: PointsTiers) -> Iterator[Points]:
        for option in points.options:
            yield Points(
                datasheet_id=self.frame.datasheet_id,
                models=option.models,
                cost=option.cost,
                description=option.description,
                source_id=self.frame.source_id,
                line=self.frame.line,
            )
