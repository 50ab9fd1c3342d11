"""The file container: one zip holding a manifest, the graph as JSON and the arrays as .npz.

The manifest is checked before anything else is read, so a file from a newer eager2graph or
from another program is reported as such rather than as a puzzling decoding failure; the
checksum covers both other members, so any change after saving is caught before decoding.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
import zlib

import numpy as np

from runtime.errors import SavedGraphError

FORMAT = "eager2graph-graph"
VERSION = 1
_MANIFEST, _GRAPH, _ARRAYS = "manifest.json", "graph.json", "arrays.npz"
# Numbers, booleans and fixed-size strings: never objects, records or raw bytes.
ARRAY_KINDS = "biufcSU"


def checksum(graph_bytes: bytes, array_bytes: bytes) -> str:
    """SHA-256 of the graph's length, the graph and the arrays (the length keeps the split
    between the two members from moving without changing the checksum)."""
    digest = hashlib.sha256(len(graph_bytes).to_bytes(8, "big"))
    digest.update(graph_bytes)
    digest.update(array_bytes)
    return digest.hexdigest()


def write_archive(path: str, graph_bytes: bytes, arrays: dict[str, np.ndarray]) -> None:
    """Writes the three members to a temporary file renamed to ``path`` once complete, so a
    failed save never leaves a half-written file behind."""
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    array_bytes = buffer.getvalue()
    manifest = {"format": FORMAT, "version": VERSION, "sha256": checksum(graph_bytes, array_bytes)}
    partial = f"{path}.partial"
    try:
        with open(partial, "wb") as stream, \
                zipfile.ZipFile(stream, "w", zipfile.ZIP_DEFLATED) as archive:
            archive.writestr(_MANIFEST, json.dumps(manifest))
            archive.writestr(_GRAPH, graph_bytes)
            archive.writestr(_ARRAYS, array_bytes)
        os.replace(partial, path)
    except BaseException:
        if os.path.exists(partial):
            os.unlink(partial)
        raise


def read_archive(path: str) -> tuple[bytes, dict[str, np.ndarray]]:
    """The graph JSON bytes and the arrays of a file whose manifest and checksum are valid."""
    with open(path, "rb") as stream:  # a missing or unreadable path keeps its own OSError
        data = stream.read()
    manifest, graph_bytes, array_bytes = _members(path, data)
    _check_manifest(path, manifest)
    if checksum(graph_bytes, array_bytes) != manifest.get("sha256"):
        raise SavedGraphError(f"{path} does not match its checksum: the file is corrupt or was "
                              f"changed after it was saved. Save the function again.")
    return graph_bytes, _arrays(path, array_bytes)


def _members(path: str, data: bytes) -> tuple[dict, bytes, bytes]:
    try:
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            manifest = json.loads(archive.read(_MANIFEST))
            return manifest, archive.read(_GRAPH), archive.read(_ARRAYS)
    except (zipfile.BadZipFile, zlib.error, KeyError, ValueError, EOFError, RuntimeError,
            NotImplementedError, RecursionError) as error:
        raise SavedGraphError(f"{path} is not a complete eager2graph graph file ({error}); it may "
                              f"be truncated, damaged or of another kind. Save the function "
                              f"again.") from None


def _check_manifest(path: str, manifest) -> None:
    if not isinstance(manifest, dict) or manifest.get("format") != FORMAT:
        found = manifest.get("format") if isinstance(manifest, dict) else None
        raise SavedGraphError(f"{path} is not an eager2graph graph file (its manifest names the "
                              f"format {found!r}, not {FORMAT!r}).")
    version = manifest.get("version")
    if type(version) is not int or version < 1:
        raise SavedGraphError(f"{path} has the format version {version!r}, which no eager2graph "
                              f"writes; the file is damaged.")
    if version > VERSION:
        raise SavedGraphError(f"{path} uses format version {version}, newer than the version this "
                              f"eager2graph reads ({VERSION}); upgrade eager2graph to load it.")


def _arrays(path: str, array_bytes: bytes) -> dict[str, np.ndarray]:
    try:
        with np.load(io.BytesIO(array_bytes), allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
    except (ValueError, OSError, EOFError, zipfile.BadZipFile, zlib.error) as error:
        raise SavedGraphError(f"{path} holds arrays that cannot be read safely ({error}); saved "
                              f"arrays must hold numbers, never pickled objects.") from None
    for name, array in arrays.items():
        if array.dtype.kind not in ARRAY_KINDS:
            raise SavedGraphError(f"{path} holds the array {name!r} of dtype {array.dtype}; saved "
                                  f"arrays must hold numbers, booleans or strings.")
        array.flags.writeable = False  # constants and variable values are never changed in place
    return arrays
