"""The local cache's entries and keys (input sha256 trees, code fingerprint); whole-run reuse is
`publish/reuse.py`, per-input parse results `sources/cached.py`.

Never published, safe to delete; an entry that fails its checks is ignored with a warning
(docs/releases.md#the-cache).
"""
