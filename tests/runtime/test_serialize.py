"""rt.save / rt.load: round trips (control flow, effects, variables) in a fresh process that
never imports the original code, and a clear error for every kind of bad file."""

import hashlib
import io
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import runtime as rt
from transpiler import function

COUNTER = rt.Variable(rt.constant(10.0))


def collatz_and_more(n, x):
    steps = 0
    while n > 1:
        if n % 2 == 0:
            n = n // 2
        else:
            n = 3 * n + 1
        steps += 1
    COUNTER.assign_add(1.0)
    rt.print("steps:", steps)
    rt.assert_(steps >= 0, "negative steps")
    return {"steps": steps, "scaled": x[1:] * COUNTER.value(), "pair": (x[0], 7)}


def saved(tmp_path, fn, *specs) -> str:
    path = str(tmp_path / "model.e2g")
    rt.save(function(fn).get_concrete_function(*specs), path)
    return path


SPECS = (rt.TensorSpec([], rt.int32), rt.TensorSpec([3], rt.float32))


def test_round_trip_keeps_results_effects_and_variables(tmp_path, capsys):
    path = saved(tmp_path, collatz_and_more, *SPECS)
    loaded = rt.load(path)
    x = np.array([1.0, 2.0, 3.0], np.float32)
    result = loaded(rt.constant(27), x)
    assert capsys.readouterr().out == "steps: 111\n"
    assert int(result["steps"]) == 111 and int(result["pair"][1]) == 7
    # The loaded function has its own copy of the variable, saved at 10 and incremented once.
    np.testing.assert_array_equal(result["scaled"].numpy(), x[1:] * 11.0)
    assert [v.numpy() for v in loaded.variables] == [11.0]
    loaded(rt.constant(1), x)
    assert loaded.variables[0].numpy() == 12.0 and COUNTER.numpy() == 10.0
    print(loaded.graph)  # printable
    with pytest.raises(TypeError, match="traced for"):
        loaded(rt.constant(1.5), x)


def test_loads_in_a_process_that_never_imported_the_original_code(tmp_path):
    path = saved(tmp_path, collatz_and_more, *SPECS)
    script = (
        "import sys, numpy as np, runtime as rt\n"
        f"f = rt.load({path!r})\n"
        "r = f(rt.constant(6), np.array([1, 2, 3], np.float32))\n"
        "print(int(r['steps']), r['scaled'].numpy().tolist())\n"
        "assert not any('test_serialize' in m or m.startswith('transpiler') for m in sys.modules)\n")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               timeout=120, cwd=str(tmp_path))
    assert completed.returncode == 0, completed.stderr
    assert completed.stdout.splitlines() == ["steps: 8", "8 [22.0, 33.0]"]


def rewrite(path: str, **members) -> None:
    """Replaces members of the saved zip, keeping the others."""
    with zipfile.ZipFile(path) as archive:
        contents = {name: archive.read(name) for name in archive.namelist()}
    contents.update(members)
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)


def resign(path: str, graph: bytes | None = None, arrays: bytes | None = None, **manifest) -> None:
    with zipfile.ZipFile(path) as archive:
        graph = graph if graph is not None else archive.read("graph.json")
        arrays = arrays if arrays is not None else archive.read("arrays.npz")
        old = json.loads(archive.read("manifest.json"))
    old.update(sha256=hashlib.sha256(graph + arrays).hexdigest(), **manifest)
    rewrite(path, **{"graph.json": graph, "arrays.npz": arrays, "manifest.json": json.dumps(old)})


@pytest.fixture
def simple_file(tmp_path):
    return saved(tmp_path, lambda x: x * 2.0 + rt.constant(np.ones(3, np.float32)),
                 rt.TensorSpec([3], rt.float32))


def test_truncated_file(simple_file):
    data = open(simple_file, "rb").read()
    with open(simple_file, "wb") as handle:
        handle.write(data[: len(data) // 2])
    with pytest.raises(rt.errors.SavedGraphError, match="not a complete eager2graph graph file"):
        rt.load(simple_file)


def test_not_a_graph_file(tmp_path):
    path = tmp_path / "other.e2g"
    path.write_text("hello")
    with pytest.raises(rt.errors.SavedGraphError, match="not a complete eager2graph graph file"):
        rt.load(str(path))


def test_wrong_checksum(simple_file):
    with zipfile.ZipFile(simple_file) as archive:
        graph = archive.read("graph.json").replace(b'"multiply"', b'"subtract"')
    rewrite(simple_file, **{"graph.json": graph})
    with pytest.raises(rt.errors.SavedGraphError, match="does not match its checksum"):
        rt.load(simple_file)


def test_newer_version(simple_file):
    resign(simple_file, version=99)
    with pytest.raises(rt.errors.SavedGraphError, match="version 99, newer .* upgrade eager2graph"):
        rt.load(simple_file)


def test_unknown_op(simple_file):
    with zipfile.ZipFile(simple_file) as archive:
        graph = archive.read("graph.json").replace(b'"multiply"', b'"os_system"')
    resign(simple_file, graph=graph)
    with pytest.raises(rt.errors.SavedGraphError, match="the op 'os_system'.* newer version"):
        rt.load(simple_file)


def test_unknown_attribute_kind(simple_file):
    with zipfile.ZipFile(simple_file) as archive:
        body = json.loads(archive.read("graph.json"))
    body["graph"]["nodes"][0]["attrs"] = {"value": {"python_object": "os.system"}}
    resign(simple_file, graph=json.dumps(body).encode())
    with pytest.raises(rt.errors.SavedGraphError, match="attribute .* of an unknown kind"):
        rt.load(simple_file)


def test_pickled_arrays_are_refused(simple_file):
    buffer = io.BytesIO()
    np.savez(buffer, array0=np.array([object()], dtype=object))
    resign(simple_file, arrays=buffer.getvalue())
    with pytest.raises(rt.errors.SavedGraphError, match="must not be pickled objects"):
        rt.load(simple_file)


def test_functions_traced_on_objects_by_identity_cannot_be_saved(tmp_path):
    marker = object()
    concrete = function(lambda x, tag: x + 1.0).get_concrete_function(rt.TensorSpec([], rt.float32), marker)
    with pytest.raises(TypeError, match="argument 'tag' was traced as a Python object"):
        rt.save(concrete, str(tmp_path / "f.e2g"))
    assert not os.path.exists(tmp_path / "f.e2g")  # nothing half-written
