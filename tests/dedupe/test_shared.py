"""Merging page-independent ids (stratagems repeated by every page) and the dedupe stage."""

from __future__ import annotations

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
    dataset = Dataset(seed_records())
    report = dedupe_stage(dataset)
    assert {k: report[k] for k in ("blocks_seen", "distinct_rules", "variants", "conflicts")} == {
        "blocks_seen": 174,
        "distinct_rules": 108,
        "variants": 5,
        "conflicts": 0,
    }
    assert report["collapsed"] == {"stratagems": 17, "detachment_abilities": 0}
    counts = dataset.counts()
    assert (counts["stratagems"], counts["rules"], counts["rule_occurrences"]) == (52, 108, 174)
