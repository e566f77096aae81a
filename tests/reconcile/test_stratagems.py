"""One stratagem per distinct stratagem across sources; type and detachment in one vocabulary."""

from __future__ import annotations

import pytest

from pipeline.dataset import Dataset
from pipeline.reconcile.stratagems import merge_stratagems, split_type
from schemas.records import DatasheetStratagem, Record, Source, Stratagem


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Berzerker Warband – Battle Tactic Stratagem", ("Berzerker Warband", "Battle Tactic")),
        ("Core – Epic Deed Stratagem", ("Core", "Epic Deed")),
        ("Core Stratagem – Strategic Ploy Stratagem", ("Core", "Strategic Ploy")),
        ("Battle Tactic", (None, "Battle Tactic")),
        ("", (None, None)),
        (None, (None, None)),
    ],
)
def test_type_labels(label: str | None, expected: tuple[str | None, str | None]) -> None:
    assert split_type(label) == expected


def _rows() -> list[Record]:
    wh = "wahapedia_csv:Stratagems.csv"
    return [
        Source(source_id=wh, format="wahapedia_csv", path="Stratagems.csv", sha256="0" * 64, rows_in=3,
               rows_curated=3, rows_quarantined=0, source_date="2025-07-09"),
        Stratagem(stratagem_id="wh:1", name="COMMAND RE-ROLL", cp=1, type="Core – Battle Tactic Stratagem",
                  effect="Re-roll it.", source_id=wh),
        Stratagem(stratagem_id="wh:2", name="COMMAND RE-ROLL", cp=1, type="Boarding Actions – Epic Deed Stratagem",
                  source_id=wh),
        Stratagem(stratagem_id="strat:core:command-re-roll", name="COMMAND RE-ROLL", cp=1, detachment="Core",
                  type="Battle Tactic", effect="Re-roll that roll.", source_id="page_export:a.txt"),
        Stratagem(stratagem_id="wh:3", name="BLOOD OFFERING", cp=1, detachment="Berzerker Warband",
                  type="Berzerker Warband – Epic Deed Stratagem", source_id=wh),
        DatasheetStratagem(datasheet_id="wh:9", stratagem_id="wh:1"),
        DatasheetStratagem(datasheet_id="page:x", stratagem_id="strat:core:command-re-roll"),
        DatasheetStratagem(datasheet_id="wh:9", stratagem_id="wh:3"),
    ]  # fmt: skip


def test_the_same_stratagem_of_two_sources_is_one_row_with_the_freshest_text() -> None:
    merged = merge_stratagems(Dataset(_rows()))
    rows = {s.stratagem_id: s for s in merged.stratagems}
    assert sorted(rows) == ["strat:berzerker-warband:blood-offering", "strat:boarding-actions:command-re-roll",
                            "strat:core:command-re-roll"]  # fmt: skip
    core = rows["strat:core:command-re-roll"]
    assert (core.detachment, core.type, core.type_source, core.effect) == (
        "Core", "Battle Tactic", "Core – Battle Tactic Stratagem", "Re-roll it.")  # fmt: skip
    assert core.sources == ["page_export:a.txt", "wahapedia_csv:Stratagems.csv"]
    assert core.provenance["effect"].startswith("wahapedia_csv:Stratagems.csv (freshest source (2025-07-09")
    assert core.provenance["cp"] == "wahapedia_csv:Stratagems.csv (2 sources agree)"
    assert rows["strat:berzerker-warband:blood-offering"].type == "Epic Deed"
    links = {(link.datasheet_id, link.stratagem_id) for link in merged.links}
    assert links == {("wh:9", "strat:core:command-re-roll"), ("page:x", "strat:core:command-re-roll"),
                     ("wh:9", "strat:berzerker-warband:blood-offering")}  # fmt: skip
    assert {(a.old_id, a.new_id, a.kind) for a in merged.aliases} == {
        ("wh:1", "strat:core:command-re-roll", "stratagem"),
        ("wh:2", "strat:boarding-actions:command-re-roll", "stratagem"),
        ("wh:3", "strat:berzerker-warband:blood-offering", "stratagem"),
    }
