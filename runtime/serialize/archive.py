"""The file container: one zip holding a manifest, the graph as JSON and the arrays as .npz.

The manifest is checked before anything else is read, so a file from a newer eager2graph or
from another program is reported as such rather than as a puzzling decoding failure; the
checksum covers both other members, so any change after saving is caught before decoding.
A member is inflated only when the size its zip entry declares is within the caller's limits,
and never further than those limits, whatever its compressed data holds (see ``limits``).
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
from runtime.serialize.limits import SizeLimits, read_at_most, too_large
from runtime.serialize.npz import read_arrays

FORMAT = "eager2graph-graph"
VERSION = 1
_MANIFEST, _GRAPH, _ARRAYS = "manifest.json", "graph.json", "arrays.npz"
_MANIFEST_BYTES = 2**16  # a manifest is about 130 bytes


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


def read_archive(path: str, limits: SizeLimits) -> tuple[bytes, dict[str, np.ndarray]]:
    """The graph JSON bytes and the arrays of a file whose manifest and checksum are valid;
    nothing beyond ``limits`` is inflated or allocated."""
    with open(path, "rb") as stream:  # a missing or unreadable path keeps its own OSError
        manifest, graph_bytes, array_bytes = _members(path, stream, limits)
    if checksum(graph_bytes, array_bytes) != manifest.get("sha256"):
        raise SavedGraphError(f"{path} does not match its checksum: the file is corrupt or was "
                              f"changed after it was saved. Save the function again.")
    try:
        return graph_bytes, read_arrays(path, array_bytes, limits)
    except (zipfile.BadZipFile, zlib.error, EOFError, RuntimeError, NotImplementedError) as error:
        raise SavedGraphError(f"{path} holds arrays that cannot be read ({error}); the file is "
                              f"damaged. Save the function again.") from None


def _members(path: str, stream, limits: SizeLimits) -> tuple[dict, bytes, bytes]:
    """The manifest (checked before anything else is inflated), the graph and the arrays."""
    try:
        with zipfile.ZipFile(stream) as archive:
            with archive.open(_MANIFEST) as member:
                manifest_bytes = read_at_most(member, _MANIFEST_BYTES + 1)
            if len(manifest_bytes) > _MANIFEST_BYTES:
                raise SavedGraphError(f"{path} has a manifest of more than {_MANIFEST_BYTES} "
                                      f"bytes, which no eager2graph writes; it is not an "
                                      f"eager2graph graph file.")
            manifest = json.loads(manifest_bytes)
            _check_manifest(path, manifest)
            return (manifest,
                    _read_member(path, archive, _GRAPH, limits.max_graph_bytes, "max_graph_bytes"),
                    _read_member(path, archive, _ARRAYS, limits.max_array_bytes, "max_array_bytes"))
    except (zipfile.BadZipFile, zlib.error, KeyError, ValueError, EOFError, RuntimeError,
            NotImplementedError, RecursionError) as error:
        if isinstance(error, SavedGraphError):
            raise
        raise SavedGraphError(f"{path} is not a complete eager2graph graph file ({error}); it may "
                              f"be truncated, damaged or of another kind. Save the function "
                              f"again.") from None


def _read_member(path: str, archive: zipfile.ZipFile, name: str, limit: int, option: str) -> bytes:
    """The member ``name``, inflated only if its declared size is within ``limit`` (the
    ``rt.load`` keyword ``option``), and read no further than that whatever its data holds."""
    info = archive.getinfo(name)
    if info.file_size > limit:
        raise too_large(path, f"has a {name} member of {info.file_size} bytes", limit, option)
    with archive.open(info) as member:
        data = read_at_most(member, limit + 1)
    if len(data) > limit:  # the size a zip declares is never trusted alone
        raise too_large(path, f"has a {name} member of more than {limit} bytes", limit, option)
    return data


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
