"""The matchups stage's part cache (`pipeline/matchups/incremental.py`, docs/units.md#partitions): files and
pieces keyed by their content, a warm run publishing the bytes of a cold one, and a change to one unit
recomputing only the parts that read it."""

from __future__ import annotations

import hashlib
import io
from collections import Counter
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import polars as pl
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from pipeline import config
from pipeline.cache.parts import PartCache
from pipeline.damage.reference import reference_targets_frame
from pipeline.matchups import incremental, partition
from pipeline.matchups.fork_executor import ForkExecutor
from pipeline.matchups.incremental import MATCHUPS_KIND, VS_REFERENCE_KIND, MatchupPartKeys, vs_reference_keys
from pipeline.matchups.pair_table import write_file
from pipeline.matchups.partition import MatchupInputs, compute_matchup_parts, write_partitions
from pipeline.matchups.reference import _phase_table, reference_units, unit_vs_reference
from pipeline.matchups.sides import UnitOption, attached
from pipeline.matchups.stage import matchup_options
from pipeline.units.model import AttackEntry, Phase, TargetUnit
from tests.matchups.test_fork_executor import _frames
from tests.units.builders import group, side, weapon

# three real target factions (152 targets; the pages add two factions of one attacker each), families across
# factions, and Leaders attached to Bodyguards (two lines under Precision)
CATALOGUES = ("Chaos - Chaos Knights.cat", "Imperium - Adeptus Mechanicus.cat", "Chaos - World Eaters.cat")
MAX_PAIRS = 2_000  # 11 attackers a chunk (170 targets): 18 chunks, 54 files per scenario
SCENARIOS = ("default", "cover")
CHANGED_UNIT = "unit:world-eaters:khorne-berzerkers"


@pytest.fixture(scope="module")
def options(bsdata_dir: Path) -> list[UnitOption]:
    """The catalogues' options, and per faction its first two one-model CHARACTERs each attached to the first
    three other options of the faction (the catalogues alone give no Leader pairs)."""
    every = list(matchup_options(_frames([config.RAW_PAGES_DIR, *(bsdata_dir / c for c in CATALOGUES)])))
    pairs = []
    for faction in sorted({o.faction_slug for o in every}):
        own = [o for o in every if o.faction_slug == faction and o.target is not None]
        leaders = [o for o in own if o.models == 1 and o.target is not None and o.target.groups[0].character]
        bodies = [o for o in own if o.target is not None and not o.target.groups[0].character]
        pairs += [attached(leader, body) for leader in leaders[:2] for body in bodies[:3]]
    return every + pairs


def _tougher(option: UnitOption) -> UnitOption:
    """The option with its first model group one Toughness higher (as a target and, attached, as a Bodyguard)."""
    assert option.target is not None
    first, *rest = option.target.groups
    target = replace(option.target, groups=(replace(first, toughness=first.toughness + 1), *rest))
    return replace(option, target=target)


def _changed(options: Sequence[UnitOption], unit: str = CHANGED_UNIT) -> list[UnitOption]:
    """Every option of one unit (and each attached unit it is the Bodyguard of) tougher; its bolt pistols AP-1."""
    changed = []
    for option in options:
        if option.unit_id == unit or option.unit_id.endswith("+" + unit):
            option = _tougher(option)
            sides = {p: replace(s, entries=tuple(_ap(e) for e in s.entries)) for p, s in option.sides.items()}
            option = replace(option, sides=sides)
        changed.append(option)
    return changed


def _ap(entry: AttackEntry) -> AttackEntry:
    return replace(entry, choices=tuple(replace(w, ap=w.ap - 1) for w in entry.choices))


def _digests(folder: Path) -> dict[str, str]:
    return {str(p.relative_to(folder)): hashlib.sha256(p.read_bytes()).hexdigest() for p in folder.rglob("*.parquet")}


def _bytes(table: pa.Table) -> bytes:
    """The bytes of `table` as a `unit_matchups` file."""
    sink = io.BytesIO()
    write_file(table, sink)
    return sink.getvalue()


def test_the_layout_is_one_file_per_chunk_and_target_faction(options: list[UnitOption], tmp_path: Path) -> None:
    inputs = MatchupInputs(options, max_pairs=MAX_PAIRS)
    keys = inputs.keys(["default"])
    written = write_partitions(inputs, keys, tmp_path)
    assert inputs.target_factions == ("adeptus-mechanicus", "chaos-knights", "world-eaters")
    assert len(keys) == 18 and len(written) == 54 == len(_digests(tmp_path))
    assert sorted(w.path for w in written) == sorted(k.path(f) for k in keys for f in inputs.target_factions)
    assert (tmp_path / keys[0].path("chaos-knights")).is_file()  # .../attacker_faction=<a>/part-<n>-<t>.parquet
    # the store's glob and hive partitioning read them as one table: every attacker against every target
    table = pl.read_parquet(tmp_path / "unit_matchups" / "*" / "*" / "*.parquet", hive_partitioning=True)
    armed = {p: sum(p in o.sides for o in options) for p in Phase}
    assert table.height == sum(w.rows for w in written) == sum(armed.values()) * len(inputs.targets)
    key = ["attacker_unit_id", "attacker_models", "target_unit_id", "target_models", "phase"]
    assert table.unique(key).height == table.height


def test_the_chunk_size_moves_only_when_the_targets_cross_a_step() -> None:
    def size(targets: int) -> int:
        option = UnitOption("u", "U", "F", 1, 1.0, TargetUnit((group(1),)), {})
        return MatchupInputs([option] * targets, max_pairs=500_000).chunk_size()

    assert [size(n) for n in (4_742, 4_800, 4_864)] == [102, 102, 102]  # 4,742 targets count as 19 x 256
    assert size(4_865) == 500_000 // 5_120 and size(21) == 500_000 // 21 and size(0) == 500_000


def test_a_faction_alone_gives_its_rows_of_the_call_on_every_target(options: list[UnitOption]) -> None:
    """The basis of the cache: each target faction's rows, computed with only that faction's targets and its
    helpers (the family members its pairs are solved on), are the bytes of the call on every target."""
    inputs = MatchupInputs(options, max_pairs=MAX_PAIRS)
    parts = MatchupPartKeys(inputs)
    helped = 0
    for key in inputs.keys(["default"]):
        whole = compute_matchup_parts(inputs, key)
        content = parts.of(key)
        for faction in inputs.target_factions:
            helpers = tuple(sorted(content[faction].helpers))
            helped += bool(helpers)
            alone = compute_matchup_parts(inputs, replace(key, target_factions=(faction,), helpers=helpers))
            assert _bytes(alone[faction]) == _bytes(whole[faction]), (key, faction)
    assert helped > 0  # representatives outside the faction were needed


def test_warm_cache_after_a_change_gives_the_cold_files(options: list[UnitOption], tmp_path: Path) -> None:
    before = MatchupInputs(options, max_pairs=MAX_PAIRS)
    keys = before.keys(SCENARIOS)
    folder = tmp_path / "cache"
    first = write_partitions(before, keys, tmp_path / "first", cache=PartCache(folder, MATCHUPS_KIND))
    assert not any(w.reused for w in first)
    after = MatchupInputs(_changed(options), max_pairs=MAX_PAIRS)
    assert after.keys(SCENARIOS) == keys  # a stat change moves no chunk
    cold = write_partitions(after, keys, tmp_path / "cold")  # no cache: what a run without one publishes
    cache = PartCache(folder, MATCHUPS_KIND)
    warm = write_partitions(after, keys, tmp_path / "warm", cache=cache)
    assert _digests(tmp_path / "warm") == _digests(tmp_path / "cold")
    assert sorted((w.path, w.rows) for w in warm) == sorted((w.path, w.rows) for w in cold)
    # recomputed: the chunk the unit attacks in (every target faction), its faction's files (every chunk),
    # and files whose pairs are solved on one of its options (a larger member of their family)
    changed = {i for i, o in enumerate(after.targets) if CHANGED_UNIT in o.unit_id}
    reads = set()
    for key in keys:
        holds = any(CHANGED_UNIT in o.unit_id for o in after.chunk_attackers(key))
        for faction, content in MatchupPartKeys(after).of(key).items():
            if holds or faction == "world-eaters" or content.helpers & changed:
                reads.add(key.path(faction))
    recomputed = {w.path for w in warm if not w.reused}
    assert recomputed <= reads and len(recomputed) >= 2 * (18 + 3 - 1)  # WE's column, the unit's chunk
    assert sum(w.reused for w in warm) == len(warm) - len(recomputed) > 30
    for w in warm:
        if w.reused:
            assert (tmp_path / "first" / w.path).read_bytes() == (tmp_path / "warm" / w.path).read_bytes()
    assert len(cache.used) == len(warm) and cache.prune() == len(recomputed)  # the first run's versions go


def _costed(options: Sequence[UnitOption], unit: str, per_model: float | None) -> list[UnitOption]:
    """Every option of one unit (and each attached unit holding it) costing `per_model` more a model (None:
    nothing at all, so its points columns become null): option, attack sides and model groups alike."""

    def group_cost(points: float) -> float:
        return 0.0 if per_model is None else points + per_model

    changed = []
    for option in options:
        if option.unit_id == unit or f"+{unit}" in option.unit_id or option.unit_id.startswith(f"{unit}+"):
            cost = 0.0 if per_model is None else option.cost + per_model * option.models
            sides = {p: replace(s, points=cost) for p, s in option.sides.items()}
            target = option.target
            if target is not None:
                groups = tuple(replace(g, points=group_cost(g.points)) for g in target.groups)
                target = replace(target, groups=groups, leader=tuple(replace(g, points=group_cost(g.points))
                                                                     for g in target.leader))  # fmt: skip
            option = replace(option, cost=cost, sides=sides, target=target)
        changed.append(option)
    return changed


@pytest.mark.parametrize("workers", [1, 2])
def test_a_points_change_recosts_its_files_to_the_cold_bytes(
    options: list[UnitOption], tmp_path: Path, workers: int
) -> None:
    """A change of costs alone re-costs the files that read them from the cached basis: no file computed, the
    bytes of a cold run; a second change re-costs from the file the first one wrote. 2 workers: the files are
    re-costed on two forked processes, as a run does."""
    free = next(o.unit_id for o in options if o.faction_slug == "chaos-knights" and o.target and o.sides)
    before = MatchupInputs(options, max_pairs=MAX_PAIRS)
    keys = before.keys(["default"])
    folder = tmp_path / "cache"

    def run(new: Sequence[UnitOption], name: str, cached: bool = True) -> list[partition.WrittenPartition]:
        caches = (PartCache(folder, MATCHUPS_KIND), PartCache(folder, incremental.BASIS_KIND)) if cached else ()
        executor = ForkExecutor(workers)
        written = write_partitions(MatchupInputs(new, max_pairs=MAX_PAIRS), keys, tmp_path / name, executor, *caches)
        for cache in caches:  # as a run does once it has published
            cache.prune()
        return written

    first = run(options, "first")
    assert len(list((folder / "parts" / incremental.BASIS_KIND).glob("*.bin"))) == len(first) == 54
    dearer = _costed(_costed(options, CHANGED_UNIT, 5.0), free, None)
    assert run(dearer, "cold", cached=False) and not any(w.reused or w.recosted for w in run(dearer, "cold2", False))
    warm = run(dearer, "warm")
    assert _digests(tmp_path / "warm") == _digests(tmp_path / "cold")
    recosted = {w.path for w in warm if w.recosted}
    assert not [w for w in warm if not (w.reused or w.recosted)]  # nothing computed
    reads = {
        k.path(f)
        for k in keys
        for f in before.target_factions
        if f in {"world-eaters", "chaos-knights"}
        or any(o.unit_id in (CHANGED_UNIT, free) or "+" in o.unit_id for o in before.chunk_attackers(k))
    }
    assert recosted <= reads and len(recosted) >= 18 + 18  # at least the two factions' columns
    nulls = pq.read_table(tmp_path / "warm" / keys[0].path("chaos-knights"))
    free_rows = pa.compute.equal(nulls["target_unit_id"], free)
    assert nulls.filter(free_rows)["points_destroyed"].null_count == pa.compute.sum(free_rows).as_py() > 0
    back = run(options, "back")  # the old costs again: re-costed from the files the warm run wrote
    assert _digests(tmp_path / "back") == _digests(tmp_path / "first")
    assert {w.path for w in back if w.recosted} == recosted and all(w.reused or w.recosted for w in back)


def test_a_basis_that_does_not_fit_is_ignored_and_the_file_computed(options: list[UnitOption], tmp_path: Path) -> None:
    inputs = MatchupInputs(options[:40], max_pairs=MAX_PAIRS)
    keys = inputs.keys(["default"])
    folder = tmp_path / "cache"
    caches = (PartCache(folder, MATCHUPS_KIND), PartCache(folder, incremental.BASIS_KIND))
    write_partitions(inputs, keys, tmp_path / "first", None, *caches)
    for blob in list((folder / "parts" / incremental.BASIS_KIND).glob("*.bin")):  # each basis one row short
        found = caches[1].get(blob.stem)
        assert found is not None and found[1].meta["file"]
        caches[1].keep_bytes(blob.stem, partition.parquet_bytes(pq.read_table(blob).slice(1)), found[1].meta)
    dearer = MatchupInputs(_costed(options[:40], options[0].unit_id, 1.0), max_pairs=MAX_PAIRS)
    caches = (PartCache(folder, MATCHUPS_KIND), PartCache(folder, incremental.BASIS_KIND))
    with pytest.warns(UserWarning, match="cache basis ignored, recomputing: .*basis rows for"):
        again = write_partitions(dearer, keys, tmp_path / "again", None, *caches)
    assert not any(w.recosted for w in again) and sum(not w.reused for w in again) > 0
    write_partitions(dearer, keys, tmp_path / "fresh")
    assert _digests(tmp_path / "again") == _digests(tmp_path / "fresh")


def test_the_plan_is_kept_and_read_back_while_the_targets_read_the_same(
    options: list[UnitOption], tmp_path: Path
) -> None:
    """The plan's `solved_on` results are cached by the targets' reads (no costs) and the attackers' Anti
    keywords: a points change reads them back and gives the keys computing gives; a Toughness change does not."""
    inputs = MatchupInputs(options, max_pairs=MAX_PAIRS)
    keys = inputs.keys(["default"])

    def contents(new: Sequence[UnitOption], plans: PartCache | None) -> list[dict[str, incremental.PartContent]]:
        parts = MatchupPartKeys(MatchupInputs(new, max_pairs=MAX_PAIRS), plans)
        return [parts.of(k) for k in keys]

    first = PartCache(tmp_path, incremental.PLAN_KIND)
    assert contents(options, first) == contents(options, None)
    assert len(first.kept) == len(list((tmp_path / "parts" / incremental.PLAN_KIND).glob("*.json"))) > 1
    dearer = _costed(options, CHANGED_UNIT, 5.0)
    again = PartCache(tmp_path, incremental.PLAN_KIND)
    assert contents(dearer, again) == contents(dearer, None) != contents(options, None)
    assert again.kept == set() and again.used == first.kept  # every plan read back
    tougher = PartCache(tmp_path, incremental.PLAN_KIND)
    assert contents(_changed(options), tougher) == contents(_changed(options), None)
    assert tougher.kept and tougher.kept.isdisjoint(first.kept) and tougher.used == tougher.kept
    # a plan the original options read (not one only the tougher targets' run kept)
    blob = (tmp_path / "parts" / incremental.PLAN_KIND / f"{min(first.kept)}.json").with_suffix(".bin")
    blob.write_bytes(blob.read_bytes()[:-1] + b"x")
    with pytest.warns(UserWarning, match="cache part ignored"):
        assert contents(options, PartCache(tmp_path, incremental.PLAN_KIND)) == contents(options, None)


def test_a_changed_field_changes_exactly_the_keys_that_read_it(options: list[UnitOption]) -> None:
    inputs = MatchupInputs(options, max_pairs=MAX_PAIRS)
    keys = inputs.keys(["default"])
    base = {(k.attacker_faction, k.chunk, f): c.key for k in keys for f, c in MatchupPartKeys(inputs).of(k).items()}

    def changed(new: list[UnitOption], scenario: str = "default", dist: bool = False) -> set[tuple[str, int, str]]:
        edited = MatchupPartKeys(MatchupInputs(new, max_pairs=MAX_PAIRS, keep_distribution=dist))
        return {
            (k.attacker_faction, k.chunk, f)
            for k in keys
            for f, content in edited.of(replace(k, scenario=scenario)).items()
            if content.key != base[(k.attacker_faction, k.chunk, f)]
        }

    index = next(i for i, o in enumerate(options) if o.faction_slug == "chaos-knights" and o.target and o.sides)
    option = options[index]
    (chunk,) = [k for k in keys if option in inputs.chunk_attackers(k)]
    its_chunk = {(chunk.attacker_faction, chunk.chunk, f) for f in inputs.target_factions}
    its_column = {(k.attacker_faction, k.chunk, "chaos-knights") for k in keys}

    def with_option(new: UnitOption) -> list[UnitOption]:
        return [new if i == index else o for i, o in enumerate(options)]

    phase = next(iter(option.sides))
    entries = option.sides[phase].entries
    ap = replace(entries[0], choices=(replace(entries[0].choices[0], ap=entries[0].choices[0].ap - 1),))
    sides = {**option.sides, phase: replace(option.sides[phase], entries=(ap, *entries[1:]))}
    points = {p: replace(s, points=s.points + 5) for p, s in option.sides.items()}
    assert changed(with_option(replace(option, sides=sides))) == its_chunk  # read as an attacker only
    assert changed(with_option(replace(option, cost=option.cost + 5, sides=points))) == its_chunk | its_column
    assert changed(with_option(replace(option, name="Renamed", faction="Chaos Knights"))) == set()  # not read
    tougher = changed(with_option(_tougher(option)))  # read as a target, and by the files solved on it
    t = next(i for i, o in enumerate(inputs.targets) if o is option)
    after = MatchupPartKeys(MatchupInputs(with_option(_tougher(option)), max_pairs=MAX_PAIRS))
    solved_on_it = {
        (k.attacker_faction, k.chunk, f)
        for k in keys
        for parts in (MatchupPartKeys(inputs), after)
        for f, c in parts.of(k).items()
        if t in c.helpers
    }
    assert its_column <= tougher <= its_column | solved_on_it
    assert changed(options, scenario="cover") == set(base) == changed(options, dist=True)
    assert changed(list(options)) == set()  # the same content: the same keys (a fresh digest, fresh signatures)


GUNS = (
    weapon("a", attacks="2D6", skill=3, strength="6", ap=-1, damage="D3"),
    weapon("b", attacks="D6+1", skill=4, strength="5", ap=-2, damage="2", sustained_hits="1"),
    weapon("c", attacks="3", skill=2, strength="8", ap=-3, damage="D6", devastating_wounds=True),
)


def _option(unit: str, faction: str, models: int, toughness: int = 5) -> UnitOption:
    """A one-profile unit of `models` W3 models (FNP 6+) that shoots three guns."""
    target = TargetUnit((group(models, wounds=3, save=4, toughness=toughness, fnp=6, points=10.0),), name=unit)
    shooting = side((5, GUNS[0]), (2, GUNS[1]), (1, GUNS[2]), points=10.0 * models)
    return UnitOption(unit, unit, faction, models, 10.0 * models, target, {Phase.SHOOTING: shooting})


def test_a_family_member_in_another_faction_is_a_helper_and_in_the_key() -> None:
    """Faction A's 5-model unit is solved on faction B's 10-model unit of the same profile (its family's largest
    member): B's unit is a helper of A's files and in their key; its points are not (the defence has none)."""
    a, b = _option("unit:a:squad", "A", 5), _option("unit:b:squad", "B", 10)
    inputs = MatchupInputs([a, b])
    (key,) = [k for k in inputs.keys(["default"]) if k.attacker_faction == "a"]
    content = MatchupPartKeys(inputs).of(key)
    assert content["a"].helpers == {1} and content["b"].helpers == frozenset()
    whole = compute_matchup_parts(inputs, key)
    alone = compute_matchup_parts(inputs, replace(key, target_factions=("a",), helpers=(1,)))
    assert _bytes(alone["a"]) == _bytes(whole["a"])
    # without its representative the 5 models are solved on their own: the same numbers to 1e-13, other bits
    bare = compute_matchup_parts(inputs, replace(key, target_factions=("a",), helpers=()))["a"]
    assert _bytes(bare) != _bytes(whole["a"])
    assert bare["models_slain"].to_pylist() == pytest.approx(whole["a"]["models_slain"].to_pylist(), abs=1e-13)

    def key_a(b_option: UnitOption) -> str:
        return MatchupPartKeys(MatchupInputs([a, b_option])).of(key)["a"].key

    assert key_a(replace(b, cost=b.cost + 1, name="renamed")) == content["a"].key  # not read by A's file
    assert key_a(_tougher(b)) != content["a"].key  # no longer A's family: A is solved on itself
    assert key_a(_option("unit:b:squad", "B", 20)) != content["a"].key  # another representative


def test_vs_reference_pieces_warm_equal_cold(options: list[UnitOption], tmp_path: Path) -> None:
    references = reference_units(reference_targets_frame().to_dicts())
    scenarios = ("default", "charged")
    folder = tmp_path / "cache"
    first = unit_vs_reference(options, references, scenarios, 2, PartCache(folder, VS_REFERENCE_KIND))
    assert unit_vs_reference(options, references, scenarios, 1).equals(first)  # the cache changes nothing
    after = _changed(options)
    cold = unit_vs_reference(after, references, scenarios, 1)
    cache = PartCache(folder, VS_REFERENCE_KIND)
    warm = unit_vs_reference(after, references, scenarios, 2, cache)
    assert _bytes(warm) == _bytes(cold) and warm.schema == cold.schema
    assert not warm.equals(first)
    golden = [o for o in after if "+" not in o.unit_id]
    keys = vs_reference_keys(golden, references, scenarios)
    assert len(keys) == 5 and cache.kept == {keys["world-eaters"]}  # the pages' two, CK, AdMech: read back
    assert cache.used == set(keys.values()) and cache.prune() == 1


def test_a_faction_alone_gives_its_vs_reference_rows_of_every_faction(options: list[UnitOption]) -> None:
    """Without dense operators a job's numbers do not depend on the other attackers of the call."""
    references = reference_units(reference_targets_frame().to_dicts())
    golden = [o for o in options if "+" not in o.unit_id]
    for scenario in ("default", "half_range"):
        for phase in Phase:
            whole = _phase_table(golden, references, scenario, phase)
            assert whole is not None
            for faction in sorted({o.faction_slug for o in golden}):
                alone = _phase_table([o for o in golden if o.faction_slug == faction], references, scenario, phase)
                rows = whole.filter(pa.compute.equal(whole["attacker_faction"], faction))
                assert _bytes(rows) == (_bytes(alone) if alone is not None else _bytes(rows.slice(0, 0)))


def test_vs_reference_keys_read_options_references_and_scenarios(options: list[UnitOption]) -> None:
    references = reference_units(reference_targets_frame().to_dicts())
    golden = [o for o in options if "+" not in o.unit_id]
    base = vs_reference_keys(golden, references, ("default",))
    changed = vs_reference_keys(_changed(golden), references, ("default",))
    assert {f for f in base if base[f] != changed[f]} == {"world-eaters"}
    assert vs_reference_keys(golden, references, ("default", "cover")).keys() == base.keys()
    assert set(vs_reference_keys(golden, references, ("default", "cover")).values()).isdisjoint(base.values())
    fewer = vs_reference_keys(golden, references[:-1], ("default",))
    assert set(fewer.values()).isdisjoint(base.values())
    # the reference units cost nothing, so the pieces' points columns are null and no cost is read...
    assert all(r.cost == 0 for r in references)
    dearer = _costed(golden, CHANGED_UNIT, 5.0)
    assert vs_reference_keys(dearer, references, ("default",)) == base
    # ...unless one costs something: then the attackers' costs give points per 100
    costed = [replace(references[0], cost=10.0), *references[1:]]
    before, after = vs_reference_keys(golden, costed, ("default",)), vs_reference_keys(dearer, costed, ("default",))
    assert {f for f in before if before[f] != after[f]} == {"world-eaters"}


def test_keys_follow_the_code_fingerprint(options: list[UnitOption], monkeypatch: pytest.MonkeyPatch) -> None:
    inputs = MatchupInputs(options[:20], max_pairs=MAX_PAIRS)
    key = inputs.keys(["default"])[0]
    before = MatchupPartKeys(inputs).of(key)
    references = reference_units(reference_targets_frame().to_dicts())[:4]
    pieces = vs_reference_keys(options[:20], references, ("default",))
    monkeypatch.setattr(incremental, "code_fingerprint", lambda: "another version")
    after = MatchupPartKeys(inputs).of(key)
    assert all(before[f].key != after[f].key for f in before)
    assert set(vs_reference_keys(options[:20], references, ("default",)).values()).isdisjoint(pieces.values())
    assert partition.TABLE == MATCHUPS_KIND


def test_a_cached_file_that_changed_is_recomputed(options: list[UnitOption], tmp_path: Path) -> None:
    inputs = MatchupInputs(options[:40], max_pairs=MAX_PAIRS)
    keys = inputs.keys(["default"])
    folder = tmp_path / "cache"
    write_partitions(inputs, keys, tmp_path / "first", cache=PartCache(folder, MATCHUPS_KIND))
    blob = sorted((folder / "parts" / MATCHUPS_KIND).glob("*.bin"))[0]
    blob.write_bytes(blob.read_bytes()[:-1] + b"x")  # in place: the first release's file (a hard link) too
    with pytest.warns(UserWarning, match="cache part ignored"):
        again = write_partitions(inputs, keys, tmp_path / "again", cache=PartCache(folder, MATCHUPS_KIND))
    assert sum(not w.reused for w in again) == 1
    write_partitions(inputs, keys, tmp_path / "fresh")
    assert _digests(tmp_path / "again") == _digests(tmp_path / "fresh")


def test_a_large_faction_is_split_into_stable_target_groups(
    options: list[UnitOption], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Beyond `GROUP_TARGETS` targets a faction's files are split by target group: a power of two of groups,
    an attached option in its Bodyguard's group, and no target moved by adding another."""
    targets = MatchupInputs(options).targets
    counts = Counter(o.faction_slug for o in targets)
    monkeypatch.setattr(partition, "GROUP_TARGETS", 40)
    named = partition.target_groups(targets)
    for faction, count in counts.items():
        found = {n for n, o in zip(named, targets, strict=True) if o.faction_slug == faction}
        if count <= 40:
            assert found == {faction}
        else:
            groups = 1 << ((count - 1) // 40).bit_length()
            assert found <= {f"{faction}.{k}" for k in range(groups)} and len(found) > 1, (faction, count)
    own = dict(zip((o.unit_id for o in targets), named, strict=False))
    attached_ = [(n, o.unit_id.rsplit("+", 1)[1]) for n, o in zip(named, targets, strict=True) if "+" in o.unit_id]
    assert attached_ and all(n == own[body] for n, body in attached_)
    extra = replace(targets[0], unit_id=targets[0].unit_id + "-copy")
    assert partition.target_groups([*targets, extra])[:-1] == named


def test_target_groups_hold_the_rows_of_the_faction_files(
    options: list[UnitOption], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Split or not, the table holds the same rows; a points change of one unit leading none re-costs its chunks'
    files and, of every other chunk, only its group's file (its attached options are in it), to the bytes of a
    cold run."""
    keys = MatchupInputs(options, max_pairs=MAX_PAIRS).keys(["default"])
    write_partitions(MatchupInputs(options, max_pairs=MAX_PAIRS), keys, tmp_path / "whole")
    monkeypatch.setattr(partition, "GROUP_TARGETS", 40)
    inputs = MatchupInputs(options, max_pairs=MAX_PAIRS)
    assert inputs.keys(["default"]) == keys and len(inputs.target_factions) > 3
    folder = tmp_path / "cache"
    caches = (PartCache(folder, MATCHUPS_KIND), PartCache(folder, incremental.BASIS_KIND))
    first = write_partitions(inputs, keys, tmp_path / "split", None, *caches)
    assert len(first) == len(keys) * len(inputs.target_factions)

    def rows(name: str) -> pl.DataFrame:
        table = pl.read_parquet(tmp_path / name / "unit_matchups" / "*" / "*" / "*.parquet", hive_partitioning=True)
        return table.sort(table.columns)

    assert rows("split").equals(rows("whole"))
    leaders = {o.unit_id.split("+")[0] for o in inputs.targets if "+" in o.unit_id}
    unit = next(
        o
        for o in inputs.targets
        if "+" not in o.unit_id and o.unit_id not in leaders and o.sides and o.faction_slug == "world-eaters"
    )
    group = partition.target_groups(inputs.targets)[inputs.targets.index(unit)]
    assert "." in group  # world-eaters is split at 40 targets
    dearer = MatchupInputs(_costed(options, unit.unit_id, 5.0), max_pairs=MAX_PAIRS)
    for cache in caches:
        cache.prune()
    caches = (PartCache(folder, MATCHUPS_KIND), PartCache(folder, incremental.BASIS_KIND))
    warm = write_partitions(dearer, keys, tmp_path / "warm", None, *caches)
    write_partitions(dearer, keys, tmp_path / "cold")
    assert _digests(tmp_path / "warm") == _digests(tmp_path / "cold")
    holding = [k for k in keys if any(unit.unit_id in o.unit_id.split("+") for o in dearer.chunk_attackers(k))]
    expected = {k.path(f) for k in holding for f in inputs.target_factions} | {k.path(group) for k in keys}
    assert {w.path for w in warm if w.recosted} == expected
    assert all(w.reused for w in warm if w.path not in expected)
