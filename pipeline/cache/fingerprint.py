"""What a cache key is made of: the code that runs and the bytes of the inputs."""

from __future__ import annotations

import dataclasses
import enum
import functools
import hashlib
import importlib.metadata
import json
import os
import stat
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pipeline import __version__, config
from pipeline.ids import file_sha256

if TYPE_CHECKING:
    import polars as pl

#: The code and data files whose change invalidates every entry (the package, the contract, the suites).
CODE_ROOTS = ("pipeline", "schemas", "expectations")

#: Libraries whose version changes what is computed or the bytes written (an upgrade invalidates every entry).
LIBRARIES = ("duckdb", "numpy", "polars", "pyarrow", "pydantic", "great-expectations", "lxml", "beautifulsoup4")


@functools.cache
def code_fingerprint() -> str:
    """sha256 over the pipeline version and every source, schema and suite file (path and bytes)."""
    digest = hashlib.sha256(__version__.encode())
    for name in LIBRARIES:
        digest.update(f"{name}=={_installed(name)}\0".encode())
    for root in CODE_ROOTS:
        for path in sorted((config.REPO_ROOT / root).rglob("*")):
            if path.is_file() and path.suffix in {".py", ".json", ".sql"}:
                digest.update(path.relative_to(config.REPO_ROOT).as_posix().encode() + b"\0")
                digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


def _installed(name: str) -> str:
    try:
        return importlib.metadata.version(name)
    except importlib.metadata.PackageNotFoundError:
        return "absent"


def frame_digest(frame: pl.DataFrame) -> str:
    """sha256 of a frame's columns and rows in order, as NDJSON text (the logical values, never the
    memory layout, which differs between equal frames)."""
    digest = hashlib.sha256(_schema_line(frame))
    digest.update(frame.write_ndjson().encode())
    return digest.hexdigest()


def row_digests(frame: pl.DataFrame) -> tuple[str, ...]:
    """sha256 of each row with the frame's schema, as `frame_digest` reads them (one NDJSON line a row)."""
    schema, lines = _schema_line(frame), frame.write_ndjson().encode().splitlines()
    if len(lines) != frame.height:  # JSON escapes every line break inside a value: never expected
        raise ValueError(f"{len(lines)} NDJSON lines for {frame.height} rows")
    return tuple(hashlib.sha256(schema + line).hexdigest() for line in lines)


def _schema_line(frame: pl.DataFrame) -> bytes:
    return json.dumps(list(frame.schema.items()), default=str).encode() + b"\n"


def rows_digest(frame: pl.DataFrame) -> str:
    """sha256 of a frame's schema and its rows' 64-bit hashes in order (`row_hashes`). Several times cheaper than
    `frame_digest` on wide float rows; two frames differing in a row share it only if that row's hashes collide
    (about 2^-64)."""
    digest = hashlib.sha256(_schema_line(frame))
    digest.update(row_hashes(frame).to_numpy().tobytes())
    return digest.hexdigest()


def rows_multiset_digest(frame: pl.DataFrame) -> str:
    """As `rows_digest`, whatever the rows' order: the row hashes sorted first (the same rows, duplicates
    counted, give the same digest)."""
    import numpy as np

    digest = hashlib.sha256(_schema_line(frame))
    digest.update(np.sort(row_hashes(frame).to_numpy()).tobytes())
    return digest.hexdigest()


def row_hashes(frame: pl.DataFrame) -> pl.Series:
    """Each row's 64-bit hash (Polars' `hash_rows`, fixed seeds: the same in every process of one Polars version,
    which the code fingerprint covers) of its values with every float read as its bits: `hash_rows` hashes -0.0
    as 0.0 and every NaN alike, which a document shows apart (`-0.0`)."""
    import polars as pl

    if not frame.width:
        return frame.hash_rows(seed=0)
    return frame.select(_as_bits(pl.col(name), dtype) for name, dtype in frame.schema.items()).hash_rows(seed=0)


def _as_bits(expr: pl.Expr, dtype: Any) -> pl.Expr:
    """`expr` with its floats (in lists, arrays and structs too) reinterpreted as unsigned integers of their width."""
    import polars as pl

    if dtype.is_float():
        return expr.reinterpret(dtype={pl.Float32: pl.UInt32, pl.Float64: pl.UInt64}.get(dtype, pl.UInt16))
    if isinstance(dtype, pl.List) and _has_float(dtype.inner):
        return expr.list.eval(_as_bits(pl.element(), dtype.inner))
    if isinstance(dtype, pl.Array) and _has_float(dtype.inner):
        return expr.arr.eval(_as_bits(pl.element(), dtype.inner))
    if isinstance(dtype, pl.Struct) and _has_float(dtype):
        return pl.struct(_as_bits(expr.struct.field(f.name), f.dtype).alias(f.name) for f in dtype.fields)
    return expr


def _has_float(dtype: Any) -> bool:
    import polars as pl

    if isinstance(dtype, pl.Struct):
        return any(_has_float(f.dtype) for f in dtype.fields)
    inner = getattr(dtype, "inner", None)
    return bool(dtype.is_float()) or (inner is not None and _has_float(inner))


class ValueDigest:
    """Canonical sha256 of Python values, the same in every process (never `pickle` or `repr`: a set's order
    and `hash()` of text change with the hash seed). Handles None, bool, int, float (exact, `float.hex`), str,
    bytes, enums, dataclasses (their `init` fields by name: derived fields such as cached hashes are left out),
    Pydantic models (their fields), tuples and lists, mappings (items sorted by their keys' encodings), sets and
    frozensets (sorted encodings) and numpy arrays and scalars (dtype, shape, bytes); anything else is a
    `TypeError`, so that a value the digest cannot read is never keyed by its identity. Every value is encoded
    with its type and length, so no two values share an encoding. Dataclass and model instances are encoded
    as the sha256 of their fields, memoised by identity while this object lives (inputs share their weapons
    and groups): keep one only while the values it has seen are alive and unchanged."""

    def __init__(self, fixed: Mapping[type, Mapping[str, object]] | None = None) -> None:
        self._memo: dict[int, tuple[object, bytes]] = {}
        #: Fields read as these values whatever an instance of the class holds: the digest of
        #: `dataclasses.replace(value, **fixed[type(value)])` without building it (a key that leaves costs out).
        self._fixed = dict(fixed or {})

    def hexdigest(self, value: object) -> str:
        return hashlib.sha256(self.encode(value)).hexdigest()

    def encode(self, value: object) -> bytes:
        """The value's canonical bytes (self-delimiting)."""
        exact = _BY_TYPE.get(type(value))  # the common types by their exact class: no isinstance chain
        return exact(self, value) if exact is not None else self._encode_any(value)

    def _encode_any(self, value: object) -> bytes:
        if value is None or isinstance(value, bool):
            return b"N" if value is None else (b"T" if value else b"F")
        if isinstance(value, enum.Enum):  # before int and str: StrEnum and IntEnum members are both
            _BY_TYPE.setdefault(type(value), ValueDigest._enum)
            return self._enum(value)
        if isinstance(value, int):
            return _sized(b"i", str(value).encode())
        if isinstance(value, float):
            return _sized(b"f", value.hex().encode())
        if isinstance(value, str):
            return _sized(b"s", value.encode("utf-8", "surrogatepass"))
        if isinstance(value, bytes):
            return _sized(b"b", value)
        if isinstance(value, (tuple, list)):
            return self._sequence(value)
        if isinstance(value, (set, frozenset)):
            return self._set(value)
        if isinstance(value, Mapping):
            return self._mapping(value)
        encoded = self._object(value)
        if dataclasses.is_dataclass(type(value)) or hasattr(type(value), "model_fields"):
            _BY_TYPE.setdefault(type(value), ValueDigest._fields)  # that class again: straight to its fields
        return encoded

    def _enum(self, value: enum.Enum) -> bytes:
        memo = self._memo.get(id(value))
        if memo is not None and memo[0] is value:
            return memo[1]
        encoded = self._tagged(b"E", value, self.encode(value.value))
        self._memo[id(value)] = (value, encoded)
        return encoded

    def _sequence(self, value: tuple[object, ...] | list[object]) -> bytes:
        return _items(b"t" if isinstance(value, tuple) else b"l", [self.encode(v) for v in value])

    def _set(self, value: set[object] | frozenset[object]) -> bytes:
        return _items(b"S", sorted(self.encode(v) for v in value))

    def _mapping(self, value: Mapping[object, object]) -> bytes:
        return _items(b"M", sorted(self.encode(k) + self.encode(v) for k, v in value.items()))

    def _object(self, value: object) -> bytes:
        import numpy as np

        if isinstance(value, np.ndarray):
            array = np.ascontiguousarray(value)
            if array.dtype.hasobject:
                raise TypeError("ValueDigest: numpy arrays of Python objects are not digested")
            shape = _items(b"t", [self.encode(n) for n in array.shape])
            return _sized(b"A", _sized(b"d", array.dtype.str.encode()) + shape + array.tobytes())
        if isinstance(value, np.generic):
            return self._object(np.asarray(value))
        return self._fields(value)

    def _fields(self, value: object) -> bytes:
        """A dataclass or model: the sha256 of its fields, memoised by identity."""
        memo = self._memo.get(id(value))
        if memo is not None and memo[0] is value:
            return memo[1]
        kind, names = _field_names(type(value))
        fixed = self._fixed.get(type(value)) if self._fixed else None
        if fixed:
            read = [fixed[name] if name in fixed else getattr(value, name) for name, _ in names]
        else:
            read = [getattr(value, name) for name, _ in names]
        fields = _items(b"O", [encoded + self.encode(item) for (_, encoded), item in zip(names, read, strict=True)])
        encoded = _sized(b"D", kind + hashlib.sha256(fields).digest())
        self._memo[id(value)] = (value, encoded)
        return encoded

    @staticmethod
    def _tagged(tag: bytes, value: object, body: bytes) -> bytes:
        kind = type(value)
        return _sized(tag, _sized(b"c", f"{kind.__module__}.{kind.__qualname__}".encode()) + body)


#: Encoders by exact class (`ValueDigest.encode`); dataclasses and models are added as they are first met.
_BY_TYPE: dict[type, Callable[[ValueDigest, Any], bytes]] = {
    type(None): lambda _, value: b"N",
    bool: lambda _, value: b"T" if value else b"F",
    int: lambda _, value: _sized(b"i", str(value).encode()),
    float: lambda _, value: _sized(b"f", value.hex().encode()),
    str: lambda _, value: _sized(b"s", value.encode("utf-8", "surrogatepass")),
    bytes: lambda _, value: _sized(b"b", value),
    tuple: ValueDigest._sequence,
    list: ValueDigest._sequence,
    set: ValueDigest._set,
    frozenset: ValueDigest._set,
    dict: ValueDigest._mapping,
}

_FIELDS: dict[type, tuple[bytes, tuple[tuple[str, bytes], ...]]] = {}


def _field_names(kind: type) -> tuple[bytes, tuple[tuple[str, bytes], ...]]:
    """The class's qualified name (encoded) and its fields' names (with their encodings) of a dataclass or a
    Pydantic model."""
    if kind not in _FIELDS:
        _FIELDS[kind] = _fields_of(kind)
    return _FIELDS[kind]


def _fields_of(kind: type) -> tuple[bytes, tuple[tuple[str, bytes], ...]]:
    if dataclasses.is_dataclass(kind):
        names = [f.name for f in dataclasses.fields(kind) if f.init]
    elif hasattr(kind, "model_fields"):  # a Pydantic model (such as Dice)
        names = list(kind.model_fields)
    else:
        raise TypeError(f"ValueDigest: cannot digest a {kind.__qualname__}")
    encoded = tuple((n, _sized(b"s", n.encode())) for n in names)
    return _sized(b"c", f"{kind.__module__}.{kind.__qualname__}".encode()), encoded


def _sized(tag: bytes, body: bytes) -> bytes:
    return tag + str(len(body)).encode() + b":" + body


def _items(tag: bytes, encoded: list[bytes]) -> bytes:
    return _sized(tag, str(len(encoded)).encode() + b":" + b"".join(encoded))


def value_digest(*values: Any) -> str:
    """`ValueDigest` of `values` (a tuple) as hex: the one digest of Python objects cache keys use."""
    return ValueDigest().hexdigest(values)


def entry_fingerprint(path: Path) -> str:
    """One directory entry, never following a link or opening anything but a regular file: a link is its
    target text, a FIFO or device its type, a file above the input cap its size (the parser refuses it
    unread), any other file its sha256."""
    try:
        info = os.lstat(path)
    except OSError as exc:  # missing or unreadable: the parser says so, in its stage
        return f"absent:{exc.errno}"
    if stat.S_ISLNK(info.st_mode):
        return "link:" + os.readlink(path)
    if not stat.S_ISREG(info.st_mode):
        return f"special:{stat.S_IFMT(info.st_mode)}"
    if info.st_size > config.MAX_INPUT_FILE_BYTES:
        return f"oversize:{info.st_size}"
    return "sha256:" + file_sha256(str(path))


def tree_fingerprint(path: Path) -> list[tuple[str, str]]:
    """(relative path, fingerprint) of `path` (a file) or of every entry under it (a folder, links not followed)."""
    if not path.is_dir() or path.is_symlink():
        return [(path.name, entry_fingerprint(path))]
    entries = []
    for folder, dirs, files in os.walk(path):
        dirs.sort()
        for name in sorted(files) + [d for d in dirs if os.path.islink(os.path.join(folder, d))]:
            full = Path(folder, name)
            entries.append((full.relative_to(path).as_posix(), entry_fingerprint(full)))
    return sorted(entries)


def key_of(*parts: object) -> str:
    """sha256 of the parts' text, one per line."""
    return hashlib.sha256("\n".join(str(p) for p in parts).encode()).hexdigest()


def inputs_key(paths: Iterable[Path], options: tuple[object, ...] = ()) -> str:
    """The key of one run's inputs: every input path (resolved) with its tree, the code, and the run options
    that change what is published."""
    parts: list[object] = [code_fingerprint(), *options]
    for path in paths:
        parts += [os.path.abspath(path), *tree_fingerprint(path)]
    return key_of(*parts)
