"""Damage-matrix benchmark: the full cross product, timed, against per-cell baselines.

`run_damage_bench(wahapedia_dir)` builds the inputs from the Wahapedia export
through `pipeline.sources.wahapedia` when that parser is importable, else
from synthetic frames of the same shape (`damage_synth.py`), adds the reference
profiles, and prints and returns: cells, wall time of the default scenario
(median), all scenarios written to hive Parquet (median), cells/s, peak RSS, and
per-cell times of a plain-Python implementation and of warhammer-stats 0.1.1 on
a small sample, as ratios to the engine. Run alone: `python -m bench.damage_bench`.
"""

from __future__ import annotations

import random
import resource
import statistics
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import polars as pl
import psutil

from bench.damage_plain import plain_cell
from bench.damage_synth import synthetic_frames
from pipeline.damage import (
    SCENARIOS,
    compute_damage_matrix,
    points_frame,
    prepare_damage,
    reference_targets_frame,
    targets_frame,
    weapon_abilities_frame,
    weapons_frame,
    write_damage_matrix,
)
from pipeline.damage.inputs import WEAPON_ABILITY_SCHEMA
from pipeline.damage.scenarios import SCENARIO_DEFINITIONS
from schemas.dice import parse_dice

RUNS = 3
SAMPLE_PLAIN = 20_000
SAMPLE_WARHAMMER_STATS = 100


def wahapedia_frames(wahapedia_dir: Path) -> dict[str, pl.DataFrame] | None:
    """Frames from the real export via the project's parser (derived defences included, as in a run),
    or None when it is not importable."""
    try:
        from pipeline.sources.registry import read_inputs
    except ImportError:
        return None
    from schemas.records import ModelProfile, Points, Weapon, WeaponAbilityRow

    dataset = read_inputs([Path(wahapedia_dir)]).dataset
    rows = [a.row() for a in dataset.records(WeaponAbilityRow)]
    weapons = dataset.records(Weapon)
    abilities = (
        pl.DataFrame([{k: a.get(k) for k in WEAPON_ABILITY_SCHEMA} for a in rows], schema=WEAPON_ABILITY_SCHEMA)
        if rows
        else weapon_abilities_frame(weapons)  # the parser keeps them as Weapon.typed_abilities
    )
    return {
        "weapons": weapons_frame(weapons),
        "weapon_abilities": abilities,
        "targets": targets_frame(dataset.records(ModelProfile)),
        "points": points_frame(dataset.records(Points)),
    }


@contextmanager
def peak_rss() -> Iterator[dict[str, float]]:
    """Samples this process's RSS every 5 ms; yields a dict filled with `peak_mb` on exit."""
    process, result, stop = psutil.Process(), {"peak_mb": 0.0}, threading.Event()

    def sample() -> None:
        while not stop.is_set():
            result["peak_mb"] = max(result["peak_mb"], process.memory_info().rss / 2**20)
            time.sleep(0.005)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()
    try:
        yield result
    finally:
        stop.set()
        thread.join()


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def _median_seconds(action: Callable[[], object], runs: int = RUNS) -> tuple[float, list[float], list[float]]:
    """(median wall seconds, wall per run, process CPU seconds per run: shows contention on a shared box)."""
    times, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), _cpu_seconds()
        action()
        times.append(time.perf_counter() - start)
        cpu.append(_cpu_seconds() - start_cpu)
    return statistics.median(times), times, cpu


def _weapon_dicts(frames: dict[str, pl.DataFrame], weapon_ids: list[str]) -> dict[str, dict[str, Any]]:
    """Sampled weapons as dicts with parsed abilities, for the per-cell baselines."""
    rows = {r["weapon_id"]: {**r} for r in frames["weapons"].filter(pl.col("weapon_id").is_in(weapon_ids)).to_dicts()}
    flags = (
        "torrent",
        "blast",
        "lethal_hits",
        "devastating_wounds",
        "twin_linked",
        "heavy",
        "lance",
        "ignores_cover",
        "indirect_fire",
        "hazardous",
    )
    for row in rows.values():
        row.update(dict.fromkeys(flags, False), sustained_hits=0.0, rapid_fire=0.0, melta=None, anti={})
    abilities = frames["weapon_abilities"].filter(pl.col("weapon_id").is_in(weapon_ids))
    for a in abilities.iter_rows(named=True):
        row = rows[a["weapon_id"]]
        if a["ability"] in flags:
            row[a["ability"]] = True
        elif a["ability"] in ("sustained_hits", "rapid_fire"):
            row[a["ability"]] = max(row[a["ability"]], parse_dice(a["value"]).mean)
        elif a["ability"] == "melta":
            row["melta"] = a["value"]
        elif a["ability"] == "anti":
            row["anti"][a["keyword"]] = min(row["anti"].get(a["keyword"], 7), int(a["value"].rstrip("+")))
    return rows


def _sample_cells(frames: dict[str, pl.DataFrame], size: int, seed: int) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    rng = random.Random(seed)
    targets = frames["targets"].drop_nulls(["toughness", "save", "wounds"]).to_dicts()
    weapon_ids = frames["weapons"]["weapon_id"].to_list()
    picks = [(rng.choice(weapon_ids), rng.choice(targets)) for _ in range(size)]
    weapons = _weapon_dicts(frames, sorted({w for w, _ in picks}))
    return [(weapons[w], t) for w, t in picks]


def _engine_values(
    frames: dict[str, pl.DataFrame], cells: list[tuple[dict[str, Any], dict[str, Any]]], column: str
) -> list[float]:
    """The engine's default-scenario `column` for each sampled (weapon, target) cell."""
    weapons = frames["weapons"].filter(pl.col("weapon_id").is_in([w["weapon_id"] for w, _ in cells]))
    targets = frames["targets"].filter(pl.col("profile_id").is_in([t["profile_id"] for _, t in cells]))
    matrix = compute_damage_matrix(weapons, frames["weapon_abilities"], targets, frames["points"], ["default"]).matrix
    lookup = {(r[0], r[1]): r[2] for r in matrix.select("weapon_id", "profile_id", column).iter_rows()}
    return [lookup[(w["weapon_id"], t["profile_id"])] for w, t in cells]


def time_plain_python(frames: dict[str, pl.DataFrame], size: int = SAMPLE_PLAIN) -> tuple[float, float]:
    """(seconds per cell, max |plain - engine| of `damage_capped`) on a random sample, default scenario."""
    cells = _sample_cells(frames, size, seed=5)
    scenario = SCENARIO_DEFINITIONS["default"]
    start = time.perf_counter()
    values = [plain_cell(w, t, scenario)["damage_capped"] for w, t in cells]
    per_cell = (time.perf_counter() - start) / len(cells)
    engine = _engine_values(frames, cells[:500], "damage_capped")
    return per_cell, max(abs(a - b) for a, b in zip(engine, values, strict=False))


def _ws_dice(text: str) -> Any:
    from warhammer_stats import PMF, PMFCollection

    d = parse_dice(text)
    dice = [PMF.dn(d.sides)] * d.n if d.n else []
    return PMFCollection(dice + ([PMF.static(d.plus)] if d.plus or not d.n else []))


def time_warhammer_stats(frames: dict[str, pl.DataFrame], size: int = SAMPLE_WARHAMMER_STATS) -> tuple[float, float]:
    """(seconds per matchup of warhammer-stats 0.1.1 `Attack(weapon, target).run()`, statline only;
    max relative difference of its mean damage from the engine's `damage_capped` on ability-free
    weapons against targets without FNP or damage reduction: it caps each attack at the target's W)."""
    from warhammer_stats import Attack, Target, Weapon

    cells = _sample_cells(frames, size, seed=7)
    means = []
    start = time.perf_counter()
    for w, t in cells:
        weapon = Weapon(
            bs=w["skill"] or 2,
            shots=_ws_dice(w["attacks"]),
            strength=int(parse_dice(str(w["strength"])).mean),
            ap=-w["ap"],
            damage=_ws_dice(w["damage"]),
        )
        target = Target(
            toughness=t["toughness"],
            save=t["save"],
            invuln=t["invuln"] or 7,
            fnp=t["fnp"] or 7,
            wounds=t["wounds"],
        )
        means.append(Attack(weapon, target).run().total_damage_dist.mean())
    per_cell = (time.perf_counter() - start) / len(cells)
    plain = [
        i
        for i, (w, t) in enumerate(cells)
        if not w["abilities"]
        and w["skill"]
        and not t["damage_reduction"]
        and not t["fnp"]
        and parse_dice(str(w["strength"])).n == 0  # warhammer-stats takes a fixed Strength only
    ]
    engine = _engine_values(frames, [cells[i] for i in plain], "damage_capped")
    diffs = [abs(means[i] - e) / max(e, 1e-9) for i, e in zip(plain, engine, strict=False)]
    return per_cell, max(diffs, default=float("nan"))


def _load(wahapedia_dir: Path) -> tuple[dict[str, pl.DataFrame], str]:
    frames = wahapedia_frames(wahapedia_dir)
    source = "wahapedia_csv parser"
    if frames is None:
        frames, source = synthetic_frames(), "synthetic (Wahapedia-shaped; parser not importable)"
    frames["targets"] = pl.concat([frames["targets"], reference_targets_frame()])
    return frames, source


def run_damage_bench(wahapedia_dir: Path) -> dict[str, Any]:
    """Run the damage benchmark, print its figures, return them."""
    frames, source = _load(Path(wahapedia_dir))
    args = (frames["weapons"], frames["weapon_abilities"], frames["targets"], frames["points"])
    with peak_rss() as memory, tempfile.TemporaryDirectory() as tmp:
        default_s, default_runs, default_cpu = _median_seconds(
            lambda: compute_damage_matrix(*args, scenarios=["default"])
        )
        parquet_s, parquet_runs, parquet_cpu = _median_seconds(lambda: write_damage_matrix(*args, Path(tmp), SCENARIOS))
        parquet_mb = sum(p.stat().st_size for p in Path(tmp).rglob("*.parquet")) / 2**20
    report = prepare_damage(*args, scenarios=["default"]).report
    all_report = prepare_damage(*args).report
    plain_s, plain_diff = time_plain_python(frames)
    ws_s, ws_diff = time_warhammer_stats(frames)
    engine_cell = default_s / report.cells_per_scenario
    figures = {
        "source": source, "weapons": report.weapons, "targets": report.targets,
        "weapon_profiles": report.weapon_profiles, "defensive_profiles": report.defensive_profiles,
        "skipped_targets": len(report.skipped_targets), "cells_per_scenario": report.cells_per_scenario,
        "default_seconds": default_s, "default_runs": default_runs, "default_cpu": default_cpu,
        "all_scenarios_parquet_seconds": parquet_s, "parquet_runs": parquet_runs, "parquet_cpu": parquet_cpu,
        "parquet_mb": parquet_mb,
        "computed_cells_default": report.computed_cells, "computed_cells_all": all_report.computed_cells,
        "effective_weapon_profiles_all": all_report.effective_weapon_profiles,
        "cells_per_second": report.cells_per_scenario / default_s,
        "peak_rss_mb": memory["peak_mb"],
        "ru_maxrss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "engine_us_per_cell": engine_cell * 1e6, "plain_python_us_per_cell": plain_s * 1e6,
        "plain_python_max_abs_diff": plain_diff, "warhammer_stats_us_per_cell": ws_s * 1e6,
        "warhammer_stats_max_rel_diff": ws_diff,
        "plain_python_ratio": plain_s / engine_cell, "warhammer_stats_ratio": ws_s / engine_cell,
        "no_effect_abilities": report.no_effect_abilities, "unknown_abilities": report.unknown_abilities,
        "conditional_abilities": report.conditional_abilities,
        "unit_count_keys": report.unit_count_keys, "unit_loss_keys": report.unit_loss_keys,
        "unit_distinct_pairs": report.unit_distinct_pairs,
    }  # fmt: skip
    _print(figures)
    return figures


def _print(f: dict[str, Any]) -> None:
    print(f"damage bench — inputs: {f['source']}")
    print(
        f"  {f['weapons']} weapons ({f['weapon_profiles']} distinct) x {f['targets']} targets "
        f"({f['defensive_profiles']} distinct, {f['skipped_targets']} skipped) = "
        f"{f['cells_per_scenario']:,} cells"
    )
    print(
        f"  engine pairs computed: {f['computed_cells_default']:,} (default), {f['computed_cells_all']:,} "
        f"(all scenarios, {f['effective_weapon_profiles_all']} effective weapon profiles)"
    )
    print(
        f"  default scenario in memory: {f['default_seconds']:.2f} s median of "
        f"{[round(t, 2) for t in f['default_runs']]} (CPU {[round(t, 2) for t in f['default_cpu']]})  "
        f"({f['cells_per_second'] / 1e6:.1f} M cells/s)"
    )
    print(
        f"  all {len(SCENARIOS)} scenarios to Parquet: {f['all_scenarios_parquet_seconds']:.2f} s median of "
        f"{[round(t, 2) for t in f['parquet_runs']]} (CPU {[round(t, 2) for t in f['parquet_cpu']]})  "
        f"({f['parquet_mb']:.0f} MiB)"
    )
    print(
        f"  models_slain / wounds_lost: {f['unit_count_keys']:,} count keys x {f['unit_loss_keys']:,} loss keys, "
        f"{f['unit_distinct_pairs']:,} distinct pairs computed"
    )
    print(f"  peak RSS during the runs: {f['peak_rss_mb']:.0f} MiB (process max {f['ru_maxrss_mb']:.0f} MiB)")
    print(
        f"  per cell: engine {f['engine_us_per_cell']:.3f} us, "
        f"plain Python {f['plain_python_us_per_cell']:.1f} us "
        f"(x{f['plain_python_ratio']:.0f}, max diff {f['plain_python_max_abs_diff']:.1e}), "
        f"warhammer-stats {f['warhammer_stats_us_per_cell']:.0f} us (x{f['warhammer_stats_ratio']:.0f}, "
        f"max rel diff on ability-free cells {f['warhammer_stats_max_rel_diff']:.1e})"
    )
    print(f"  no-effect abilities (weapon rows): {f['no_effect_abilities']}")
    print(f"  effect outside damage / published scenarios: {f['conditional_abilities']}")
    print(f"  unknown abilities (no effect): {f['unknown_abilities']}")


if __name__ == "__main__":
    from pipeline import config

    run_damage_bench(config.wahapedia_dir())
