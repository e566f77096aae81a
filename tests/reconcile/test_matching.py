"""Entity resolution on hand-made datasheets: which ones become one unit, and which stay apart."""

from __future__ import annotations

import copy

from pipeline.dataset import Dataset
from pipeline.reconcile.matching import resolve_units
from pipeline.reconcile.stage import reconcile_stage
from schemas.records import Datasheet, ModelProfile, Record, Unit
from tests.reconcile.builders import members, points, profile, sheet, statline


def _units(*records: Record) -> dict[frozenset[str], tuple[str, str]]:
    """Datasheet ids of each unit -> (unit_id, how it was matched)."""
    return {
        frozenset(m.datasheet_id for m in u.members): (u.unit_id, u.matched_by)
        for u in resolve_units(members(*records))
    }


def test_same_faction_and_name_across_three_sources() -> None:
    page = sheet("page_export", "World Eaters", "Lord Invocatus")
    wh = sheet("wahapedia_csv", "World Eaters", "Lord Invocatus")
    bs = sheet("bsdata", "World Eaters", "Lord Invocatus", source_id="bsdata:Chaos - World Eaters.cat")
    units = _units(page, wh, bs)
    assert units == {frozenset({page.datasheet_id, wh.datasheet_id, bs.datasheet_id}): (
        "unit:world-eaters:lord-invocatus", "faction and name")}  # fmt: skip


def test_an_army_catalogue_files_its_allies_under_itself() -> None:
    """BSData's Blood Legion daemons in the World Eaters catalogue are the World Eaters
    datasheet of Wahapedia, not its Chaos Daemons one: an army list's entries are filed under
    the catalogue, so they match by faction and name, whatever their own `Faction:`."""
    bs = sheet("bsdata", "Blood Legions", "Bloodletters", source_id="bsdata:Chaos - World Eaters.cat")
    we = sheet("wahapedia_csv", "World Eaters", "Bloodletters")
    cd = sheet("wahapedia_csv", "Chaos Daemons", "Bloodletters")
    units = _units(bs, we, cd)
    assert units[frozenset({bs.datasheet_id, we.datasheet_id})] == (
        "unit:world-eaters:bloodletters",
        "faction and name",
    )
    assert units[frozenset({cd.datasheet_id})] == ("unit:chaos-daemons:bloodletters", "single source")


def test_a_library_entry_keeps_its_own_faction_and_joins_by_its_catalogue() -> None:
    """A library catalogue is no army list: its entry is filed under its own `Faction:` first;
    the catalogue's faction is the fallback."""
    bs = sheet("bsdata", "Legiones Daemonica", "Bloodthirster", source_id="bsdata:Chaos - Chaos Daemons Library.cat")
    wh = sheet("wahapedia_csv", "Chaos Daemons", "Bloodthirster")
    assert _units(bs, wh) == {frozenset({bs.datasheet_id, wh.datasheet_id}): (
        "unit:chaos-daemons:bloodthirster", "faction and name")}  # fmt: skip


def test_unknown_faction_matches_by_unique_name_only() -> None:
    odd = sheet("page_export", "Xenos Hordes", "Wazdakka Gutsmek")
    bs = sheet("bsdata", "Orks", "Wazdakka Gutsmek", source_id="bsdata:Orks.cat")
    assert _units(odd, bs) == {frozenset({odd.datasheet_id, bs.datasheet_id}): (
        "unit:orks:wazdakka-gutsmek", "name only")}  # fmt: skip


def test_name_in_two_factions_is_not_guessed() -> None:
    odd = sheet("page_export", "Xenos Hordes", "Malcador")
    am = sheet("wahapedia_csv", "Astra Militarum", "Malcador")
    gc = sheet("wahapedia_csv", "Genestealer Cults", "Malcador")
    assert all(len(ids) == 1 for ids in _units(odd, am, gc))


def test_singular_and_plural_name() -> None:
    bs = sheet("bsdata", "T'au Empire", "Piranha", source_id="bsdata:T'au Empire.cat")
    wh = sheet("wahapedia_csv", "T’au Empire", "Piranhas")
    assert _units(bs, wh) == {
        frozenset({bs.datasheet_id, wh.datasheet_id}): ("unit:tau-empire:piranhas", "singular or spacing")
    }


def test_spacing_of_a_compound_name_keeps_the_spaced_id() -> None:
    """Both Legends (a BSData tag, a Wahapedia Legends publication): one unit, named `hell-blade`
    whichever source is present (docs/ids.md#unit-ids)."""
    bs = sheet("bsdata", "World Eaters", "Hellblade [Legends]")
    wh = sheet("wahapedia_csv", "World Eaters", "Hell Blade", book="Datasheet: Legends: Heretic Astartes")
    assert _units(bs, wh) == {frozenset({bs.datasheet_id, wh.datasheet_id}): (
        "unit:world-eaters:hell-blade-legends", "singular or spacing")}  # fmt: skip
    assert _units(wh) == {frozenset({wh.datasheet_id}): ("unit:world-eaters:hell-blade-legends", "single source")}


def test_fallbacks_never_merge_two_datasheets_of_one_source() -> None:
    one = sheet("wahapedia_csv", "Tyranids", "Ripper Swarm")
    other = sheet("wahapedia_csv", "Tyranids", "Ripper Swarms")
    assert len(_units(one, other)) == 2


def test_stage_fills_unit_ids_and_is_independent_of_input_order() -> None:
    records: list[Record] = [
        sheet("page_export", "Orks", "Boyz"), sheet("wahapedia_csv", "Orks", "Boyz"),
        sheet("bsdata", "Orks", "Boyz", source_id="bsdata:Orks.cat"), sheet("wahapedia_csv", "Orks", "Gretchin"),
    ]  # fmt: skip
    forward = reconcile_stage(Dataset(records))
    backward = reconcile_stage(Dataset(reversed(records)))

    def ids(dataset: Dataset) -> dict[str, str | None]:
        return {s.datasheet_id: s.unit_id for s in dataset.records(Datasheet)}

    assert ids(forward.dataset) == ids(backward.dataset)
    assert set(ids(forward.dataset).values()) == {"unit:orks:boyz", "unit:orks:gretchin"}
    assert (forward.report.units, forward.report.units_by_source_count) == (2, {1: 1, 3: 1})
    assert len(forward.dataset.records(Unit)) == 2


def test_stage_leaves_its_input_as_it_was() -> None:
    """The stage sets unit ids and fills the page's statline in a new dataset, not in the one it was given."""
    page, wh = sheet("page_export", "Orks", "Boss"), sheet("wahapedia_csv", "Orks", "Boss")
    records: list[Record] = [page, wh, profile(page, invuln=6), statline(wh), points(wh, 1, 80)]
    dataset = Dataset(records)
    before = {name: (rows, copy.deepcopy(rows)) for name, rows in dataset.tables()}
    reconciled = reconcile_stage(dataset)
    filled = next(p for p in reconciled.dataset.records(ModelProfile) if p.datasheet_id == page.datasheet_id)
    assert (filled.toughness, filled.invuln, filled.stats_from) == (
        4,
        6,
        f"{wh.source_id}: movement, toughness, save, wounds, leadership, oc",
    )
    assert {s.unit_id for s in reconciled.dataset.records(Datasheet)} == {"unit:orks:boss"}
    assert dataset.records(ModelProfile)[0].toughness is None
    assert {s.unit_id for s in dataset.records(Datasheet)} == {None}
    assert sorted(name for name, _ in dataset.tables()) == ["datasheets", "model_profiles", "points"]
    for name, rows in dataset.tables():
        same, copied = before[name]
        assert rows is same and rows == copied, name
