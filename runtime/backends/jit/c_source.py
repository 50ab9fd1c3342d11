"""A kernel's source (the restricted Python of ``codegen``) written as a C extension module.

The kernel writer emits a small, regular subset of Python for Numba: scalars with explicit
dtype constructors, arrays made by ``np.empty``/``np.full``/``np.zeros``, loop nests, views
(``.T``, ``reshape``, ``np.transpose``), helper calls (``helpers``) and a tuple of results.
Every shape is static, so each array becomes a pointer with constant strides, and every
scalar a C variable whose type follows Numba's typing (``_result_dtype``), so the C code
computes what the Numba kernel computes, bit for bit: IEEE arithmetic in the same precision,
no contraction into fused multiply-adds, integers wrapping (``-fwrapv``), sums in NumPy's
pairwise order, and float products through the same ``gemm`` calls.

Anything outside the subset raises ``Untranslatable``: that kernel is compiled by Numba
instead. Each kernel becomes a function of a module (``module_source`` puts a batch of them
in one): it checks its operands' types and shapes, runs the loops without Python objects, and
returns new NumPy arrays (and Python numbers for scalars) as the Numba kernel does.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

import numpy as np

from runtime.backends.jit.c_prelude import LOOP_SLOTS, MODULE_TEMPLATE, PRELUDE
from runtime.backends.jit.codegen import KernelSource
from runtime.backends.jit.numpy_blas import numpy_gemm
from runtime.ops.linalg_ops import COLUMN_BLOCKS, ONE_CALL, blas_blocks, block_stop


class Untranslatable(Exception):
    """The kernel uses something the C writer does not translate (Numba compiles it)."""


C_TYPES = {np.dtype(n): c for n, c in (
    ("bool", "npy_bool"), ("int8", "int8_t"), ("int16", "int16_t"), ("int32", "int32_t"),
    ("int64", "int64_t"), ("uint8", "uint8_t"), ("uint16", "uint16_t"), ("uint32", "uint32_t"),
    ("uint64", "uint64_t"), ("float32", "float"), ("float64", "double"))}
NUMPY_TYPES = {np.dtype(n): f"NPY_{n.upper()}" for n in (
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64")}
_INT64, _UINT64, _FLOAT64, _BOOL = (np.dtype(n) for n in ("int64", "uint64", "float64", "bool"))
_BY_NAME = {d.name: d for d in C_TYPES} | {"bool_": _BOOL}
_FLOAT_FUNCTIONS = {"sqrt", "exp", "log", "log1p", "sin", "cos", "tan", "tanh", "floor", "ceil",
                    "rint"}
# exp, log, ...: NumPy's own loops (see c_prelude), by slot; the C library's sqrt, floor, ceil
# and rint round as NumPy's do (correctly, or not at all).
_LOOP_SLOT = {slot: index for index, slot in enumerate(LOOP_SLOTS)}
_COMPARISONS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==",
                ast.NotEq: "!="}
# CBLAS' enumerations (helpers has them too, but imports Numba, which C kernels do without).
_ROW_MAJOR, _NO_TRANSPOSE, _TRANSPOSE = 101, 111, 112
_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.BitAnd: "&",
              ast.BitOr: "|", ast.BitXor: "^"}


@dataclass(frozen=True)
class ArrayType:
    """An array variable: its dtype, static shape and strides (in elements)."""

    dtype: np.dtype
    shape: tuple
    strides: tuple

    @property
    def contiguous(self) -> bool:
        return self.strides == _c_strides(self.shape)

    @property
    def transposed_contiguous(self) -> bool:
        """A transposed view of a C-contiguous array (NumPy's "F" layout)."""
        return self.strides == tuple(reversed(_c_strides(tuple(reversed(self.shape)))))


def _c_strides(shape: tuple) -> tuple:
    strides, step = [], 1
    for size in reversed(shape):
        strides.append(step)
        step *= size
    return tuple(reversed(strides))


def _result_dtype(a: np.dtype, b: np.dtype) -> np.dtype:
    """The type Numba gives a binary operation on scalars of types ``a`` and ``b``: NumPy's
    promotion, with integers widened to 64 bits."""
    dtype = a if a == b else np.promote_types(a, b)
    if dtype.kind == "i" or dtype.kind == "b":
        return _INT64
    if dtype.kind == "u":
        return _UINT64
    return dtype


def c_literal(value: float, dtype: np.dtype) -> str:
    """A float constant in C, exactly (repr gives the double that round-trips)."""
    if np.isnan(value):
        return "NAN"
    if np.isinf(value):
        return "INFINITY" if value > 0 else "(-INFINITY)"
    return f"(({C_TYPES[dtype]}){float(value)!r})"


class _Translator:
    def __init__(self, source: KernelSource, name: str):
        """``name``: the kernel's C function, and the prefix of the names it defines."""
        if set(source.inner_functions) - {"layer"}:
            raise Untranslatable("a kernel with inner functions other than a chain's layer")
        if len(source.arg_shapes) != len(source.arg_types):
            raise Untranslatable("a kernel whose operands' shapes are not known")
        self.source = source
        self.layer: ast.FunctionDef | None = None  # a rolled chain's layer (see _inline_layer)
        self.inlined = 0
        self.name = name
        self.scalars: dict[str, np.dtype] = {}
        self.arrays: dict[str, ArrayType] = {}
        self.lines: list[str] = []
        self.temporaries = 0
        self.loops = False  # whether the kernel's own body runs a loop (not only its nests)
        self.size_lists: dict[tuple, str] = {}
        self.functions: list[str] = []  # the loop nests, each a function (see _nest_function)
        self.nest: set | None = None  # in a nest: the kernel's scalars it writes (by pointer)
        self.nest_locals: set[str] = set()  # scalars made in nests, unknown outside them
        self.kernel_scalars: set[str] = set()  # scalars the kernel's own body uses

    # -- the module -----------------------------------------------------------------------

    def translate(self) -> str:
        tree = ast.parse(self.source.text)
        functions = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
        if len(functions) != len(tree.body) or "kernel" not in functions \
                or set(functions) - {"kernel", *self.source.inner_functions}:
            raise Untranslatable("not a kernel function")
        function = functions["kernel"]
        self.layer = functions.get("layer")
        params = [a.arg for a in function.args.args]
        arguments = []
        for index, (name, (dtype, ndim), shape) in enumerate(
                zip(params, self.source.arg_types, self.source.arg_shapes)):
            dtype = np.dtype(dtype)
            if dtype not in C_TYPES or len(shape) != ndim:
                raise Untranslatable(f"argument of dtype {dtype}")
            if ndim == 0:
                self.scalars[name] = dtype
                self.kernel_scalars.add(name)
                arguments.append(self._scalar_argument(name, dtype, index))
            else:
                self.arrays[name] = ArrayType(dtype, tuple(shape), _c_strides(tuple(shape)))
                arguments.append(self._array_argument(name, dtype, tuple(shape), index))
        for statement in _versioned(function.body, tuple(params)):
            self.statement(statement, "    ")
        return self._function_text(params, arguments)

    def _scalar_argument(self, name: str, dtype: np.dtype, index: int) -> str:
        if dtype.kind == "f":
            read = f"PyFloat_AsDouble(args[{index}])"
        elif dtype.kind == "b":
            read = f"PyObject_IsTrue(args[{index}])"
        else:
            read = f"read_{'unsigned' if dtype.kind == 'u' else 'signed'}(args[{index}])"
        return (f"    {name} = ({C_TYPES[dtype]}){read};\n"
                f"    if (PyErr_Occurred()) goto fail;\n")

    def _array_argument(self, name: str, dtype: np.dtype, shape: tuple, index: int) -> str:
        return (f"    if (!operand_matches(args[{index}], {NUMPY_TYPES[dtype]}, {len(shape)}, "
                f"{self._sizes(shape)}, {index})) goto fail;\n"
                f"    {name}_obj = args[{index}]; Py_INCREF({name}_obj);\n"
                f"    {name} = ({C_TYPES[dtype]}*)PyArray_DATA((PyArrayObject*){name}_obj);\n")

    def _function_text(self, params: list, arguments: list) -> str:
        # (A nest declares its own scalars: the kernel's text would only repeat them.)
        declarations = [f"    {C_TYPES[d]} {n} = 0;" for n, d in sorted(self.scalars.items())
                        if n in self.kernel_scalars]
        declarations += [f"    {C_TYPES[t.dtype]}* {n} = NULL; PyObject* {n}_obj = NULL;"
                         for n, t in sorted(self.arrays.items())]
        releases = "".join(f"    Py_XDECREF({n}_obj);\n" for n in sorted(self.arrays))
        count = len(params)
        return ("".join(f"static npy_intp {name}[] = {{{_dims(sizes)}}};\n"
                        for sizes, name in self.size_lists.items())
                + "\n".join(self.functions)
                + ("\n" if self.loops else "\nPLUMBING")  # see c_prelude
                + f"\nstatic PyObject* {self.name}(PyObject* self, PyObject* const* args, "
                  "Py_ssize_t nargs) {\n"
                + "\n".join(declarations) + "\n    PyObject* result = NULL;\n"
                + f"    if (nargs != {count}) {{ PyErr_SetString(PyExc_TypeError, "
                  f"\"the kernel takes {count} operands\"); return NULL; }}\n"
                + "    zero_divisor = 0;\n"
                + "".join(arguments)
                + "\n".join(self.lines) + "\n"
                + "fail:\n" + releases
                + "    if (zero_divisor && result != NULL) {\n"
                  "        Py_CLEAR(result);\n"
                  "        PyErr_SetString(PyExc_ZeroDivisionError, \"integer division by zero\");\n"
                  "    }\n"
                + "    return result;\n}\n")

    # -- statements -----------------------------------------------------------------------

    def statement(self, node: ast.stmt, indent: str) -> None:
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name) and _is_layer_call(node.value):
                self._inline_layer(target.id, node.value.value, indent)
            elif isinstance(target, ast.Name):
                self.assign(target.id, node.value, indent)
            elif isinstance(target, ast.Subscript):
                self.store(target, node.value, indent)
            elif isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple) \
                    and len(target.elts) == len(node.value.elts):
                self.assign_together(target.elts, node.value.elts, indent)
            else:
                raise Untranslatable("an assignment to several targets")
        elif isinstance(node, ast.AugAssign) and type(node.op) in (ast.Add,):
            value = ast.BinOp(left=_load(node.target), op=node.op, right=node.value)
            if isinstance(node.target, ast.Name):
                self.assign(node.target.id, value, indent)
            else:
                self.store(node.target, value, indent)
        elif isinstance(node, ast.For):
            self.loop(node, indent)
        elif isinstance(node, ast.While):
            if not (isinstance(node.test, ast.Constant) and node.test.value is True) \
                    or node.orelse:
                raise Untranslatable("a while loop other than `while True`")
            self.loops = self.loops or self.nest is None
            self.lines.append(f"{indent}for (;;) {{")
            for inner in node.body:
                self.statement(inner, indent + "    ")
            self.lines.append(f"{indent}}}")
        elif isinstance(node, ast.If):
            test, _ = self.expression(node.test)
            self.lines.append(f"{indent}if ({test}) {{")
            for inner in node.body:
                self.statement(inner, indent + "    ")
            if node.orelse:
                self.lines.append(f"{indent}}} else {{")
                for inner in node.orelse:
                    self.statement(inner, indent + "    ")
            self.lines.append(f"{indent}}}")
        elif isinstance(node, ast.Break):
            self.lines.append(f"{indent}break;")
        elif isinstance(node, ast.Pass):
            self.lines.append(f"{indent};")
        elif isinstance(node, ast.Return) and isinstance(node.value, ast.Tuple):
            self.ret(node.value.elts, indent)
        else:
            raise Untranslatable(f"the statement {type(node).__name__}")

    def loop(self, node: ast.For, indent: str) -> None:
        call = node.iter
        if not (isinstance(node.target, ast.Name) and isinstance(call, ast.Call)
                and _is_name(call.func, "range") and 1 <= len(call.args) <= 2
                and not node.orelse):
            raise Untranslatable("a loop other than `for i in range(...)`")
        bounds = [self.expression(a) for a in call.args]
        if any(dtype.kind not in "iu" for _, dtype in bounds):
            raise Untranslatable("a range of non-integers")
        start, stop = ("0", bounds[0][0]) if len(bounds) == 1 else (bounds[0][0], bounds[1][0])
        index = node.target.id
        self._declare_scalar(index, _INT64)
        if self.nest is None:
            nodes = list(ast.walk(node))
            if self._is_nest(nodes):
                self._nest_function(node, nodes, indent)
                return
        self.loops = self.loops or self.nest is None
        self.lines.append(f"{indent}for ({index} = {start}; {index} < (int64_t)({stop}); "
                          f"{index}++) {{")
        for inner in node.body:
            self.statement(inner, indent + "    ")
        self.lines.append(f"{indent}}}")

    def _is_nest(self, nodes: list) -> bool:
        """A loop nest of the kernel writer's (``nodes``: its loop's nodes): it makes no
        array, so each array it writes is a new one (or an accumulator) that no other name
        reaches while it runs."""
        return not any(_is_layer_call(inner) or isinstance(inner, ast.Assign) and any(
            isinstance(t, ast.Name) and self.array_like(inner.value) for t in inner.targets)
            for inner in nodes)

    def array_like(self, value: ast.expr) -> bool:
        if isinstance(value, ast.Name):
            return value.id in self.arrays
        if isinstance(value, ast.Attribute):
            return not _is_name(value.value, "np")
        if not isinstance(value, ast.Call):
            return False
        func = value.func
        if isinstance(func, ast.Attribute) and _is_name(func.value, "np"):
            if func.attr in _FLOAT_FUNCTIONS:  # of an array: NumPy's loop over it
                return any(isinstance(a, ast.Name) and a.id in self.arrays for a in value.args)
            return func.attr not in _BY_NAME
        return not (isinstance(func, ast.Name) and func.id in (*HELPER_TYPES, "abs",
                                                               "pairwise_sum"))

    def _nest_function(self, node: ast.For, nodes: list, indent: str) -> None:
        """Writes a loop nest as a function of its own whose arrays are ``restrict``
        parameters (each array a nest writes is new: see ``_is_nest``), so that the C
        compiler vectorizes it without run-time overlap checks; the kernel calls it."""
        before = dict(self.scalars)
        names = [n for n in nodes if isinstance(n, ast.Name)]
        stored = {n.id for n in names if isinstance(n.ctx, ast.Store)}
        loop_indices = {n.target.id for n in nodes if isinstance(n, ast.For)}
        written = sorted((stored - loop_indices) & set(before))
        read = sorted({n.id for n in names if isinstance(n.ctx, ast.Load) and n.id in before}
                      - set(written) - loop_indices)
        arrays = sorted({n.id for n in names if n.id in self.arrays})
        outer_lines, self.lines = self.lines, []
        self.nest = set(written)
        self.loop(node, "    ")
        self.nest = None
        body, self.lines = self.lines, outer_lines
        local = sorted((set(self.scalars) - set(before)) | loop_indices)
        self.nest_locals.update(local)
        name = f"{self.name}_nest{len(self.functions)}"
        params = ([f"{C_TYPES[self.arrays[a].dtype]}* restrict {a}" for a in arrays]
                  + [f"{C_TYPES[self.scalars[r]]} {r}" for r in read]
                  + [f"{C_TYPES[self.scalars[w]]}* restrict {w}" for w in written])
        self.functions.append(
            f"static __attribute__((noinline)) void {name}({', '.join(params) or 'void'}) {{\n"
            + "".join(f"    {C_TYPES[self.scalars[n]]} {n};\n" for n in local)
            + "\n".join(body) + "\n}\n")
        call = f"{name}({', '.join([*arrays, *read, *(f'&{w}' for w in written)])});"
        self.lines.append(f"{indent}{_without_the_lock(call, _iterations(node))}")

    def _inline_layer(self, target: str, call: ast.Call, indent: str) -> None:
        """``target = layer(...)[0]`` of a rolled chain: the layer's body written in place,
        its names prefixed, its array parameters bound to the operands (a layer's slice of a
        stacked constant is a pointer into it), its result assigned to ``target``."""
        layer = self.layer
        if layer is None or len(call.args) != len(layer.args.args):
            raise Untranslatable("a call of an unknown layer")
        self.inlined += 1
        prefix = f"l{self.inlined}_"
        names = {a.arg for a in layer.args.args} | {
            n.id for n in ast.walk(layer) if isinstance(n, ast.Name)
            and isinstance(n.ctx, ast.Store)}
        for param, argument in zip(layer.args.args, call.args):
            self._bind_parameter(prefix + param.arg, argument, indent)
        body = _prefixed([ast.parse(ast.unparse(s)).body[0] for s in layer.body], names, prefix)
        *statements, result = _versioned(body, tuple(prefix + a.arg for a in layer.args.args))
        if not (isinstance(result, ast.Return) and isinstance(result.value, ast.Tuple)
                and len(result.value.elts) == 1):
            raise Untranslatable("a layer that does not return one value")
        for statement in statements:
            self.statement(statement, indent)
        self.assign(target, result.value.elts[0], indent)

    def _bind_parameter(self, name: str, argument: ast.expr, indent: str) -> None:
        if isinstance(argument, ast.Subscript) and isinstance(argument.value, ast.Name) \
                and argument.value.id in self.arrays:  # one layer's part of a stacked array
            base = argument.value.id
            stacked = self.arrays[base]
            index, _ = self.expression(argument.slice)
            array = ArrayType(stacked.dtype, stacked.shape[1:], stacked.strides[1:])
            self._declare_array(name, array)
            self.lines += [f"{indent}{{ PyObject* held = {base}_obj; Py_INCREF(held); "
                           f"Py_XDECREF({name}_obj); {name}_obj = held; }}",
                           f"{indent}{name} = {base} + ({index}) * {stacked.strides[0]};"]
            return
        self.assign(name, argument, indent)

    def assign(self, name: str, value: ast.expr, indent: str) -> None:
        array = self.array_value(value, indent)
        if array is None:
            code, dtype = self.expression(value)
            self._declare_scalar(name, dtype)
            self.lines.append(f"{indent}{self._scalar_name(name)} = {code};")
            return
        pointer, owner, array_type = array
        self._declare_array(name, array_type)
        # The new value is referenced before the old one is released: `x = x.T` keeps x alive.
        self.lines.append(f"{indent}{{ PyObject* held = {owner}; Py_INCREF(held); "
                          f"Py_XDECREF({name}_obj); {name}_obj = held; }}")
        self.lines.append(f"{indent}{name} = {pointer};")

    def assign_together(self, targets: list, values: list, indent: str) -> None:
        """``a, b = x, y``: every value is read before any target is written."""
        if not all(isinstance(t, ast.Name) for t in targets):
            raise Untranslatable("a tuple assignment to subscripts")
        temporaries = []
        for value in values:
            temporary = self._temporary()
            self.assign(temporary, value, indent)
            temporaries.append(temporary)
        for target, temporary in zip(targets, temporaries):
            self.assign(target.id, ast.Name(id=temporary, ctx=ast.Load()), indent)

    def store(self, target: ast.Subscript, value: ast.expr, indent: str) -> None:
        element, dtype = self.element(target)
        code, _ = self.expression(value)
        self.lines.append(f"{indent}{element} = ({C_TYPES[dtype]})({code});")

    def ret(self, values: list, indent: str) -> None:
        parts = []
        for value in values:
            if not isinstance(value, ast.Name):
                raise Untranslatable("a result that is not a variable")
            name = value.id
            if name in self.arrays:
                parts.append(self._returned_array(name))
            elif name in self.scalars:
                parts.append(_boxed(name, self.scalars[name]))
            else:
                raise Untranslatable(f"an unknown result {name}")
        boxes = [f"r{i}" for i in range(len(parts))]
        self.lines.append(f"{indent}{{")
        self.lines += [f"{indent}    PyObject* {box} = {part};" for box, part in zip(boxes, parts)]
        release = " ".join(f"Py_XDECREF({box});" for box in boxes)
        self.lines += [
            f"{indent}    if ({' && '.join(boxes)}) result = PyTuple_Pack({len(boxes)}, "
            f"{', '.join(boxes)});",
            f"{indent}    {release}",
            f"{indent}    goto fail;",
            f"{indent}}}"]

    def _returned_array(self, name: str) -> str:
        """A new reference to the array ``name``: its own object when it is a whole array,
        else a NumPy view of the array that owns its elements (as Numba returns views)."""
        array = self.arrays[name]
        return (f"returned({name}_obj, (char*){name}, {NUMPY_TYPES[array.dtype]}, "
                f"{len(array.shape)}, {self._sizes(array.shape)}, {self._sizes(array.strides)})")

    # -- arrays ---------------------------------------------------------------------------

    def array_value(self, value: ast.expr, indent: str):
        """(pointer, owner object, type) when ``value`` makes or names an array, else None."""
        if isinstance(value, ast.Name) and value.id in self.arrays:
            return value.id, f"{value.id}_obj", self.arrays[value.id]
        if isinstance(value, ast.Attribute) and value.attr == "T":
            base = self._array_operand(value.value)
            array = self.arrays[base]
            return base, f"{base}_obj", ArrayType(array.dtype, array.shape[::-1],
                                                  array.strides[::-1])
        if not isinstance(value, ast.Call):
            return None
        func = value.func
        if isinstance(func, ast.Attribute) and func.attr == "reshape":
            base = self._array_operand(func.value)
            array = self.arrays[base]
            if not array.contiguous or len(value.args) != 1:
                raise Untranslatable("a reshape of a strided view")
            shape = self._shape(value.args[0])
            if int(np.prod(shape)) != int(np.prod(array.shape)):
                raise Untranslatable("a reshape that changes the size")
            return base, f"{base}_obj", ArrayType(array.dtype, shape, _c_strides(shape))
        if _is_numpy(func, "transpose"):
            base = self._array_operand(value.args[0])
            array = self.arrays[base]
            perm = self._shape(value.args[1])
            return base, f"{base}_obj", ArrayType(array.dtype, tuple(array.shape[p] for p in perm),
                                                  tuple(array.strides[p] for p in perm))
        if _is_numpy(func, "ascontiguousarray"):
            base = self._array_operand(value.args[0])
            array = self.arrays[base]
            if array.contiguous:
                return base, f"{base}_obj", array
            return self._new_array(array.dtype, array.shape, indent, copy_of=base)
        if _is_numpy(func, "empty") or _is_numpy(func, "zeros") or _is_numpy(func, "full"):
            return self._allocation(func.attr, value.args, indent)
        if isinstance(func, ast.Attribute) and _is_name(func.value, "np") \
                and len(value.args) == 1 and self.array_like(value):
            return self._numpy_loop(func.attr, value.args[0], indent)
        if isinstance(func, ast.Name) and func.id.startswith("numpy_") and "gemm_" in func.id:
            return self._gemm(func.id, value.args, indent)
        return None

    def _array_operand(self, node: ast.expr) -> str:
        if isinstance(node, ast.Name) and node.id in self.arrays:
            return node.id
        raise Untranslatable("an array operand that is not a variable")

    def _shape(self, node: ast.expr) -> tuple:
        try:
            shape = ast.literal_eval(node)
        except ValueError:
            raise Untranslatable("a shape that is not a literal") from None
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        if not all(isinstance(size, int) and size >= 0 for size in shape):
            raise Untranslatable("a shape that is not a tuple of sizes")
        return shape

    def _dtype(self, node: ast.expr) -> np.dtype:
        if isinstance(node, ast.Attribute) and _is_name(node.value, "np") \
                and node.attr in _BY_NAME:
            return _BY_NAME[node.attr]
        raise Untranslatable("a dtype that is not np.<name>")

    def _allocation(self, kind: str, args: list, indent: str):
        shape = self._shape(args[0])
        dtype = self._dtype(args[-1])
        pointer, owner, array = self._new_array(dtype, shape, indent)
        size = int(np.prod(shape))
        if kind == "zeros":
            self.lines.append(f"{indent}memset({pointer}, 0, {size * dtype.itemsize});")
        elif kind == "full":
            code, _ = self.expression(args[1])
            index = self._temporary()
            self._declare_scalar(index, _INT64)
            self.lines.append(f"{indent}for ({index} = 0; {index} < {size}; {index}++) "
                              f"{pointer}[{index}] = ({C_TYPES[dtype]})({code});")
        return pointer, owner, array

    def _new_array(self, dtype: np.dtype, shape: tuple, indent: str, copy_of: str | None = None):
        name = self._temporary()
        array = ArrayType(dtype, shape, _c_strides(shape))
        self._declare_array(name, array)
        if copy_of is None:
            make = (f"PyArray_SimpleNew({len(shape)}, {self._sizes(shape)}, "
                    f"{NUMPY_TYPES[dtype]})")
        else:
            source = self.arrays[copy_of]
            make = (f"strided_copy((char*){copy_of}, {NUMPY_TYPES[dtype]}, {len(shape)}, "
                    f"{self._sizes(shape)}, {self._sizes(source.strides)})")
        self.lines += [f"{indent}Py_XDECREF({name}_obj); {name}_obj = {make};",
                       f"{indent}if (!{name}_obj) goto fail;",
                       f"{indent}{name} = ({C_TYPES[dtype]}*)PyArray_DATA("
                       f"(PyArrayObject*){name}_obj);"]
        return name, f"{name}_obj", array

    def _numpy_loop(self, function: str, operand: ast.expr, indent: str):
        """``np.exp(x)`` of a C-contiguous array: NumPy's loop over all of it, as the plan's
        ``np.exp`` runs it."""
        name = self._array_operand(operand)
        array = self.arrays[name]
        slot = _LOOP_SLOT.get((function, array.dtype.name))
        if slot is None or not array.contiguous:
            raise Untranslatable(f"np.{function} of a {array.dtype} array or a strided view")
        out, owner, result = self._new_array(array.dtype, array.shape, indent)
        size = int(np.prod(array.shape))
        call = f"numpy_loop({slot}, {name}, {out}, {size}, {array.dtype.itemsize});"
        self.lines.append(f"{indent}{_without_the_lock(call, size)}")
        return out, owner, result

    def _gemm(self, helper: str, args: list, indent: str):
        """NumPy's own gemm, called in the blocks ``helpers.numpy_gemm_matmul`` uses (that one
        splits the product when the kernel runs, inside Numba; here the shapes are known, so
        the split is done once, while writing the C, and each block is one call)."""
        kind = helper[len("numpy_")]
        dtype = np.dtype(np.float32 if kind == "s" else np.float64)
        operands = [self.arrays[self._array_operand(a)] for a in args]
        names = [self._array_operand(a) for a in args]
        (m, k), (_, n) = operands[0].shape, operands[1].shape
        out, owner, array = self._new_array(dtype, (m, n), indent)
        if m == 0 or n == 0 or k == 0:
            self.lines.append(f"{indent}memset({out}, 0, {m * n * dtype.itemsize});")
            return out, owner, array
        flags = []
        for name, operand in zip(names, operands):
            if operand.contiguous:
                flags.append((name, _NO_TRANSPOSE, operand.shape[1]))
            elif operand.transposed_contiguous:
                flags.append((name, _TRANSPOSE, operand.shape[0]))
            else:
                raise Untranslatable("a product of a strided view")
        (x, transpose_x, ldx), (y, transpose_y, ldy) = flags
        row_step = ldx if transpose_x == _NO_TRANSPOSE else 1
        column_step = 1 if transpose_y == _NO_TRANSPOSE else ldy
        split, block = blas_blocks(m, k, n)
        by_rows = split != COLUMN_BLOCKS
        total = m if by_rows else n
        if split == ONE_CALL:
            block = m
        start, one = 0, c_literal(1.0, dtype)
        zero = c_literal(0.0, dtype)
        while start < total:
            stop = block_stop(start, block, total)
            if by_rows:
                rows, columns, a_at, b_at, out_at = stop - start, n, start * row_step, 0, start * n
            else:
                rows, columns, a_at, b_at, out_at = m, stop - start, 0, start * column_step, start
            call = (f"{kind}gemm_call({_ROW_MAJOR}, {transpose_x}, {transpose_y}, {rows}, {columns}, "
                    f"{k}, {one}, {x} + {a_at}, {ldx}, {y} + {b_at}, {ldy}, {zero}, "
                    f"{out} + {out_at}, {n});")
            self.lines.append(f"{indent}{_without_the_lock(call, rows * columns * k)}")
            start = stop
        return out, owner, array

    def element(self, node: ast.Subscript) -> tuple[str, np.dtype]:
        name = self._array_operand(node.value)
        array = self.arrays[name]
        index = node.slice
        parts = list(index.elts) if isinstance(index, ast.Tuple) else [index]
        if len(parts) != len(array.shape):
            raise Untranslatable("an index of another rank than its array")
        terms = []
        for part, stride in zip(parts, array.strides):
            code, dtype = self.expression(part)
            if dtype.kind not in "iu":
                raise Untranslatable("an index that is not an integer")
            terms.append(f"({code}) * {stride}")
        return f"{name}[{' + '.join(terms) if terms else '0'}]", array.dtype

    # -- scalar expressions ---------------------------------------------------------------

    def expression(self, node: ast.expr) -> tuple[str, np.dtype]:
        if isinstance(node, ast.Constant):
            value = node.value
            if isinstance(value, bool):
                return ("1" if value else "0"), _BOOL
            if isinstance(value, int):
                return f"((int64_t){value}LL)", _INT64
            if isinstance(value, float):
                return c_literal(value, _FLOAT64), _FLOAT64
            raise Untranslatable(f"the constant {value!r}")
        if isinstance(node, ast.Name):
            if node.id in self.nest_locals and self.nest is None:
                raise Untranslatable(f"{node.id} is made in a loop nest and read after it")
            if node.id in self.scalars:
                return self._scalar_name(node.id), self.scalars[node.id]
            raise Untranslatable(f"the name {node.id}")
        if isinstance(node, ast.Attribute) and _is_name(node.value, "np") \
                and node.attr in ("inf", "nan"):
            return ("INFINITY" if node.attr == "inf" else "NAN"), _FLOAT64
        if isinstance(node, ast.Subscript):
            return self.element(node)
        if isinstance(node, ast.BinOp) and type(node.op) in (ast.FloorDiv, ast.Mod):
            (left, a), (right, b) = self.expression(node.left), self.expression(node.right)
            dtype = _result_dtype(a, b)
            if dtype.kind != "f":
                raise Untranslatable("an integer // or % outside the helpers")
            function = "floor_divide" if isinstance(node.op, ast.FloorDiv) else "remainder"
            c = C_TYPES[dtype]
            return f"{function}_{dtype.name}(({c})({left}), ({c})({right}))", dtype
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            (left, a), (right, b) = self.expression(node.left), self.expression(node.right)
            dtype = _result_dtype(a, b)
            if isinstance(node.op, ast.Div) and dtype.kind != "f":
                dtype = _FLOAT64  # Python's true division
            if type(node.op) in (ast.BitAnd, ast.BitOr, ast.BitXor) and dtype.kind == "f":
                raise Untranslatable("a bitwise operation on floats")
            c = C_TYPES[dtype]
            return f"(({c})({left}) {_OPERATORS[type(node.op)]} ({c})({right}))", dtype
        if isinstance(node, ast.UnaryOp):
            operand, dtype = self.expression(node.operand)
            if isinstance(node.op, ast.Not):
                return f"(!({operand}))", _BOOL
            widened = dtype if dtype.kind == "f" else _result_dtype(dtype, dtype)
            symbol = {ast.USub: "-", ast.UAdd: "+", ast.Invert: "~"}.get(type(node.op))
            if symbol is None or (symbol == "~" and dtype.kind == "f"):
                raise Untranslatable(f"the operator {type(node.op).__name__}")
            return f"({symbol}({C_TYPES[widened]})({operand}))", widened
        if isinstance(node, ast.Compare) and len(node.ops) == 1 \
                and type(node.ops[0]) in _COMPARISONS:
            (left, a), (right, b) = (self.expression(node.left),
                                     self.expression(node.comparators[0]))
            c = C_TYPES[_result_dtype(a, b)]
            return f"(({c})({left}) {_COMPARISONS[type(node.ops[0])]} ({c})({right}))", _BOOL
        if isinstance(node, ast.BoolOp):
            symbol = " && " if isinstance(node.op, ast.And) else " || "
            return "(" + symbol.join(f"({self.expression(v)[0]})" for v in node.values) + ")", \
                _BOOL
        if isinstance(node, ast.IfExp):
            test, _ = self.expression(node.test)
            (then, a), (other, b) = self.expression(node.body), self.expression(node.orelse)
            if a != b:
                raise Untranslatable("a conditional expression of two types")
            return f"(({test}) ? ({then}) : ({other}))", a
        if isinstance(node, ast.Call):
            return self.call(node)
        raise Untranslatable(f"the expression {type(node).__name__}")

    def call(self, node: ast.Call) -> tuple[str, np.dtype]:
        func, args = node.func, node.args
        if node.keywords:
            raise Untranslatable("a call with keywords")
        if isinstance(func, ast.Attribute) and _is_name(func.value, "np"):
            if func.attr in _BY_NAME and len(args) == 1:  # a dtype's constructor: a cast
                dtype = _BY_NAME[func.attr]
                code, source = self.expression(args[0])
                if dtype.kind == "b":
                    return f"(({code}) != 0)", dtype
                if source.kind == "f" and dtype.kind in "iu":
                    raise Untranslatable("a float converted to an integer")
                return f"(({C_TYPES[dtype]})({code}))", dtype
            if func.attr in _FLOAT_FUNCTIONS and len(args) == 1:
                code, dtype = self.expression(args[0])
                if dtype.kind != "f":
                    raise Untranslatable(f"np.{func.attr} of an integer")
                slot = _LOOP_SLOT.get((func.attr, dtype.name))
                if slot is not None:
                    return f"numpy_loop_{dtype.name}({slot}, {code})", dtype
                suffix = "f" if dtype == np.float32 else ""
                return f"{func.attr}{suffix}({code})", dtype
            raise Untranslatable(f"np.{func.attr}")
        if not isinstance(func, ast.Name):
            raise Untranslatable("a call of an expression")
        if func.id == "pairwise_sum":
            return self._pairwise_sum(args)
        if func.id == "abs" and len(args) == 1:
            code, dtype = self.expression(args[0])
            if dtype.kind == "f":
                return f"fabs{'f' if dtype == np.float32 else ''}({code})", dtype
            if dtype.kind == "u":
                return code, _UINT64
            return f"wrapping_abs((int64_t)({code}))", _INT64
        helper = HELPER_TYPES.get(func.id)
        if helper is None:
            raise Untranslatable(f"the function {func.id}")
        operands = [self.expression(a) for a in args]
        return helper(func.id, operands)

    def _pairwise_sum(self, args: list) -> tuple[str, np.dtype]:
        name = self._array_operand(args[0])
        array = self.arrays[name]
        if array.dtype.kind != "f" or len(array.shape) != 1:
            raise Untranslatable("a pairwise sum of integers")
        (start, _), (count, _) = self.expression(args[1]), self.expression(args[2])
        kind = array.dtype.name
        return f"pairwise_sum_{kind}({name} + ({start}), {count})", array.dtype

    # -- declarations ---------------------------------------------------------------------

    def _scalar_name(self, name: str) -> str:
        """How C code reaches a scalar: through its pointer in a nest that writes it."""
        return f"(*{name})" if self.nest and name in self.nest else name

    def _declare_scalar(self, name: str, dtype: np.dtype) -> None:
        if name in self.arrays or self.scalars.setdefault(name, dtype) != dtype:
            raise Untranslatable(f"{name} is given values of two types")
        if self.nest is None:
            self.kernel_scalars.add(name)

    def _declare_array(self, name: str, array: ArrayType) -> None:
        if name in self.scalars or self.arrays.setdefault(name, array) != array:
            raise Untranslatable(f"{name} is given arrays of two layouts")

    def _sizes(self, sizes: tuple) -> str:
        """The name of a constant C array holding ``sizes`` (shapes, strides)."""
        key = tuple(sizes)
        if key not in self.size_lists:
            self.size_lists[key] = f"{self.name}_sizes{len(self.size_lists)}"
        return self.size_lists[key]

    def _temporary(self) -> str:
        self.temporaries += 1
        return f"c_t{self.temporaries}"


# Work (elements, or multiply-adds) from which a loop nest or product runs without the
# interpreter's lock, as Numba's kernels did: other threads go on meanwhile. Below it, taking
# the lock back would cost more than the work.
UNLOCKED_WORK = 1 << 14


def _without_the_lock(call: str, work: int | None) -> str:
    """``call`` (of C code that touches no Python object) releasing the interpreter's lock
    when its ``work`` is known and large."""
    if work is None or work < UNLOCKED_WORK:
        return call
    return f"Py_BEGIN_ALLOW_THREADS {call} Py_END_ALLOW_THREADS"


def _iterations(loop: ast.For) -> int | None:
    """How many times the innermost body of a nest of ``range(constant)`` loops runs (None
    when a bound is not a constant)."""
    total, node = 1, loop
    while isinstance(node, ast.For):
        bounds = node.iter.args
        if not all(isinstance(b, ast.Constant) and isinstance(b.value, int) for b in bounds):
            return None
        values = [b.value for b in bounds]
        total *= max(0, values[-1] - (values[0] if len(values) == 2 else 0))
        inner = [s for s in node.body if isinstance(s, ast.For)]
        node = inner[0] if len(inner) == 1 and len(node.body) == 1 else None
    return total


def _is_layer_call(node: ast.AST) -> bool:
    """``layer(...)[0]``: a rolled chain's call of its layer."""
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Call) \
        and _is_name(node.value.func, "layer")


def _prefixed(body: list, names: set, prefix: str) -> list:
    """``body`` with each of ``names`` prefixed (an inlined layer's own names)."""
    class Prefix(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.Name:
            return ast.Name(id=prefix + node.id if node.id in names else node.id, ctx=node.ctx)
    return [Prefix().visit(statement) for statement in body]


def _versioned(body: list, defined: tuple = ()) -> list:
    """``body`` with each name the function's top level assigns again (``defined``: names it
    starts with) renamed from there on (``t12 = t12.reshape((3,))`` makes ``t12_v1``): a C
    variable keeps one type and shape. Names assigned in loops and branches (a loop's carried
    values) keep theirs."""
    current: dict[str, str] = {}
    versions: dict[str, int] = dict.fromkeys(defined, 0)  # parameters

    class Rename(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.Name:
            return ast.Name(id=current.get(node.id, node.id), ctx=node.ctx)

    renamed = []
    for statement in body:
        targets = []
        if isinstance(statement, ast.Assign):
            for target in statement.targets:
                targets += target.elts if isinstance(target, ast.Tuple) else [target]
        if current:
            statement = Rename().visit(statement)
        for name in [t.id for t in targets if isinstance(t, ast.Name)]:
            if name in versions:
                versions[name] += 1
                new = f"{name}_v{versions[name]}"
                _rename_stores(statement, current.get(name, name), new)
                current[name] = new
            else:
                versions[name] = 0
        renamed.append(statement)
    return renamed


def _rename_stores(statement: ast.stmt, old: str, new: str) -> None:
    for target in statement.targets:
        for name in (target.elts if isinstance(target, ast.Tuple) else [target]):
            if isinstance(name, ast.Name) and name.id == old:
                name.id = new


def _gemm_index() -> str:
    gemm = numpy_gemm()
    return "int" if gemm is not None and gemm.index_bits == 32 else "int64_t"


def _selection(name: str, operands: list) -> tuple[str, np.dtype]:
    """float_maximum and float_minimum, which the kernel writer also calls on integers."""
    (a, x), (b, y) = operands
    if x != y:
        raise Untranslatable(f"{name} of {x} and {y}")
    return f"{name}_{x.name}({a}, {b})", x


def _int64s(name: str, operands: list) -> tuple[str, np.dtype]:
    if any(dtype.kind not in "iu" for _, dtype in operands):
        raise Untranslatable(f"{name} of floats")
    if any(dtype.kind == "u" for _, dtype in operands):
        if name not in ("int_mod", "uint_floordiv"):
            raise Untranslatable(f"{name} of unsigned integers")
        name = "uint_mod" if name == "int_mod" else name
        return f"{name}({', '.join(f'(uint64_t)({a})' for a, _ in operands)})", _UINT64
    return f"{name}({', '.join(f'(int64_t)({a})' for a, _ in operands)})", _INT64


def _truncated_mean(name: str, operands: list) -> tuple[str, np.dtype]:
    (total, _), (count, _) = operands
    return f"truncated_mean((int64_t)({total}), (int64_t)({count}))", _INT64


def _power(name: str, operands: list) -> tuple[str, np.dtype]:
    (a, x), (b, y) = operands
    if x != y or x.kind != "f":
        raise Untranslatable("a power of two types")
    return f"float_power_{x.name}({a}, {b})", x


HELPER_TYPES = {
    "float_maximum": _selection, "float_minimum": _selection, "float_power": _power,
    "wrapping_add": _int64s, "wrapping_sub": _int64s, "wrapping_mul": _int64s,
    "wrapping_neg": _int64s, "wrapping_abs": _int64s, "int_floordiv": _int64s,
    "uint_floordiv": _int64s, "int_mod": _int64s, "truncated_mean": _truncated_mean,
}


def _boxed(name: str, dtype: np.dtype) -> str:
    if dtype.kind == "f":
        return f"PyFloat_FromDouble((double){name})"
    if dtype.kind == "b":
        return f"PyBool_FromLong({name})"
    if dtype.kind == "u":
        return f"PyLong_FromUnsignedLongLong((unsigned long long){name})"
    return f"PyLong_FromLongLong((long long){name})"


def _dims(sizes: tuple) -> str:
    return ", ".join(str(size) for size in sizes) or "0"


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _is_numpy(func: ast.expr, attr: str) -> bool:
    return isinstance(func, ast.Attribute) and func.attr == attr and _is_name(func.value, "np")


def _load(target: ast.expr) -> ast.expr:
    copy = ast.parse(ast.unparse(target), mode="eval").body
    return copy


def kernel_function(source: KernelSource, name: str) -> str:
    """The C function ``name`` (a METH_FASTCALL function of a module) running ``source``,
    with the functions and constants it uses. Raises ``Untranslatable`` for kernels outside
    the subset."""
    return _Translator(source, name).translate()


def module_source(functions: dict[str, str], module: str) -> str:
    """The C text of the extension module ``module`` holding ``functions`` (name -> text of
    ``kernel_function``): one module per batch, so the compiler reads the headers once."""
    methods = "".join(f'    {{"{name}", (PyCFunction)(void(*)(void)){name}, METH_FASTCALL, '
                      f'"a compiled kernel"}},\n' for name in functions)
    return (f"#define GEMM_INDEX {_gemm_index()}\n#define LOOP_SLOT_COUNT {len(LOOP_SLOTS)}\n"
            + PRELUDE
            + "".join(f"static gemm_{kind} {kind}gemm_call = NULL;\n" for kind in "sd")
            + "\n".join(functions.values())
            + MODULE_TEMPLATE.replace("METHODS", methods).replace("MODULE", module))
