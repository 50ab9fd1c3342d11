"""rt.load of zip bombs and lying array headers: sizes are checked before anything is inflated
or allocated, inflation stops at the caller's limits, and the peak memory of a rejected load
stays far below what the file claims (measured with tracemalloc, which sees NumPy's buffers).

The bombs are kept small by loading them with low limits; the one bomb of the default limit
only declares its size, which is refused before a byte is inflated."""

import io
import json
import struct
import tracemalloc
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime.serialize.archive import checksum
from runtime.serialize.limits import DEFAULT_MAX_ARRAY_BYTES, DEFAULT_MAX_GRAPH_BYTES

SavedGraphError = rt.errors.SavedGraphError
MiB = 2**20


@pytest.fixture
def path(tmp_path):
    path = str(tmp_path / "model.e2g")
    weights = rt.constant(np.ones(1000, np.float32))
    rt.save(rt.function(lambda x: x * weights).get_concrete_function(
        rt.TensorSpec([1000], rt.float32)), path)
    return path


def members(path: str) -> dict:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def zipped(files: dict, compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in files.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def forge(path: str, graph: bytes | None = None, arrays: bytes | None = None) -> None:
    old = members(path)
    graph = old["graph.json"] if graph is None else graph
    arrays = old["arrays.npz"] if arrays is None else arrays
    manifest = dict(json.loads(old["manifest.json"]), sha256=checksum(graph, arrays))
    with open(path, "wb") as stream:
        stream.write(zipped({"manifest.json": json.dumps(manifest), "graph.json": graph,
                             "arrays.npz": arrays}))


def declare_size(path: str, member: str, size: int) -> None:
    """Rewrites the uncompressed size the zip's central directory states for ``member``."""
    data = bytearray(open(path, "rb").read())
    struct.pack_into("<I", data, _central_entry(data, member) + 24, size)
    open(path, "wb").write(bytes(data))


def _central_entry(data: bytearray, member: str) -> int:
    position = data.index(b"PK\x01\x02")
    while True:
        name_length = struct.unpack_from("<H", data, position + 28)[0]
        if data[position + 46:position + 46 + name_length] == member.encode():
            return position
        position = data.index(b"PK\x01\x02", position + 4)


def npy(shape: tuple, descr: str = "<f8", data: bytes = b"") -> bytes:
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": descr, "fortran_order": False, "shape": shape})
    return header.getvalue() + data


def with_array(path: str, member: bytes) -> bytes:
    """The file's arrays plus one more member, ``constant9.npy``."""
    return zipped(dict(_arrays(path), **{"constant9.npy": member}))


def _arrays(path: str) -> dict:
    with zipfile.ZipFile(io.BytesIO(members(path)["arrays.npz"])) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def peak_of_failed_load(path: str, message: str, **limits) -> int:
    """The peak bytes Python and NumPy allocated while ``rt.load`` refused ``path``."""
    tracemalloc.start()
    try:
        with pytest.raises(SavedGraphError, match=message):
            rt.load(path, **limits)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


# -- graph.json --------------------------------------------------------------------------------


def test_a_graph_bomb_of_the_default_limit_is_refused_before_inflating(path):
    forge(path, graph=members(path)["graph.json"] + b" " * 1000)
    declare_size(path, "graph.json", 3 * 2**29)  # 1.5 GiB, as the bomb of the issue
    peak = peak_of_failed_load(path, r"graph.json member of 1610612736 bytes, more than the "
                                     rf"{DEFAULT_MAX_GRAPH_BYTES} bytes .*max_graph_bytes")
    assert peak < MiB


def test_a_graph_bomb_inflates_no_further_than_the_limit(path):
    forge(path, graph=members(path)["graph.json"] + b" " * (8 * MiB))  # 8 KiB on disk
    peak = peak_of_failed_load(path, "graph.json member of .* bytes, more than the 1048576 bytes "
                                     ".*pass a larger max_graph_bytes", max_graph_bytes=MiB)
    assert peak < MiB


def test_a_graph_whose_zip_understates_its_size_is_read_no_further(path):
    forge(path, graph=members(path)["graph.json"] + b" " * (8 * MiB))
    declare_size(path, "graph.json", 1000)
    peak = peak_of_failed_load(path, "not a complete eager2graph graph file")
    assert peak < MiB


def test_a_graph_within_a_raised_limit_loads(path):
    forge(path, graph=members(path)["graph.json"] + b" " * (2 * MiB))
    with pytest.raises(SavedGraphError, match="max_graph_bytes"):
        rt.load(path, max_graph_bytes=MiB)
    assert rt.load(path, max_graph_bytes=3 * MiB)(np.ones(1000, np.float32)).shape == (1000,)


# -- arrays.npz ----------------------------------------------------------------------------------


def test_an_array_bomb_is_refused_by_its_header_before_reading(path):
    forge(path, arrays=with_array(path, npy((MiB,), data=bytes(8 * MiB))))  # 8 MiB of zeros
    peak = peak_of_failed_load(path, r"array 'constant9' of shape \(1048576,\) and dtype "
                                     r"float64, .* 8392608 bytes, more than .*max_array_bytes",
                               max_array_bytes=2 * MiB)
    assert peak < MiB


def test_an_array_header_of_a_trillion_elements_is_refused(path):
    forge(path, arrays=with_array(path, npy((10**12,), data=bytes(64))))
    peak = peak_of_failed_load(path, rf"shape \(1000000000000,\).* more than the "
                                     rf"{DEFAULT_MAX_ARRAY_BYTES} bytes .*max_array_bytes")
    assert peak < MiB


def test_an_array_whose_data_outgrows_its_header_is_read_no_further(path):
    forge(path, arrays=with_array(path, npy((10,), data=bytes(8 * MiB))))
    peak = peak_of_failed_load(path, "'constant9' whose data does not match the shape")
    assert peak < MiB


def test_an_arrays_member_bomb_is_refused(path):
    padded = dict(_arrays(path), **{"padding.npy": bytes(4 * MiB)})
    forge(path, arrays=zipped(padded, zipfile.ZIP_STORED))  # as np.savez writes them
    peak = peak_of_failed_load(path, "arrays.npz member of .* more than .*max_array_bytes",
                               max_array_bytes=MiB)
    assert peak < MiB


def test_arrays_within_a_raised_limit_load(path):
    with pytest.raises(SavedGraphError, match="max_array_bytes"):
        rt.load(path, max_array_bytes=1000)
    assert rt.load(path, max_array_bytes=5000)(np.ones(1000, np.float32)).shape == (1000,)


@pytest.mark.parametrize("value", [0, -1, 1.5, None])
def test_limits_must_be_positive_ints(path, value):
    with pytest.raises(ValueError, match="max_array_bytes must be a positive number of bytes"):
        rt.load(path, max_array_bytes=value)


# -- members that are not arrays -------------------------------------------------------------


def test_an_array_member_that_is_a_pickle_stream_is_never_unpickled(path):
    payload = b"cos\nsystem\n(S'touch /tmp/e2g-pwned'\ntR."  # a raw pickle stream
    forge(path, arrays=zipped(dict(_arrays(path), **{"constant0.npy": payload})))
    with pytest.raises(SavedGraphError, match="'constant0', which is not a NumPy array"):
        rt.load(path)


def test_an_object_array_is_refused(path):
    forge(path, arrays=with_array(path, npy((1,), descr="|O", data=b"\x80\x04N.")))
    with pytest.raises(SavedGraphError, match="dtype object; .*never pickled objects"):
        rt.load(path)
