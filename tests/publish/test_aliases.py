"""`id_aliases`: ids changed since the previous release, merges, earlier aliases followed."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from pipeline.publish.aliases import RENAMED, SPLIT, with_id_aliases
from pipeline.publish.outdir import ReleaseInfo
from pipeline.publish.previous import PreviousRelease
from pipeline.store.ddl import table_schema
from schemas.golden import IdAlias

OLD, NEW = "v000000000001", "v000000000002"


def _aliases(rows: list[tuple[str, str, str, str, str]]) -> pl.DataFrame:
    frame = pl.DataFrame(rows, schema=["old_id", "new_id", "kind", "since_version", "reason"], orient="row")
    extra = frame.with_columns(pl.lit(None, pl.String).alias("source_id"), pl.lit(None, pl.Int64).alias("line"))
    return extra.select([pl.col(c).cast(t) for c, t in table_schema(IdAlias).items()])


def _units(rows: dict[str, list[str]]) -> pl.DataFrame:
    return pl.DataFrame({"unit_id": list(rows), "datasheet_ids": list(rows.values())})


def _previous(folder: Path) -> PreviousRelease:
    folder.mkdir()
    _units(
        {"unit:a:x": ["d1"], "unit:a:y": ["d2", "d3"], "unit:a:gone": ["d9"], "unit:a:w": ["d4", "d5"]}
    ).write_parquet(folder / "units.parquet")
    earlier = [("unit:a:older", "unit:a:x", "unit", OLD, RENAMED), ("wh:1", "strat:core:x", "stratagem", OLD, "merged")]
    _aliases(earlier).write_parquet(folder / "id_aliases.parquet")
    return PreviousRelease(folder, OLD)


def test_changed_ids_are_aliased_and_earlier_aliases_followed(tmp_path: Path) -> None:
    frames = {
        "units": _units(
            {"unit:a:x2": ["d1"], "unit:a:y": ["d2"], "unit:a:z": ["d3"], "unit:a:w1": ["d4"], "unit:a:w2": ["d5"]}
        ),
        "stratagems": pl.DataFrame({"stratagem_id": ["strat:core:x"]}),
        "id_aliases": _aliases(
            [("wh:1", "strat:core:x", "stratagem", "", "merged"), ("wh:2", "strat:core:x", "stratagem", "", "merged")]
        ),
    }
    rows = with_id_aliases(frames, _previous(tmp_path / "old"), NEW)["id_aliases"]
    found = {(r["old_id"], r["new_id"]): (r["since_version"], r["reason"]) for r in rows.to_dicts()}
    assert found == {
        ("unit:a:x", "unit:a:x2"): (NEW, RENAMED),
        ("unit:a:older", "unit:a:x2"): (OLD, RENAMED),  # followed through this release's rename
        ("unit:a:w", "unit:a:w1"): (NEW, SPLIT),
        ("unit:a:w", "unit:a:w2"): (NEW, SPLIT),
        ("wh:1", "strat:core:x"): (OLD, "merged"),  # first seen in the previous release
        ("wh:2", "strat:core:x"): (NEW, "merged"),
    }


def test_without_a_previous_release_only_this_releases_merges(tmp_path: Path) -> None:
    frames = {
        "units": _units({"unit:a:x": ["d1"]}),
        "stratagems": pl.DataFrame({"stratagem_id": ["strat:core:x"]}),
        "id_aliases": _aliases([("wh:1", "strat:core:x", "stratagem", "", "merged")]),
    }
    rows = with_id_aliases(frames, None, NEW)["id_aliases"]
    assert rows.select("old_id", "new_id", "since_version").rows() == [("wh:1", "strat:core:x", NEW)]


def test_the_previous_release_is_read_from_the_output_folder(tmp_path: Path) -> None:
    out = tmp_path / "out"
    (out / NEW).mkdir(parents=True)
    _units({"unit:a:x": ["d1"]}).write_parquet(out / NEW / "units.parquet")
    info = ReleaseInfo(name=NEW, version=NEW, sequence=2, previous=OLD, row_counts={}, curated={})
    previous = PreviousRelease.of(out, info)
    assert previous == PreviousRelease((out / NEW).resolve(), NEW)
    assert previous.table("units") is not None and previous.table("id_aliases") is None
    assert PreviousRelease.of(out, None) is None
