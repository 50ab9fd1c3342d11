"""rt.save / rt.load: round trips (control flow, effects, variables) in this process and in a
fresh one that never imports the original code, and a clear error for every kind of bad file."""

import collections
import io
import json
import os
import subprocess
import sys
import zipfile

import numpy as np
import pytest

import runtime as rt
from runtime.serialize.archive import checksum
from transpiler import function

COUNTER = rt.Variable(rt.constant(10.0), name="counter")
Pair = collections.namedtuple("Pair", "first second")


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
    rt.assert_(rt.reduce_all(x > 0.0), "x must be positive")
    noise = rt.random.uniform([2], seed=3)
    return {"steps": steps, "scaled": x[1:] * COUNTER.value(), "pair": (x[0], 7), "noise": noise}


SPECS = (rt.TensorSpec([], rt.int32), rt.TensorSpec([3], rt.float32))
X = np.array([1.0, 2.0, 3.0], np.float32)


def saved(tmp_path, fn, *specs) -> tuple:
    path = str(tmp_path / "model.e2g")
    concrete = function(fn).get_concrete_function(*specs)
    rt.save(concrete, path)
    return concrete, path


def plain(result) -> list:
    return [leaf.numpy().tolist() if isinstance(leaf, rt.Tensor) else leaf
            for leaf in rt.nest.flatten(result)]


def test_round_trip_keeps_results_effects_and_variables(tmp_path, capsys):
    original, path = saved(tmp_path, collatz_and_more, *SPECS)
    loaded = rt.load(path)
    at_save = COUNTER.numpy()
    result = loaded(rt.constant(27), X)
    assert capsys.readouterr().out == "steps: 111\n"
    assert int(result["steps"]) == 111 and result["pair"][1].numpy() == 7
    assert list(result) == ["steps", "scaled", "pair", "noise"]  # the saved key order
    # The loaded function has its own variable, saved with the value it had then.
    np.testing.assert_array_equal(result["scaled"].numpy(), X[1:] * (at_save + 1.0))
    assert [(v.name, float(v.numpy())) for v in loaded.variables] == [("counter", at_save + 1.0)]
    assert COUNTER.numpy() == at_save
    assert str(loaded.graph) == str(original.graph)
    assert loaded.signature == original.signature


@pytest.fixture
def unseeded_afterwards():
    """Tests that seed the global generator leave it unseeded, as other tests expect."""
    yield
    rt.random.set_seed(None)


def test_random_ops_keep_their_seeds(tmp_path, unseeded_afterwards):
    original, path = saved(tmp_path, collatz_and_more, *SPECS)
    loaded = rt.load(path)
    rt.random.set_seed(5)
    expected = [original(rt.constant(3), X)["noise"].numpy() for _ in range(2)]
    rt.random.set_seed(5)
    got = [loaded(rt.constant(3), X)["noise"].numpy() for _ in range(2)]
    np.testing.assert_array_equal(got, expected)
    assert not np.array_equal(got[0], got[1])  # a new draw on every call, as in the original


def test_unseeded_random_ops_draw_new_values(tmp_path):
    _, path = saved(tmp_path, lambda: rt.random.normal([4], dtype=rt.float64))
    loaded = rt.load(path)
    first, second = loaded().numpy(), loaded().numpy()
    assert first.dtype == np.float64 and first.shape == (4,) and not np.array_equal(first, second)


def test_assertions_still_run(tmp_path):
    _, path = saved(tmp_path, collatz_and_more, *SPECS)
    with pytest.raises(rt.errors.AssertionFailedError, match="x must be positive"):
        rt.load(path)(rt.constant(3), -X)


def test_loads_in_a_process_that_never_imported_the_original_code(tmp_path, unseeded_afterwards):
    original, path = saved(tmp_path, collatz_and_more, *SPECS)
    script = (
        "import json, sys, numpy as np, runtime as rt\n"
        f"f = rt.load({path!r})\n"
        "rt.random.set_seed(5)\n"
        "r = f(6, np.array([1, 2, 3], np.float32))\n"
        "print(json.dumps([r['steps'].numpy().tolist(), r['scaled'].numpy().tolist(),\n"
        "                  r['pair'][1].numpy().tolist(), r['noise'].numpy().tolist()]))\n"
        "loaded = [m for m in sys.modules if 'test_serialize' in m or m.split('.')[0] in\n"
        "          ('transpiler', 'tests', 'gast')]\n"
        "assert not loaded, loaded\n")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               timeout=120, cwd=str(tmp_path))
    assert completed.returncode == 0, completed.stderr
    printed, results = completed.stdout.splitlines()
    rt.random.set_seed(5)
    expected = original(rt.constant(6), X)  # the original variable still holds the saved value
    assert printed == "steps: 8"
    assert json.loads(results) == [8, expected["scaled"].numpy().tolist(), 7,
                                   expected["noise"].numpy().tolist()]


def shifted_and_checked(x):
    from runtime.ops import bitwise_ops, ensure_shape_ops  # registered when first imported
    return ensure_shape_ops.ensure_shape(bitwise_ops.left_shift(x, 2), [None, 3])


def test_ops_of_families_this_process_never_imported_are_found_when_loading(tmp_path):
    """A graph of ops whose family is registered when its module is first imported
    (``tf.bitwise``, ``tf.ensure_shape``) loads in a process that imported only the runtime."""
    original, path = saved(tmp_path, shifted_and_checked, rt.TensorSpec([None, 3], rt.int32))
    script = (
        "import sys, numpy as np, runtime as rt\n"
        "assert 'runtime.ops.bitwise_ops' not in sys.modules\n"
        f"f = rt.load({path!r})\n"
        "print(f(np.arange(6, dtype=np.int32).reshape(2, 3)).numpy().ravel().tolist())\n")
    completed = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                               timeout=120, cwd=str(tmp_path))
    assert completed.returncode == 0, completed.stderr
    x = np.arange(6, dtype=np.int32).reshape(2, 3)
    assert json.loads(completed.stdout) == original(x).numpy().ravel().tolist() \
        == [0, 4, 8, 12, 16, 20]


def shifted_left(images):
    from runtime.ops.image_transform_ops import transform
    return transform(images, rt.constant([[1.0, 0.0, 1.0, 0.0, 1.0, 0.0, 0.0, 0.0]]),
                     interpolation="nearest", fill_mode="constant", fill_value=-1.0)


def test_an_image_transform_round_trips(tmp_path):
    original, path = saved(tmp_path, shifted_left, rt.TensorSpec([1, 3, 3, 1], rt.float32))
    x = np.arange(9, dtype=np.float32).reshape(1, 3, 3, 1)
    assert rt.load(path)(x).numpy().tolist() == original(x).numpy().tolist()


def scale(x, factor, training=True):
    return Pair(x * factor if training else x, {"b": None, "a": "text", "c": 2.5})


def test_python_arguments_and_structures(tmp_path):
    _, path = saved(tmp_path, scale, rt.TensorSpec([None], rt.float32), 2, True)
    loaded = rt.load(path)
    result = loaded([1.0, 2.0])  # Python numbers convert exactly; `factor` and `training` keep theirs
    assert type(result).__name__ == "Pair" and result._fields == ("first", "second")
    assert result.first.numpy().tolist() == [2.0, 4.0]
    assert list(result.second) == ["b", "a", "c"] and result.second["a"] == "text"
    assert float(result.second["c"]) == 2.5 and result.second["b"] is None
    assert plain(loaded(x=np.ones(1, np.float32), factor=2, training=True))[0] == [2.0]


@pytest.mark.parametrize("args, message", [
    ((np.ones(2, np.int32), 2), "argument 'x' must be a tensor of dtype float32"),
    (([1.5], 3), "argument 'factor' must be the Python int 2, but got the Python int 3"),
    (([1.5], 2, False), "argument 'training' must be the Python bool True"),
    ((), "missing the argument 'x'"),
    (([1.5], 2, True, 4), "takes 3 arguments"),
])
def test_arguments_are_checked_against_the_saved_signature(tmp_path, args, message):
    _, path = saved(tmp_path, scale, rt.TensorSpec([None], rt.float32), 2, True)
    with pytest.raises(TypeError, match=message):
        rt.load(path)(*args)


def test_a_signed_zero_argument_keeps_its_sign(tmp_path):
    _, path = saved(tmp_path, lambda x, y: rt.math.atan2(y, x), rt.constant(-1.0), -0.0)
    loaded = rt.load(path)
    assert float(loaded(rt.constant(-1.0), -0.0)) == pytest.approx(-np.pi)
    with pytest.raises(TypeError, match="must be the Python float -0.0, but got the Python float 0.0"):
        loaded(rt.constant(-1.0), 0.0)


def test_saving_a_function_with_an_input_signature(tmp_path):
    path = str(tmp_path / "f.e2g")
    rt.save(rt.function(lambda x: x + 1, input_signature=[rt.TensorSpec([2], rt.int64)]), path)
    assert rt.load(path)(np.array([1, 2])).numpy().tolist() == [2, 3]


def test_what_cannot_be_saved_is_refused_before_writing(tmp_path):
    path = tmp_path / "f.e2g"
    marker = object()
    concrete = function(lambda x, tag: x + 1.0).get_concrete_function(
        rt.TensorSpec([], rt.float32), marker)
    with pytest.raises(TypeError, match="argument 'tag' was traced as a Python object"):
        rt.save(concrete, str(path))
    with pytest.raises(TypeError, match="takes a concrete function.*get_concrete_function"):
        rt.save(function(lambda x: x), str(path))
    assert os.listdir(tmp_path) == []  # nothing half-written


# -- bad files ----------------------------------------------------------------------------------


@pytest.fixture
def simple_file(tmp_path):
    _, path = saved(tmp_path, lambda x: x * 2.0 + rt.constant(np.ones(3, np.float32)),
                    rt.TensorSpec([3], rt.float32))
    return path


@pytest.fixture
def loop_file(tmp_path):
    def count(n):
        return rt.while_loop(lambda i: i < n, lambda i: i + 1, [0], maximum_iterations=5)
    _, path = saved(tmp_path, count, rt.TensorSpec([], rt.int32))
    return path


def members(path: str) -> dict:
    with zipfile.ZipFile(path) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def rewrite(path: str, **replaced) -> None:
    """Replaces members of the saved zip, keeping the others."""
    contents = dict(members(path), **replaced)
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)


def resign(path: str, graph: bytes | None = None, arrays: bytes | None = None, **manifest) -> None:
    """Replaces the graph or arrays with a valid checksum, as a deliberate forgery would."""
    old = members(path)
    graph = old["graph.json"] if graph is None else graph
    arrays = old["arrays.npz"] if arrays is None else arrays
    fields = dict(json.loads(old["manifest.json"]), sha256=checksum(graph, arrays), **manifest)
    rewrite(path, **{"graph.json": graph, "arrays.npz": arrays, "manifest.json": json.dumps(fields)})


def edit_graph(path: str, change) -> None:
    body = json.loads(members(path)["graph.json"])
    change(body)
    resign(path, graph=json.dumps(body).encode())


def loop_node(body: dict) -> dict:
    return next(node for node in body["graph"]["nodes"] if node["op"] == "while_loop")


def load_fails(path: str, message: str) -> None:
    with pytest.raises(rt.errors.SavedGraphError, match=message):
        rt.load(path)


def test_truncated_file(simple_file):
    data = open(simple_file, "rb").read()
    with open(simple_file, "wb") as handle:
        handle.write(data[: len(data) // 2])
    load_fails(simple_file, "not a complete eager2graph graph file.* truncated")


def test_file_of_another_kind(tmp_path):
    path = tmp_path / "other.e2g"
    path.write_text("hello")
    load_fails(str(path), "not a complete eager2graph graph file")


def test_damaged_member(simple_file):
    data = bytearray(open(simple_file, "rb").read())
    start = data.index(b"graph.json") + len(b"graph.json")  # the stored bytes follow the name
    data[start + 5:start + 15] = bytes(10)
    with open(simple_file, "wb") as handle:
        handle.write(bytes(data))
    load_fails(simple_file, "not a complete eager2graph graph file")


def test_missing_member(simple_file):
    contents = members(simple_file)
    del contents["arrays.npz"]
    with zipfile.ZipFile(simple_file, "w") as archive:
        for name, data in contents.items():
            archive.writestr(name, data)
    load_fails(simple_file, "not a complete eager2graph graph file.*arrays.npz")


def test_zip_of_another_program(simple_file):
    rewrite(simple_file, **{"manifest.json": json.dumps({"format": "something-else"})})
    load_fails(simple_file, "not an eager2graph graph file .*'something-else'")


def test_wrong_checksum(simple_file):
    graph = members(simple_file)["graph.json"].replace(b'"multiply"', b'"subtract"')
    rewrite(simple_file, **{"graph.json": graph})
    load_fails(simple_file, "does not match its checksum")


def test_newer_version(simple_file):
    resign(simple_file, version=99)
    load_fails(simple_file, "version 99, newer .* upgrade eager2graph")


def test_unknown_op(simple_file):
    resign(simple_file, graph=members(simple_file)["graph.json"].replace(b'"multiply"', b'"os.system"'))
    load_fails(simple_file, "the op 'os.system'.* newer eager2graph")


def test_unknown_attribute_kind(simple_file):
    def change(body):
        body["graph"]["nodes"][0]["attrs"] = {"value": {"python_object": "os.system"}}
    edit_graph(simple_file, change)
    load_fails(simple_file, "attribute .* of an unknown kind.* newer eager2graph")


def test_pickled_arrays_are_refused(simple_file):
    buffer = io.BytesIO()
    np.savez(buffer, constant0=np.array([object()], dtype=object))
    resign(simple_file, arrays=buffer.getvalue())
    load_fails(simple_file, "must hold numbers, never pickled objects")


def test_graph_that_is_not_json(simple_file):
    resign(simple_file, graph=b"{not json")
    load_fails(simple_file, "not JSON")


def test_malformed_control_flow(loop_file):
    edit_graph(loop_file, lambda body: loop_node(body)["subgraphs"].pop("body"))
    load_fails(loop_file, "malformed graph description.*while_loop node")


def test_code_in_loop_attributes_is_never_run(loop_file, tmp_path):
    marker = tmp_path / "ran"
    payload = f"__import__('pathlib').Path({str(marker)!r}).touch() or 5"
    edit_graph(loop_file, lambda body: loop_node(body)["attrs"].update(maximum_iterations=payload))
    load_fails(loop_file, "malformed graph description")
    assert not marker.exists()


def test_code_in_node_ids_is_never_run(loop_file, tmp_path):
    marker = tmp_path / "ran"
    payload = f"0 = __import__('pathlib').Path({str(marker)!r}).touch()\n    v1"

    def change(body):
        node = loop_node(body)
        old, node["id"] = node["id"], payload
        for reference in body["graph"]["outputs"]:
            reference[0] = payload if reference[0] == old else reference[0]
    edit_graph(loop_file, change)
    load_fails(loop_file, "malformed graph description")
    assert not marker.exists()
