"""Default loadouts of a BattleScribe unit: in each points option's composition, the weapons each model
entry has by default (the walk's `default` counts: `min`, `defaultAmount`, a group's default selection)
(docs/sources.md#default-loadouts)."""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.loadouts import issues as why
from pipeline.loadouts.issues import Issues
from pipeline.loadouts.items import weapon_base
from pipeline.loadouts.names import best_match
from pipeline.loadouts.rows import CHARACTER, CarriedWeapon, GroupLoadout, loadout_rows
from pipeline.sources.bsdata.composition import Composition
from pipeline.sources.bsdata.defaults import STALE_DEFAULT, GroupDefaults
from pipeline.sources.bsdata.frame import UnitFrame
from pipeline.sources.bsdata.points import PointsOption, PointsTiers
from pipeline.sources.bsdata.text import clean_name
from pipeline.sources.bsdata.units import UnitBuilder
from pipeline.sources.bsdata.walk import UNIT_PROFILE, ProfileHit, UnitContent, is_weapon_profile, type_name
from schemas.records import LoadoutMethod, ModelProfile, Points, Record

METHOD: LoadoutMethod = "bsdata defaults"


class LoadoutReader:
    """The default loadouts of one walked unit, from its walk, model tree, points and built records."""

    def __init__(
        self,
        content: UnitContent,
        composition: Composition,
        builder: UnitBuilder,
        profiles: Sequence[ModelProfile],
        frame: UnitFrame,
        defaults: GroupDefaults,
    ) -> None:
        self.content = content
        self.defaults = defaults
        self.composition = composition
        self.builder = builder
        self.frame = frame
        self.published = {p.name for p in profiles}
        self.characters = {p.name for p in profiles if CHARACTER in p.keywords}
        self.issues = Issues(frame.datasheet_id, None, source_id=frame.source_id, line=frame.line)
        self.models = [i for i, n in enumerate(composition.nodes) if n.kind == "model"]

    def records(self, tiers: PointsTiers) -> list[Record]:
        """Rows for every option, or none and the issues (a unit without weapons has neither)."""
        if not self.builder.weapon_ids:
            return []
        present = self._present(tiers)
        for model, group, reason in self.content.open_choices:
            if model is None or model in present:
                detail = f"{model or self.frame.unit_name}: {clean_name(group.get('name'))}"
                self.issues.add(why.STALE_DEFAULT if reason == STALE_DEFAULT else why.OPEN_CHOICE, detail)
        carried = self._carried()
        profiles = {i: self._profile(i) for i in self.models} if self.models else {}
        if not tiers.options:
            self.issues.add(why.NO_OPTION, self.frame.unit_name)
        rows: list[Record] = []
        for option in tiers.options:
            rows.extend(loadout_rows(self._points(option), self._groups(option, carried, profiles), METHOD,
                                     self.characters))  # fmt: skip
        if not self.issues.unresolved and not rows:
            self.issues.add(why.NOTHING_CARRIED, self.frame.unit_name, "note")
        return [*([] if self.issues.unresolved else rows), *self.issues.records()]

    def _present(self, tiers: PointsTiers) -> set[str | None]:
        """Names of the model entries some option holds (a choice of a model no option has is not open)."""
        present: set[str | None] = set()
        for option in tiers.options:
            selections = self.composition.in_unit(self._defaulted(option.counts))
            present |= {self._model_name(i) for i in self.models if selections[i] > 0}
        return present

    # -- weapons ----------------------------------------------------------------------
    def _carried(self) -> dict[str | None, tuple[CarriedWeapon, ...]]:
        """Model name (None: the unit's own entry) -> its default weapons; unit-level wargear goes to the
        only model kind, if there is one."""
        found: dict[str | None, dict[str, CarriedWeapon]] = {}
        for hit in [*self.content.profiles, *self.content.default_weapons]:
            if not hit.default or not is_weapon_profile(hit.profile):
                continue
            weapon = self._weapon(hit)
            if weapon is not None:
                mine = found.setdefault(hit.model, {})
                if weapon.per_model > mine.get(weapon.weapon_id, weapon).per_model or weapon.weapon_id not in mine:
                    mine[weapon.weapon_id] = weapon
        names = {self._model_name(i) for i in self.models}
        if None in found and self.models:
            if len(names) == 1:
                only = next(iter(names))
                found[only] = {**found.pop(None), **found.get(only, {})}
            else:
                self.issues.add(why.UNIT_LEVEL, ", ".join(sorted(w.profile_group for w in found[None].values())))
        return {model: tuple(weapons.values()) for model, weapons in found.items()}

    def _weapon(self, hit: ProfileHit) -> CarriedWeapon | None:
        name = clean_name(hit.profile.get("name"))
        weapon_id = self.builder.weapon_ids.get(hit.profile)
        if weapon_id is None:
            self.issues.add(why.UNPUBLISHED_WEAPON, f"{hit.model or self.frame.unit_name}: {name}")
            return None
        return CarriedWeapon(weapon_id, hit.default, weapon_base(name), self.frame.datasheet_id)

    # -- models -----------------------------------------------------------------------
    def _model_name(self, index: int) -> str | None:
        """The name the walk files a model's content under (None: the unit entry is the model)."""
        if index == 0:
            return None
        return (self.composition.nodes[index].element.get("name") or "").strip() or None

    def _profile(self, index: int) -> str | None:
        """The statline of a model entry: its own, else the nearest group's or entry's above it, else the
        unit's only one, else the one its name holds (`Nightmare Hulk w/ belly flamer`)."""
        statlines = [h for h in self.content.profiles if type_name(h.profile) == UNIT_PROFILE]
        node = self.composition.nodes[index]
        own = [h for h in statlines if h.model is not None and h.model == self._model_name(index)]
        ancestors, parent = [], node.parent
        while parent is not None:
            ancestors.append(self.composition.nodes[parent].element)
            parent = self.composition.nodes[parent].parent
        above = [h for element in ancestors for h in statlines if h.owner is element]
        names = list(dict.fromkeys(clean_name(h.profile.get("name")) for h in statlines))
        for hits in (own, above):
            if hits:
                return self._published(clean_name(hits[0].profile.get("name")))
        if len(names) == 1:
            return self._published(names[0])
        match = best_match(node.name, names, overlap=False)
        return self._published(None if match is None else names[match], node.name)

    def _published(self, name: str | None, model: str | None = None) -> str | None:
        if name is None or name not in self.published:
            self.issues.add(why.NO_PROFILE, name or model or self.frame.unit_name)
            return None
        return name

    # -- options ----------------------------------------------------------------------
    def _groups(
        self,
        option: PointsOption,
        carried: dict[str | None, tuple[CarriedWeapon, ...]],
        profiles: dict[int, str | None],
    ) -> list[GroupLoadout]:
        if not self.models:
            profile = self._published(next(iter(self.published)) if len(self.published) == 1 else None)
            weapons = carried.get(None, ())
            return [GroupLoadout(self.frame.unit_name, profile, option.models, weapons)] if profile else []
        selections = self.composition.in_unit(self._defaulted(option.counts))
        groups = []
        for index in self.models:
            profile = profiles[index]
            if selections[index] > 0 and profile is not None:
                name = self.composition.nodes[index].name or self.frame.unit_name
                groups.append(GroupLoadout(name, profile, selections[index], carried.get(self._model_name(index), ())))
        return groups

    def _defaulted(self, counts: Sequence[int]) -> list[int]:
        """The option's composition with each model group's extra models moved to the group's default
        member (the points composition fills a group with any member: `9 Jungle Fighters` defaults to the
        plain Jungle Fighter, not one with a flamer)."""
        counts = list(counts)
        nodes = self.composition.nodes
        for group in (i for i, n in enumerate(nodes) if n.kind == "group"):
            named = self.defaults.named(nodes[group].element)
            default = next((c for c in nodes[group].children if named == (nodes[c].element, nodes[c].link)), None)
            if default is None or nodes[default].kind != "model":
                continue
            for member in nodes[group].children:
                if member == default or nodes[member].kind != "model":
                    continue
                high = nodes[default].high
                room = counts[member] if high is None else high - counts[default]
                moved = max(0, min(counts[member] - nodes[member].low, room))
                counts[member] -= moved
                counts[default] += moved
        return counts

    def _points(self, option: PointsOption) -> Points:
        return Points(
            datasheet_id=self.frame.datasheet_id, models=option.models, cost=option.cost,
            description=option.description, source_id=self.frame.source_id, line=self.frame.line,
        )  # fmt: skip
