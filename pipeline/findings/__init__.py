"""Data-quality findings: general rules over the run's frames and the parse report (docs/findings.md)."""
