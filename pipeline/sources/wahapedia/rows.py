"""Cell-level parsing of Wahapedia values: each function turns one messy cell into a clean value or raises
ValueError with a short message, which becomes the quarantine reason (docs/sources.md#wahapedia-judgement-calls)."""

from __future__ import annotations

import re
from datetime import datetime

from pipeline.normalise.html import html_to_text
from pipeline.normalise.text import collapse_ws, fold_quotes, parse_plus
from schemas.records import InvulnCondition

#: Ability type labels -> English kinds. Two labels were left untranslated in the export:
#: `Special (правая колонка)` ("right column") and `Без заголовка` ("untitled").
ABILITY_KINDS: dict[str, str] = {
    "core": "core",
    "faction": "faction",
    "datasheet": "datasheet",
    "wargear": "wargear",
    "wargear profile": "wargear_profile",
    "primarch": "primarch",
    "special": "special",
    "special (правая колонка)": "special",
    "fortification (левая колонка)": "fortification",
    "без заголовка": "untitled",
}

#: Model-column values that mean "every model of the datasheet".
ALL_MODELS = frozenset({"", "ALL", "ALL MODELS"})

STRATAGEM_SECTIONS = ("when", "target", "effect", "restrictions")
_SECTION_LABEL = re.compile(r"(?m)^(WHEN|TRIGGER|TARGET|EFFECT|RESTRICTIONS):[ \t]*")
_MODELS_COUNT = re.compile(r"^(\d+) models?\b", re.IGNORECASE)
_NAMED_COUNTS = re.compile(r"^\d+ [^,\d]+?(?:(?:, | and )\d+ [^,\d]+?)*$")
_PLUS_NUMBER = re.compile(r"(\d)\+")


def clean(value: str) -> str:
    """A plain cell: whitespace collapsed, trailing spaces gone."""
    return collapse_ws(value)


def optional(value: str) -> str | None:
    cleaned = collapse_ws(value)
    return cleaned or None


def ws_id(raw_id: str) -> str:
    """Dataset id of a Wahapedia row id (`000002623` -> `wh:000002623`)."""
    return f"wh:{raw_id.strip()}"


def parse_int(text: str, what: str) -> int:
    cleaned = text.strip()
    if not re.fullmatch(r"-?\d+", cleaned):
        raise ValueError(f"{what} not an integer")
    return int(cleaned)


def parse_movement(text: str) -> int | None:
    """`6"` -> 6, `20+"` (aircraft minimum) -> 20, `-` (cannot move) -> None."""
    cleaned = fold_quotes(text).strip().rstrip('"').rstrip("+").strip()
    if cleaned in {"", "-"}:
        return None
    return parse_int(cleaned, "movement")


def parse_stat(text: str, what: str) -> int | None:
    """A numeric characteristic; a footnote star (`5*`) is dropped, `-` is None."""
    cleaned = text.strip().rstrip("*").strip()
    if cleaned in {"", "-"}:
        return None
    return parse_int(cleaned, what)


def parse_roll(text: str, what: str) -> int | None:
    """`3+`, `3`, `4*` -> 3 / 3 / 4; `-`, `N/A` -> None."""
    try:
        return parse_plus(text)
    except ValueError:
        raise ValueError(f"{what} not a roll target") from None


def invuln_note(description: str) -> str | None:
    """The footnote text of an invulnerable save, without its leading star."""
    note = collapse_ws(html_to_text(description)).lstrip("*").strip()
    return note or None


def invuln_condition(description: str, invuln: int | None) -> InvulnCondition | None:
    """`ranged`/`melee` when the footnote limits the save itself to those attacks.

    "Against ranged attacks only" and "This model has a 5+ invulnerable save against
    ranged attacks" (with 5 the printed value) limit the save. A note that improves it
    ("improved to 4+ against melee attacks") or names another value leaves the printed
    save unconditional.
    """
    text = description.casefold()
    if invuln is None or "improved" in text:
        return None
    numbers = {int(n) for n in _PLUS_NUMBER.findall(text)}
    if numbers and numbers != {invuln}:
        return None
    if "ranged attacks" in text:
        return "ranged"
    if "melee attacks" in text:
        return "melee"
    return None


def points_models(description: str) -> int:
    """Models in a points option: `5 models`, `1 model (…)`, or `1 Spanner and 4 Lootas` (summed).

    A description without a count (an add-on such as `Attack Bike`) raises.
    """
    text = html_to_text(description)
    count = _MODELS_COUNT.match(text)
    if count is not None:
        return int(count.group(1))
    if _NAMED_COUNTS.match(text):
        return sum(int(n) for n in re.findall(r"(?:^|, | and )(\d+) ", text))
    raise ValueError("no model count in description")


def points_cost(text: str) -> int:
    """Points of an option; `+55` is an add-on price, not an option (raises)."""
    cleaned = text.strip()
    if cleaned.startswith("+"):
        raise ValueError("add-on cost for optional models")
    return parse_int(cleaned, "cost")


def enhancement_cost(text: str) -> int | None:
    """Enhancement points; `+40` (an upgrade's price) is 40, empty is None."""
    cleaned = text.strip().lstrip("+")
    return None if cleaned == "" else parse_int(cleaned, "cost")


def ability_kind(label: str) -> str:
    kind = ABILITY_KINDS.get(collapse_ws(label).casefold())
    if kind is None:
        raise ValueError("unknown type label")
    return kind


def model_scope(model: str) -> str | None:
    """The model a keyword row is limited to (upper case), None for all models."""
    scope = collapse_ws(model).upper()
    return None if scope in ALL_MODELS else scope


def scope_matches(scope: str, model_name: str) -> bool:
    """`FABIUS BILE ONLY` / `SZAREKH MODEL` / `RAZORWING FLOCKS` name the model `Fabius Bile` etc."""
    name = collapse_ws(model_name).upper()
    for wanted in {scope, re.sub(r"\s+(ONLY|MODELS?)$", "", scope)}:
        if wanted in (name, f"{name}S") or name == f"{wanted}S":
            return True
    return False


def split_stratagem(text: str) -> dict[str, str | None]:
    """WHEN / TARGET / EFFECT / RESTRICTIONS sections of a stratagem's plain text.

    `TRIGGER:` (Aeldari Agile Manoeuvres) counts as WHEN; sub-headings such as
    `Designer's Note:` stay inside the section they follow; text with no labels at
    all is the effect.
    """
    parts = _SECTION_LABEL.split(text)
    sections: dict[str, list[str]] = {name: [] for name in STRATAGEM_SECTIONS}
    if len(parts) == 1:
        sections["effect"].append(text)
    else:
        preamble = parts[0].strip()
        for label, body in zip(parts[1::2], parts[2::2], strict=True):
            name = "when" if label == "TRIGGER" else label.lower()
            sections[name].append((preamble + "\n" + body).strip() if preamble else body.strip())
            preamble = ""
    return {name: "\n".join(b for b in bodies if b) or None for name, bodies in sections.items()}


def errata_date(text: str) -> str | None:
    """`09.07.2025 0:00:00` -> `2025-07-09`; anything else -> None."""
    try:
        return datetime.strptime(text.strip().split(" ")[0], "%d.%m.%Y").date().isoformat()
    except ValueError:
        return None
