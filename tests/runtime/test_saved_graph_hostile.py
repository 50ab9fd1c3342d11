"""rt.load of files an attacker rewrote (checksum recomputed, as anyone can): nothing in the
file is read as a path, run as code or trusted as a type; every bad file is a SavedGraphError.

Each test forges one attack on a file saved by rt.save and asserts the documented outcome."""

import json
import linecache
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime.serialize.archive import checksum

SavedGraphError = rt.errors.SavedGraphError


def members(path: str) -> dict:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def forge(path: str, graph: bytes | None = None, arrays: bytes | None = None) -> None:
    """Replaces the graph or arrays of a saved file and signs it again."""
    old = members(path)
    graph = old["graph.json"] if graph is None else graph
    arrays = old["arrays.npz"] if arrays is None else arrays
    manifest = dict(json.loads(old["manifest.json"]), sha256=checksum(graph, arrays))
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(manifest))
        archive.writestr("graph.json", graph)
        archive.writestr("arrays.npz", arrays)


def edit(path: str, change) -> None:
    body = json.loads(members(path)["graph.json"])
    change(body)
    forge(path, graph=json.dumps(body).encode())


def saved(tmp_path, fn, *specs) -> str:
    path = str(tmp_path / "model.e2g")
    rt.save(rt.function(fn).get_concrete_function(*specs), path)
    return path


def nodes_of(body: dict, op: str) -> list:
    """The nodes running ``op`` anywhere in the saved graph, subgraphs included."""
    found, graphs = [], [body["graph"]]
    while graphs:
        graph = graphs.pop()
        for node in graph["nodes"]:
            found += [node] if node["op"] == op else []
            graphs += node["subgraphs"].values()
    return found


def load_fails(path: str, message: str, **options) -> SavedGraphError:
    with pytest.raises(SavedGraphError, match=message) as caught:
        rt.load(path, **options)
    return caught.value


# -- 1. locations are data ---------------------------------------------------------------------


@pytest.fixture
def gather_file(tmp_path):
    """A function whose gather fails at run time for an index out of range."""
    return saved(tmp_path, lambda x, i: rt.gather(x, i),
                 rt.TensorSpec([3], rt.float32), rt.TensorSpec([], rt.int32))


def locate(path: str, location: list) -> None:
    def change(body):
        for node in nodes_of(body, "gather"):
            node["location"] = location
    edit(path, change)


def test_a_loaded_location_never_reads_the_file_it_names(gather_file, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("password = hunter2\n")
    locate(gather_file, [str(secret), 1, "steal"])
    loaded = rt.load(gather_file)
    with pytest.raises(rt.errors.InvalidArgumentError, match="gather") as caught:
        loaded(np.ones(3, np.float32), np.int32(7))
    message = str(caught.value)
    assert f'File "{secret}", line 1, in steal' in message  # still said, as data
    assert "hunter2" not in message


def test_a_device_named_as_location_is_never_opened(gather_file, monkeypatch):
    opened = []
    real = linecache.updatecache

    def update(name, *rest):  # records the read instead of reading /dev/zero forever
        opened.append(name)
        return [] if name == "/dev/zero" else real(name, *rest)
    monkeypatch.setattr(linecache, "updatecache", update)
    locate(gather_file, ["/dev/zero", 1, ""])
    with pytest.raises(rt.errors.InvalidArgumentError, match="/dev/zero"):
        rt.load(gather_file)(np.ones(3, np.float32), np.int32(7))
    assert "/dev/zero" not in opened
