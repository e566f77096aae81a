"""Merging page-independent ids (stratagems repeated by every page) and the dedupe stage."""

from __future__ import annotations

import copy

from pipeline.dataset import Dataset
from pipeline.dedupe import merge_shared_records
from pipeline.dedupe.stage import dedupe_stage
from pipeline.sources.page.parser import parse_page
from schemas.records import Record, Stratagem, Weapon
from tests.conftest import AVENGER, INVOCATUS, WAZDAKKA


def seed_records() -> list[Record]:
    return [r for path in (WAZDAKKA, AVENGER, INVOCATUS) for r in parse_page(path).records]


def test_core_stratagems_of_three_pages_collapse_to_one_row_each() -> None:
    records = seed_records()
    result = merge_shared_records(records)
    stratagems = [r for r in result.records if isinstance(r, Stratagem)]
    assert (sum(isinstance(r, Stratagem) for r in records), len(stratagems), result.collapsed) == (69, 52, 17)
    assert result.conflicts == []
    assert len({s.stratagem_id for s in stratagems}) == 52
    reroll = next(s for s in stratagems if s.stratagem_id == "strat:core:command-re-roll")
    assert (reroll.source_id, reroll.line) == ("page_export:000_2e2c183ddf21453e.txt", 36)
    # other tables pass through untouched, in order
    others = [r for r in records if r.TABLE != "stratagems"]
    assert [r for r in result.records if r.TABLE != "stratagems"] == others


def test_nulls_filled_and_conflicts_reported() -> None:
    first = Stratagem(stratagem_id="strat:x:y", name="Y", cp=1, source_id="a")
    second = Stratagem(stratagem_id="strat:x:y", name="Y", cp=2, when="Any phase.", source_id="b")
    result = merge_shared_records([first, second])
    (merged,) = result.records
    assert (merged.cp, merged.when, merged.source_id) == (1, "Any phase.", "a")  # type: ignore[attr-defined]
    (conflict,) = result.conflicts
    assert (conflict.field, conflict.kept, conflict.dropped, conflict.dropped_source) == ("cp", 1, 2, "b")


def test_tables_outside_the_shared_list_are_never_merged() -> None:
    weapon = Weapon(
        weapon_id="w",
        datasheet_id="d",
        name="Gun",
        kind="ranged",
        range_inches=12,
        attacks="1",
        skill=3,
        strength=4,
        ap=0,
        damage="1",
    )
    assert merge_shared_records([weapon, weapon]).records == [weapon, weapon]


def test_dedupe_stage_on_the_seeds() -> None:
    deduped = dedupe_stage(Dataset(seed_records()))
    report = deduped.report.as_dict()
    assert {k: report[k] for k in ("blocks_seen", "distinct_rules", "variants", "conflicts")} == {
        "blocks_seen": 174,
        "distinct_rules": 108,
        "variants": 5,
        "conflicts": 0,
    }
    assert report["collapsed"] == {"stratagems": 17, "detachment_abilities": 0}
    assert report["conflict_details"] == []
    counts = deduped.dataset.counts()
    assert (counts["stratagems"], counts["rules"], counts["rule_occurrences"]) == (52, 108, 174)


def test_dedupe_stage_leaves_its_input_as_it_was() -> None:
    records = seed_records()
    dataset = Dataset(records)
    before = {name: (rows, copy.deepcopy(rows)) for name, rows in dataset.tables()}
    deduped = dedupe_stage(dataset)
    assert len(deduped.dataset.records(Stratagem)) == 52
    assert dataset.counts()["stratagems"] == 69 and "rules" not in dataset.counts()
    for name, rows in dataset.tables():
        same, copied = before[name]
        assert rows is same and rows == copied, name  # same record objects, none changed


def test_conflict_details_name_the_dropped_value_and_its_source() -> None:
    first = Stratagem(stratagem_id="strat:x:y", name="Y", cp=1, source_id="a")
    second = Stratagem(stratagem_id="strat:x:y", name="Y", cp=2, source_id="b")
    report = dedupe_stage(Dataset([first, second])).report.as_dict()
    assert (report["collapsed"]["stratagems"], report["conflicts"]) == (1, 1)
    assert report["conflict_details"] == [
        {"table": "stratagems", "key": ["strat:x:y"], "field": "cp", "kept": 1, "dropped": 2, "dropped_source": "b"}
    ]
