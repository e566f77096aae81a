"""Reconcile stage: the same unit across sources gets one `unit_id`.

First cut: unit_id from the normalised faction and unit name. Golden records and
conflicts build on it.
"""

from __future__ import annotations

from typing import Any

from pipeline.dataset import Dataset
from pipeline.ids import slug
from schemas.records import Datasheet


def unit_id_for(faction: str, name: str) -> str:
    return f"unit:{slug(faction)}:{slug(name)}"


def reconcile_stage(dataset: Dataset) -> dict[str, Any]:
    """Fill `Datasheet.unit_id`; report how many units have several sources."""
    sheets = []
    for sheet in dataset.table("datasheets"):
        assert isinstance(sheet, Datasheet)
        sheets.append(sheet.model_copy(update={"unit_id": sheet.unit_id or unit_id_for(sheet.faction, sheet.name)}))
    dataset.replace("datasheets", sheets)
    units = {s.unit_id for s in sheets}
    return {"datasheets": len(sheets), "units": len(units)}
