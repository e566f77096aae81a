"""The local cache: whole runs and per-input parse results, keyed by input sha256 and code fingerprint.

Never published, safe to delete; an entry that fails its checks is ignored with a warning
(docs/releases.md#the-cache).
"""
