"""Unit level: golden default loadouts, unit-against-unit matchups (docs/units.md#integration)."""
