"""What the published JSON Schemas say about columns the models leave undescribed: a description for
common column names, and the pattern every id of a kind follows (docs/ids.md)."""

from __future__ import annotations

from schemas.records import UNIT_ID_PATTERN

SOURCE_ID_PATTERN = r"^(page_export|wahapedia_csv|bsdata|reference):.+$|^unknown$"
DATASHEET_ID_PATTERN = r"^(wh|bs|page):.+$"

#: column name -> pattern of its values (ids only; applied to the string branch of nullable columns).
ID_PATTERNS: dict[str, str] = {
    "source_id": SOURCE_ID_PATTERN,
    "datasheet_id": DATASHEET_ID_PATTERN,
    "leader_id": DATASHEET_ID_PATTERN,
    "attached_id": DATASHEET_ID_PATTERN,
    "copy_of": DATASHEET_ID_PATTERN,
    "inherited_from": DATASHEET_ID_PATTERN,
    "unit_id": UNIT_ID_PATTERN,
    "home_unit_id": UNIT_ID_PATTERN,
    "weapon_id": r"^(wh|bs|page):.+$",
    "profile_id": r"^(wh|bs|page|ref):.+$",
    "stratagem_id": r"^strat:[a-z0-9-]+:[a-z0-9-]+$",
    "rule_id": r"^rule:[0-9a-f]{16}$",
    "variant_of": r"^rule:[0-9a-f]{16}$",
    "enhancement_id": r"^(wh|page|enhancement):.+$",
    "detachment_ability_id": r"^(wh|detachment_ability):.+$",
    "since_version": r"^v[0-9a-f]{12}$",
}

#: column name -> description, for columns whose model field has none.
DESCRIPTIONS: dict[str, str] = {
    "source_id": "Source file the row came from: `<format>:<file name>` (docs/ids.md#source-ids).",
    "datasheet_id": "Datasheet id: `wh:<Wahapedia id>`, `bs:<catalogue>:<entry>`, `page:<faction>:<unit>`.",
    "unit_id": "The unit across sources: `unit:<faction>:<name>[-legends|-crucible]`.",
    "weapon_id": "Weapon profile id: `<datasheet_id>:...` (docs/ids.md).",
    "profile_id": "Model profile id (`<datasheet_id>:...`) or reference profile id (`ref:<name>`).",
    "stratagem_id": "`strat:<detachment>:<name>`: one id per distinct stratagem across sources.",
    "enhancement_id": "Enhancement id (`wh:<Wahapedia id>`).",
    "detachment_ability_id": "Detachment ability id (`wh:<id>` or `detachment_ability:<faction>:<name>`).",
    "rule_id": "`rule:<content hash>`: one id per distinct rule text.",
    "name": "Name as the source writes it (golden tables: the normalised display name).",
    "faction": "Faction as the source names it (golden tables: the faction the unit is filed under).",
    "kind": "Category of the row (see docs/dataset.md).",
    "keywords": "Keywords, upper case.",
    "abilities": "Weapon abilities, normalised lower case (`sustained hits 1`, `anti-infantry 4+`).",
    "attacks": "Attacks: dice text (weapons) or expected attacks made (damage cells).",
    "damage": "Damage: dice text (weapons) or expected wounds lost (damage cells).",
    "scenario": "`default`, `half_range`, `charged`, `stationary` or `cover`.",
    "text": "Plain text.",
    "text_html": "Sanitised minimal HTML of `text` (p, br, ul, ol, li, b, i, strong, em).",
    "models": "Models in the option.",
    "cost": "Points.",
    "position": "1-based position.",
    "description": "Description text.",
    "model": "The model the row is limited to, if any.",
    "is_faction": "A faction keyword.",
    "legend": "Flavour text (per-source tables); a Legends (not current) unit (`units`).",
}
