"""rt.load of files an attacker rewrote (checksum recomputed, as anyone can): nothing in the
file is read as a path, run as code or trusted as a type; every bad file is a SavedGraphError.

Each test forges one attack on a file saved by rt.save and asserts the documented outcome."""

import json
import linecache
import sys
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


# -- 3. malformed files are SavedGraphErrors -----------------------------------------------------


@pytest.fixture
def double_file(tmp_path):
    return saved(tmp_path, lambda x: x * 2.0, rt.TensorSpec([2], rt.float32))


@pytest.mark.parametrize("name", ["x²", "class", "a b", "1st", "f(x):\n    import os", ""])
def test_any_function_name_loads_and_runs(double_file, name):
    edit(double_file, lambda body: body.update(name=name))
    loaded = rt.load(double_file)
    assert loaded.name == name
    assert loaded(np.ones(2, np.float32)).numpy().tolist() == [2.0, 2.0]


def scalar(dtype: str) -> list:
    return [dtype, []]


class Forger:
    """Writes graph descriptions by hand: nested control flow no tracer would make."""

    def __init__(self):
        self.ids = iter(range(1, 10**6))

    def graph(self, name: str, inner) -> tuple:
        """A graph of one scalar parameter whose nodes ``inner(parameter id)`` makes."""
        parameter = next(self.ids)
        nodes, output = inner(parameter)
        return {"name": name, "inputs": [{"id": parameter, "label": "p", "type": scalar("<i4")}],
                "nodes": nodes, "outputs": [[output, 0]]}

    def node(self, op: str, inputs: list, attrs: dict, subgraphs: dict) -> dict:
        return {"id": next(self.ids), "op": op, "label": None, "inputs": [[i, 0] for i in inputs],
                "control": [], "attrs": attrs, "types": [scalar("<i4")], "location": None,
                "subgraphs": subgraphs}

    def nested_conds(self, depth: int):
        def inner(parameter):
            if depth == 0:
                return [], parameter
            branches = {"then": self.graph("then", self.nested_conds(depth - 1)),
                        "else": self.graph("else", self.nested_conds(0))}
            cond = self.node("cond", [parameter, parameter], {}, branches)
            return [cond], cond["id"]
        return inner

    def nested_loops(self, depth: int):
        def inner(parameter):
            if depth == 0:
                return [], parameter

            def test(i):
                less = self.node("less", [i, i], {}, {})
                less["types"] = [scalar("|b1")]
                return [less], less["id"]
            subgraphs = {"cond": self.graph("cond", test),
                         "body": self.graph("body", self.nested_loops(depth - 1))}
            loop = self.node("while_loop", [parameter], {"num_vars": 1, "maximum_iterations": None},
                             subgraphs)
            return [loop], loop["id"]
        return inner


def forge_nested(path: str, kind: str, depth: int) -> None:
    forger = Forger()
    graph = forger.graph("deep", getattr(forger, kind)(depth))
    body = {"name": "deep", "params": ["x"], "key": [{"tensor": scalar("<i4")}],
            "outputs": {"output": None}, "variables": [], "graph": graph}
    forge(path, graph=json.dumps(body).encode())


@pytest.mark.parametrize("place, levels, message", [
    ("attribute", 450, "malformed graph description .*RecursionError"),  # decoding recurses
    ("outputs", 5000, "not JSON"),  # JSON's own limit
])
def test_values_nested_past_the_interpreters_recursion_limit_are_refused(double_file, place,
                                                                         levels, message):
    # Python's default limit: a library imported by an earlier test (torch's compiler) may
    # have raised it for the whole process, and 450 levels would then decode.
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    try:
        _refuse_nested(double_file, place, levels, message)
    finally:
        sys.setrecursionlimit(limit)


def _refuse_nested(double_file, place: str, levels: int, message: str) -> None:
    body = json.loads(members(double_file)["graph.json"])
    if place == "attribute":
        nodes_of(body, "multiply")[0]["attrs"]["axis"] = "DEEP"
    else:
        body["outputs"] = "DEEP"
    leaf = "0" if place == "attribute" else '{"output": null}'
    nested = '{"tuple": [' * levels + leaf + "]}" * levels  # json.dumps would not nest it
    forge(double_file, graph=json.dumps(body).replace('"DEEP"', nested).encode())
    load_fails(double_file, message)


@pytest.mark.parametrize("kind, depth", [("nested_conds", 110), ("nested_loops", 25)])
def test_control_flow_nested_too_deep_is_refused(double_file, kind, depth):
    forge_nested(double_file, kind, depth)
    load_fails(double_file, "nests control flow .* more than 16 levels deep")


@pytest.mark.parametrize("kind", ["nested_conds", "nested_loops"])
def test_control_flow_nested_to_the_limit_loads(double_file, kind):
    forge_nested(double_file, kind, 16)
    assert rt.load(double_file)(np.int32(3)).numpy() == 3


# -- 4. attributes are checked by their kind -----------------------------------------------------


def forge_attribute(path: str, op: str, name: str, value) -> None:
    def change(body):
        for node in nodes_of(body, op):
            node["attrs"][name] = value
    edit(path, change)


def test_a_raw_dtype_string_cannot_make_object_arrays(tmp_path):
    path = saved(tmp_path, lambda x: rt.cast(x, rt.int32), rt.TensorSpec([3], rt.float32))
    forge_attribute(path, "cast", "dtype", "O")
    load_fails(path, r"attribute dtype='O' is not a dtype the runtime supports")


@pytest.mark.parametrize("dtype", ["|O", ">f4", "|S100", "<M8[s]", "|V8"])
def test_a_dtype_attribute_comes_from_the_supported_dtypes(tmp_path, dtype):
    path = saved(tmp_path, lambda x: rt.cast(x, rt.int32), rt.TensorSpec([3], rt.float32))
    forge_attribute(path, "cast", "dtype", {"dtype": dtype})
    load_fails(path, "attribute dtype=.* is not a dtype the runtime supports|declares the dtype")


@pytest.fixture
def counter_file(tmp_path):
    counter = rt.Variable(rt.constant(1.0))

    def step(x):
        counter.assign_add(x)
        return rt.reduce_sum(counter.value(), axis=0)
    return saved(tmp_path, step, rt.TensorSpec([], rt.float32))


@pytest.mark.parametrize("op, name, value, kind", [
    ("assign_variable", "mode", "xor", "one of 'assign', 'add', 'sub'"),
    ("assign_variable", "mode", 1, "one of 'assign', 'add', 'sub'"),
    ("reduce_sum", "axis", 10**20, "an axis, a tuple of axes or None"),
    ("reduce_sum", "axis", "0; import os", "an axis, a tuple of axes or None"),
    ("reduce_sum", "keepdims", 1, "True or False"),
])
def test_each_attribute_holds_a_value_of_its_kind(counter_file, op, name, value, kind):
    forge_attribute(counter_file, op, name, value)
    load_fails(counter_file, f"attribute {name}=.* is not {kind}")


def test_an_attribute_no_op_has_is_refused(counter_file):
    forge_attribute(counter_file, "reduce_sum", "rule", "os.system")
    load_fails(counter_file, "the attribute 'rule' is not one any op has")


def test_an_index_holds_only_index_parts(tmp_path):
    path = saved(tmp_path, lambda x: x[1:], rt.TensorSpec([3], rt.float32))
    forge_attribute(path, "getitem", "spec", {"tuple": ["1:"]})
    load_fails(path, r"attribute spec=\('1:',\) is not an index")


# -- 5. declared types are what the ops compute --------------------------------------------------


def retype(path: str, op: str, types: list) -> None:
    def change(body):
        for node in nodes_of(body, op):
            node["types"] = types
    edit(path, change)


def test_an_output_type_that_is_not_the_ops_is_refused(double_file):
    retype(double_file, "multiply", [["<i4", [7]]])
    load_fails(double_file, r"the multiply node \d+ declares the output %\d+ as i32\[7\], but it "
                            r"is f32\[2\]")


def test_a_less_specific_output_type_is_accepted(double_file):
    retype(double_file, "multiply", [["<f4", [None]]])
    assert rt.load(double_file)(np.ones(2, np.float32)).numpy().tolist() == [2.0, 2.0]


def test_a_parameter_that_does_not_take_the_signatures_tensors_is_refused(double_file):
    edit(double_file, lambda body: body["key"][0].update(tensor=["<f8", [2]]))
    load_fails(double_file, r"the signature passes f64\[2\] to the parameter %x of f32\[2\]")


@pytest.fixture
def fill_file(tmp_path):
    return saved(tmp_path, lambda x: rt.fill([2, 2], x), rt.TensorSpec([], rt.float32))


def test_a_tensor_of_a_forged_shape_larger_than_the_limit_is_refused(fill_file):
    def change(body):
        node, = nodes_of(body, "fill")
        node["attrs"]["shape"] = {"tuple": [10**6, 10**6]}
        node["types"] = [["<f4", [None, None]]]  # hidden, as far as a declaration can hide it
    edit(fill_file, change)
    load_fails(fill_file, r"the fill node \d+ makes a tensor of f32\[1000000,1000000\], larger "
                          r"than max_array_bytes")


def test_control_flow_results_are_checked_against_their_branches(tmp_path):
    path = saved(tmp_path, lambda x: rt.cond(x > 0, lambda: x + 1, lambda: x - 1),
                 rt.TensorSpec([], rt.float32))
    retype(path, "subtract", [["<i4", []]])
    retype(path, "cond", [["<f4", []]])
    load_fails(path, r"subtract node .* declares|cond node \d+ declares the output of its else "
                     r"branch")


def test_loop_variables_keep_their_types(tmp_path):
    path = saved(tmp_path, lambda n: rt.while_loop(lambda i: i < n, lambda i: i + 1, [0]),
                 rt.TensorSpec([], rt.int32))

    def change(body):
        loop, = nodes_of(body, "while_loop")
        body_graph = loop["subgraphs"]["body"]
        body_graph["inputs"][0]["type"] = ["<i8", []]  # the body computes in int64 throughout
        next(node for node in body_graph["nodes"] if node["op"] == "add")["types"] = [["<i8", []]]
    edit(path, change)
    load_fails(path, r"while_loop node \d+ declares the subgraph parameter %loop_vars_0 as "
                     r"i32\[\], but it is i64\[\]")  # the cond's, fed by the body


def test_an_op_missing_an_attribute_its_kernel_needs_is_refused(tmp_path):
    path = saved(tmp_path, lambda x: rt.print("x is", x) or x, rt.TensorSpec([], rt.float32))

    def change(body):
        node, = nodes_of(body, "print")
        del node["attrs"]["template"]
    edit(path, change)
    load_fails(path, "the print node .* has inputs or attributes its op does not take")


def test_an_op_only_backends_make_is_refused(double_file):
    edit(double_file, lambda body: nodes_of(body, "multiply")[0].update(op="compiled_region"))
    load_fails(double_file, "the op compiled_region cannot appear in a saved graph")


@pytest.mark.parametrize("style", ["{:999999999}", "{:.2f}{0.__class__}", "%*d", 7])
def test_a_forged_print_format_is_refused(tmp_path, style):
    from runtime.ops.io_ops import FormattedValue

    path = saved(tmp_path, lambda x: rt.print(FormattedValue(x, "{:.2f}")),
                 rt.TensorSpec([], rt.float64))
    edit(path, lambda body: _replace_all(body, [0, "{:.2f}"], [0, style]))
    load_fails(path, "print format")


def _replace_all(data, old, new):
    """Replaces every ``old`` inside the JSON structure ``data`` by ``new``, in place."""
    items = data.items() if isinstance(data, dict) else enumerate(data) \
        if isinstance(data, list) else ()
    for key, value in list(items):
        if value == old:
            data[key] = new
        else:
            _replace_all(value, old, new)

