"""One battlefield-role vocabulary for every source: docs/reconcile.md#roles."""

from __future__ import annotations

from collections.abc import Iterable

from pipeline.reconcile.keys import fold

CHARACTER, BATTLELINE, TRANSPORT, FORTIFICATION, OTHER = (
    "Character",
    "Battleline",
    "Dedicated Transport",
    "Fortification",
    "Other",
)
ROLES = (CHARACTER, BATTLELINE, TRANSPORT, FORTIFICATION, OTHER)

#: Keywords that give the role (10th edition: roles are keywords), strongest first.
ROLE_KEYWORDS = (("character", CHARACTER), ("battleline", BATTLELINE), ("dedicated transport", TRANSPORT),
                 ("fortification", FORTIFICATION))  # fmt: skip
#: Source labels (folded, plural `s` dropped) -> role; any other label is `Other`.
ROLE_LABELS = {
    "epic hero": CHARACTER,
    "character": CHARACTER,
    "battleline": BATTLELINE,
    "dedicated transport": TRANSPORT,
    "fortification": FORTIFICATION,
}


def _label_key(label: str) -> str:
    key = fold(label)
    return key[:-1] if key.endswith("s") else key


def role_of(label: str | None, keywords: Iterable[str]) -> str:
    """The role: from the datasheet's keywords (CHARACTER, BATTLELINE, ...), else its source label
    (`Epic Hero` and `Characters` are Character; `Vehicle`, `Infantry`, ... are Other), else Other."""
    folded = {fold(k) for k in keywords}
    for keyword, role in ROLE_KEYWORDS:
        if keyword in folded:
            return role
    return ROLE_LABELS.get(_label_key(label), OTHER) if label else OTHER
