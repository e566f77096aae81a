"""`dataslate matchup` on `good_release` (the seeds + a Wahapedia slice: Warboss leads Nobz, Lord Invocatus leads
Khorne Berzerkers, the Avenger Strike Fighter, Wazdakka Gutsmek), through the real command.

Hand case, read from the inputs: the Avenger's Armoured hull (raw/pages/002_*.txt line 11: Melee A6 WS4+ S8 AP0 D1)
against 5 Nobz (Wahapedia Datasheets_models.csv, datasheet 000000021: T5 Sv4+ W2, no invulnerable save, no FNP).
Each attack is unsaved with 1/2 × 4/6 × 3/6 = 1/6; D1 against W2 puts two unsaved wounds into each slain model,
so models slain = floor(U / 2) with U ~ Binomial(6, 1/6).
"""

from __future__ import annotations

import json
from math import comb
from typing import Any

import pytest

from tests.publish.releases import Published, invoke, one_error

pytestmark = pytest.mark.slow

AVENGER = "unit:astra-militarum:avenger-strike-fighter"
NOBZ = "unit:orks:nobz"


def _unsaved(k: int) -> float:
    return comb(6, k) * (1 / 6) ** k * (5 / 6) ** (6 - k)


#: P(k Nobz slain) = P(U in {2k, 2k + 1}), k = 0..3 (U = 6 slays 3: P(3) = P(U = 6)), 4 and 5 impossible.
HULL_VS_NOBZ = [_unsaved(0) + _unsaved(1), _unsaved(2) + _unsaved(3), _unsaved(4) + _unsaved(5), _unsaved(6), 0, 0]


def matchup_json(release: Published, *args: str) -> list[dict[str, Any]]:
    result = invoke("matchup", *args, "--release", release.out, "--json")
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in result.stdout.splitlines()]


@pytest.mark.parametrize("attacker", ["Avenger Strike Fighter", "avenger strike fighter", AVENGER, "Avenger"])
def test_the_hand_case_by_name_or_id(good_release: Published, attacker: str) -> None:
    (row,) = matchup_json(good_release, attacker, "Nobz", "--phase", "fight")
    assert (row["attacker_unit_id"], row["target_unit_id"], row["target_models"]) == (AVENGER, NOBZ, 5)
    assert (row["phase"], row["scenario"]) == ("fight", "default")
    assert row["slain_dist"] == pytest.approx(HULL_VS_NOBZ, abs=1e-9)
    assert row["models_slain"] == pytest.approx(sum(k * p for k, p in enumerate(HULL_VS_NOBZ)))
    assert row["wounds_lost"] == pytest.approx(6 * (1 / 6))  # one wound per unsaved attack, never beyond W
    assert row["p_any"] == pytest.approx(1 - HULL_VS_NOBZ[0])
    assert (row["p_wipe"], row["slain_p10"], row["slain_p50"], row["slain_p90"]) == (0, 0, 0, 1)
    # Nobz cost 105 for 5 (21 per model); the Avenger 130 points
    assert row["points_destroyed"] == pytest.approx(row["models_slain"] * 21)
    assert row["points_destroyed_per_100"] == pytest.approx(row["points_destroyed"] * 100 / 130)


def test_the_text_output_is_a_bar_chart_and_the_summary(good_release: Published) -> None:
    result = invoke("matchup", "Avenger Strike Fighter", "Nobz", "-p", "fight", "-r", good_release.out)
    assert result.exit_code == 0, result.output
    lines = result.stdout.splitlines()
    assert lines[0].startswith("Avenger Strike Fighter (1) → Nobz (5)") and "fight, default" in lines[0]
    bars = {int(line.split()[0]): line for line in lines[2:8]}
    assert sorted(bars) == [0, 1, 2, 3, 4, 5]
    assert "73.7 %" in bars[0] and bars[0].count("█") == 40  # the largest bar is the full width
    assert "25.5 %" in bars[1] and bars[1].count("█") == round(40 * HULL_VS_NOBZ[1] / HULL_VS_NOBZ[0])
    assert "expected slain 0.27 of 5  (10/50/90 %: 0 / 0 / 1)" in result.stdout
    assert "P(any) 26.3 %   P(wipe) 0.0 %" in result.stdout
    assert "wounds lost 1.00 of 10" in result.stdout


def test_both_phases_without_phase(good_release: Published) -> None:
    rows = matchup_json(good_release, "Khorne Berzerkers", "Nobz")
    assert [r["phase"] for r in rows] == ["shooting", "fight"]
    for row in rows:
        assert sum(row["slain_dist"]) == pytest.approx(1)
        assert len(row["slain_dist"]) == row["target_models"] + 1
        assert row["wounds_lost"] <= row["target_wounds"] == 10
    assert rows[1]["models_slain"] > rows[0]["models_slain"]  # Berzerkers are a melee unit


def test_an_attached_unit_is_named_leader_plus_bodyguard(good_release: Published) -> None:
    (row,) = matchup_json(good_release, "Warboss + Nobz", "Khorne Berzerkers", "-p", "fight")
    assert row["attacker_unit_id"] == "unit:orks:warboss+unit:orks:nobz"
    assert (row["attacker"], row["attacker_models"]) == ("Warboss + Nobz", 6)  # 1 + 5
    assert row["points_destroyed_per_100"] == pytest.approx(row["points_destroyed"] * 100 / (75 + 105))
    (alone,) = matchup_json(good_release, "Nobz", "Khorne Berzerkers", "-p", "fight")
    assert row["models_slain"] > alone["models_slain"]


def test_options_and_scenarios_change_the_result(good_release: Published) -> None:
    (small,) = matchup_json(good_release, "Khorne Berzerkers", "Nobz", "-p", "fight")
    (large,) = matchup_json(good_release, "Khorne Berzerkers", "Nobz", "-p", "fight", "--attacker-models", "20")
    assert (small["attacker_models"], large["attacker_models"]) == (10, 20)
    assert large["models_slain"] > small["models_slain"]
    (ten,) = matchup_json(good_release, "Khorne Berzerkers", "Nobz", "-p", "fight", "--target-models", "10")
    assert len(ten["slain_dist"]) == 11
    # Wazdakka's Grabba dragga (S10, Lance) wounds Lord Invocatus (T6) on 3+, on 2+ after a charge
    (still,) = matchup_json(good_release, "Wazdakka", "Lord Invocatus", "-p", "fight")
    (charged,) = matchup_json(good_release, "Wazdakka", "Lord Invocatus", "-p", "fight", "-s", "charged")
    assert charged["scenario"] == "charged" and charged["models_slain"] > still["models_slain"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["o", "Nobz"], "error: 'o' names 4 units: unit:orks:nobz (Nobz), unit:orks:warboss (Warboss), "),
        (["Khorne Berserkers", "Nobz"], "error: no unit is named 'Khorne Berserkers'; did you mean: Khorne Berzerkers"),
        (["Space Marines", "Nobz"], "error: no unit is named 'Space Marines'"),
        (["Nobz", "Wazdakka"], "error: Wazdakka Gutsmek cannot be a target: a model of it has no complete statline"),
        (
            ["Nobz", "Warboss", "--target-models", "3"],
            "error: unit:orks:warboss has no option of 3 models (options: 1)",
        ),
        (["Nobz + Warboss", "Nobz"], "error: unit:orks:nobz+unit:orks:warboss has no points option to compute"),
        (["Nobz", "Warboss", "-s", "indoors"], "error: unknown scenario 'indoors'; one of default, half_range, "),
        (["Nobz", "Warboss", "-p", "melee"], "error: unknown phase 'melee'; shooting or fight"),
    ],
)
def test_one_clear_error(good_release: Published, args: list[str], message: str) -> None:
    assert one_error(invoke("matchup", *args, "-r", good_release.out)).startswith(message)
