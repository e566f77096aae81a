"""Small catalogues built in tests: a one-model unit around any XML, and entries nested to any depth."""

from __future__ import annotations


def unit_catalogue(inner: str, head: str = "") -> str:
    return (
        f'<?xml version="1.0"?>{head}\n'
        '<catalogue xmlns="http://www.battlescribe.net/schema/catalogueSchema" id="x-1" name="Xenos - Built"'
        ' library="false" type="catalogue"><selectionEntries>'
        '<selectionEntry id="unit" name="Built Unit" type="model" hidden="false"><costs>'
        '<cost name="pts" typeId="pts" value="50"/></costs><profiles>'
        '<profile id="p-unit" name="Built Unit" typeName="Unit"><characteristics>'
        '<characteristic name="M">6"</characteristic><characteristic name="T">4</characteristic>'
        '<characteristic name="SV">3+</characteristic><characteristic name="W">2</characteristic>'
        '<characteristic name="LD">6+</characteristic><characteristic name="OC">1</characteristic>'
        f"</characteristics></profile></profiles>{inner}</selectionEntry></selectionEntries></catalogue>"
    )


def nested(depth: int) -> str:
    weapon = (
        '<profiles><profile id="p-deep" name="Deep gun" typeName="Ranged Weapons"><characteristics>'
        '<characteristic name="Range">24"</characteristic><characteristic name="A">2</characteristic>'
        '<characteristic name="BS">3+</characteristic><characteristic name="S">5</characteristic>'
        '<characteristic name="AP">0</characteristic><characteristic name="D">1</characteristic>'
        "</characteristics></profile></profiles>"
    )
    opening = "".join(
        f'<selectionEntries><selectionEntry id="e{i}" name="Level {i}" type="upgrade">' for i in range(depth)
    )
    return opening + weapon + "</selectionEntry></selectionEntries>" * depth
