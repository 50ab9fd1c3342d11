"""``rt.function``: a polymorphic function that traces one graph per kind of arguments.

The call path is kept short because it runs on every call: bind the arguments (a tuple when
they are all positional), build the key while collecting the tensor values, look the key up,
run the compiled plan. Only a cache miss takes the lock and traces.
"""

from __future__ import annotations

import functools
import inspect
import threading
import weakref
from types import MethodType
from typing import Callable, Sequence

import numpy as np

from runtime import config, dtypes, nest, outside_objects, retracing, tracing, variables
from runtime.autodiff import recording
from runtime.backends.jit import INSTALL_HINT as JIT_INSTALL_HINT
from runtime.backends.jit import available as jit_available
from runtime.concrete_function import ConcreteFunction
from runtime.fast_call import MISS
from runtime.graph import Graph
from runtime.source_location import user_traceback
from runtime.ops.dispatch import constant_in_graph
from runtime.passes import optimize
from runtime.tensor import EagerTensor, SymbolicTensor, Tensor, TensorSpec, format_shape
from runtime.trace_keys import encode, generalize, is_tensor_key, matches, unsupported_dtype
from runtime.traced_graph import GraphRecord

_POSITIONAL = (inspect.Parameter.POSITIONAL_ONLY, inspect.Parameter.POSITIONAL_OR_KEYWORD)


class Function:
    """Calls a Python function through cached graphs (one ConcreteFunction per signature)."""

    def __init__(self, python_function: Callable, *, input_signature: Sequence | None = None,
                 reduce_retracing: bool = False, name: str | None = None,
                 trace_function: Callable | None = None, jit_compile: bool | None = None):
        """``trace_function`` (default: ``python_function``) is what gets traced; the
        transpiler passes the converted function here and keeps the original for eager runs.
        ``jit_compile`` (TensorFlow's name): True runs the compiled tier from the first call
        (it needs a C compiler with Python's headers, or ``pip install "eager2graph[jit]"``),
        False never, None (the default) moves a function called often to it in the background
        when it can."""
        if jit_compile is True and not jit_available():
            raise ImportError(f"jit_compile=True needs a compiler for the compiled tier: a C "
                              f"compiler with Python's headers, or Numba ({JIT_INSTALL_HINT}); "
                              f"or leave jit_compile=None to compile only where one is there.")
        self.jit_compile = jit_compile
        self.python_function = python_function
        self._trace_function = trace_function or python_function
        self.reduce_retracing = bool(reduce_retracing)
        self.__name__ = name or getattr(python_function, "__name__", "function")
        self.__doc__ = getattr(python_function, "__doc__", None)
        self.__wrapped__ = python_function
        self._signature = inspect.signature(python_function)
        params = list(self._signature.parameters.values())
        self._param_names = [p.name for p in params]
        self._all_positional = all(p.kind in _POSITIONAL for p in params)
        self._num_params = len(params)
        # TensorFlow's rule: a first parameter named ``self`` is a method's instance, which
        # input_signature does not cover; the Function of each instance binds it (``__get__``).
        self._takes_instance = bool(params) and params[0].name == "self" \
            and params[0].kind in _POSITIONAL
        self._cache: dict[tuple, ConcreteFunction] = {}
        self._concretes: list[ConcreteFunction] = []
        self._relaxed: list[ConcreteFunction] = []
        self._lock = threading.RLock()
        self._calls_since_trace = 0
        self._code_key = _code_of(python_function)
        self.input_signature = None if input_signature is None else self._check_signature_spec(
            input_signature)
        self._signature_concrete: ConcreteFunction | None = None
        self._entry: Callable | None = None  # fast path of the last signature called
        self._methods: dict[int, _MethodFunction] = {}  # id(instance) -> its Function
        # Variables: None before the first trace, then whether it created any (TensorFlow's
        # rule: only the first trace may); the first trace's graph while it has to run once.
        self._created_variables: bool | None = None
        self._initializing: ConcreteFunction | None = None

    # -- calling ----------------------------------------------------------------------------

    def __call__(self, *args, **kwargs):
        try:
            entry = self._entry
            if entry is not None and not kwargs and not tracing.active_traces \
                    and not config._run_functions_eagerly and not recording.active:
                result = entry(args)
                if result is not MISS:
                    self._calls_since_trace += 1
                    return result
            return self._call_general(args, kwargs)
        except Exception as error:
            if not config._traceback_filtering:  # rt.config.set_traceback_filtering
                raise
            raise error.with_traceback(user_traceback(error))

    def _call_general(self, args: tuple, kwargs: dict):
        if config._run_functions_eagerly or recording.recording_here():
            # A gradient tape records eager ops one by one: it sees inside the function only
            # when the function runs eagerly.
            return self.python_function(*args, **kwargs)
        if tracing.is_tracing():
            # Called from another function being traced: its ops join that graph.
            return self._trace_function(*args, **kwargs)
        values = args if (not kwargs and len(args) == self._num_params and self._all_positional) \
            else self._bind(args, kwargs)
        if self.input_signature is not None:
            return self._call_with_signature(values)
        leaves: list = []
        key = tuple([encode(value, leaves) for value in values])
        concrete = self._cache.get(key)
        if concrete is None:
            concrete = self._on_miss(key, values)
            if self._initializing is not None:
                concrete = self._take_initializing(concrete)
        else:
            self._calls_since_trace += 1
            if values is args:
                # A signature used again: worth writing its fast entry (once per trace).
                self._entry = concrete.fast_entry
        return concrete._call_flat(leaves)

    def _bind(self, args, kwargs) -> tuple:
        try:
            bound = self._signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError(f"{self.__name__}(): {self._binding_problem(kwargs, error)}") from None
        bound.apply_defaults()
        return tuple(bound.arguments.values())

    def _binding_problem(self, kwargs: dict, error: TypeError) -> str:
        """Why the arguments do not fit, naming an unexpected keyword first (``bind`` would
        report a missing parameter instead)."""
        parameters = self._signature.parameters
        if not any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
            unknown = [name for name in kwargs if name not in parameters
                       or parameters[name].kind is inspect.Parameter.POSITIONAL_ONLY]
            if unknown:
                return (f"got an unexpected keyword argument '{unknown[0]}'. Its parameters are "
                        f"{', '.join(parameters) or 'none'}.")
        return f"{error}."

    def _bind_pair(self, args, kwargs) -> tuple:
        return args if (not kwargs and len(args) == self._num_params and self._all_positional) \
            else self._bind(args, kwargs)

    def _call_python(self, fn: Callable, values: tuple):
        if self._all_positional:
            return fn(*values)
        arguments = dict(zip(self._param_names, values))
        bound = inspect.BoundArguments(self._signature, arguments)
        return fn(*bound.args, **bound.kwargs)

    def _on_miss(self, key: tuple, values: tuple) -> ConcreteFunction:
        with self._lock:
            concrete = self._cache.get(key)
            if concrete is not None:
                return concrete
            concrete = self._find_relaxed(key)
            if concrete is None:
                trace_key = self._relax(key) if self.reduce_retracing else key
                concrete = self._trace(trace_key, values)
                if trace_key != key:
                    self._relaxed.append(concrete)
                retracing.record_trace(self._code_key, self._calls_since_trace, key,
                                       self._param_names, _display_name(self.python_function))
                self._calls_since_trace = 0
            self._cache[key] = concrete
            return concrete

    def _find_relaxed(self, key: tuple) -> ConcreteFunction | None:
        for concrete in self._relaxed:
            if len(concrete.key) == len(key) and all(matches(p, q) for p, q in zip(key, concrete.key)):
                return concrete
        return None

    def _relax(self, key: tuple) -> tuple:
        """With reduce_retracing: the new key generalized against an earlier trace's key."""
        for concrete in reversed(self._concretes):
            if len(concrete.key) != len(key):
                continue
            parts = [generalize(p, q) for p, q in zip(key, concrete.key)]
            if all(part is not None for part in parts):
                return tuple(parts)
        return key

    # -- input_signature --------------------------------------------------------------------

    def _check_signature_spec(self, input_signature) -> tuple:
        if not isinstance(input_signature, (list, tuple)):
            raise TypeError(f"input_signature of {self.__name__} must be a list or tuple with one "
                            f"rt.TensorSpec per parameter, got {type(input_signature).__name__} "
                            f"{input_signature!r}. Write input_signature=[rt.TensorSpec(...)].")
        signature = tuple(input_signature)
        for leaf in nest.flatten(signature):
            if not isinstance(leaf, TensorSpec):
                raise TypeError(f"input_signature of {self.__name__} must contain only "
                                f"rt.TensorSpec objects, got {leaf!r}.")
        if not self._all_positional:
            odd = next(p for p in self._signature.parameters.values() if p.kind not in _POSITIONAL)
            raise TypeError(f"input_signature needs a function whose parameters are all "
                            f"positional, but {self.__name__} has the {odd.kind.description} "
                            f"parameter '{odd.name}'. Give it one parameter per TensorSpec.")
        covered = list(self._signature.parameters.values())[self._takes_instance:]
        if len(signature) > len(covered):
            raise TypeError(f"input_signature of {self.__name__} has {len(signature)} entries but "
                            f"the function takes {len(covered)} positional parameters"
                            f"{' after self' if self._takes_instance else ''}. Give one "
                            f"TensorSpec per parameter.")
        for param in covered[len(signature):]:
            if param.default is inspect.Parameter.empty:
                raise TypeError(f"input_signature of {self.__name__} has no TensorSpec for parameter "
                                f"'{param.name}', which has no default value; add a TensorSpec for it.")
        return signature

    def _call_with_signature(self, values: tuple):
        if self._takes_instance:  # called on the class (Model.predict(model, x))
            return self.__get__(values[0])(*values[1:])
        leaves: list = []
        for name, value, spec in zip(self._param_names, values, self.input_signature):
            self._collect_signature_leaves(name, value, spec, leaves)
        covered = len(self.input_signature)
        for name, value in zip(self._param_names[covered:], values[covered:]):
            # Parameters after the signature are traced with their defaults, so only those fit.
            if value is not self._signature.parameters[name].default:
                raise TypeError(f"{self.__name__}() argument '{name}' is not covered by its "
                                f"input_signature, so it cannot be passed: the graph was traced "
                                f"with its default value.")
        concrete = self._signature_function()
        if self._initializing is not None:
            concrete = self._take_initializing(concrete)
        return concrete._call_flat(leaves)

    def _collect_signature_leaves(self, name: str, value, spec, leaves: list) -> None:
        if isinstance(spec, TensorSpec):
            array = value._value if type(value) is EagerTensor else value
            if type(array) is not np.ndarray:
                try:
                    array = dtypes.to_array(value, spec.dtype if not isinstance(value, (Tensor, np.ndarray))
                                            else None)
                except (TypeError, ValueError, OverflowError):
                    array = None
            elif value is array and array.dtype != spec.dtype and not (
                    array.dtype.kind in "fc" and spec.dtype.kind in "iub"):
                # A NumPy array takes the signature's dtype, as in TensorFlow (float64 data
                # into a float32 signature); floats never truncate into integers.
                array = array.astype(spec.dtype)
            if array is None or not spec.is_compatible_with(TensorSpec(array.shape, array.dtype)):
                got = (f"a tensor of dtype {array.dtype.name} and shape {format_shape(array.shape)}"
                       if array is not None else f"{type(value).__name__} {value!r}")
                raise TypeError(
                    f"{self.__name__}() argument '{name}' does not match the input_signature: "
                    f"expected {spec.dtype.name} with shape {format_shape(spec.shape)}, got {got}. "
                    f"Pass a matching tensor, or widen the TensorSpec (None for any size).")
            leaves.append(array)
            return
        if nest.structure_of(value) != nest.structure_of(spec) and not (
                isinstance(value, (list, tuple)) and isinstance(spec, (list, tuple))
                and len(value) == len(spec)):
            raise TypeError(f"{self.__name__}() argument '{name}' does not match the nesting of "
                            f"its input_signature {spec!r}.")
        items = (value[k] for k in nest.sorted_keys(spec)) if isinstance(spec, dict) else value
        for item, sub in zip(items, _children(spec)):
            self._collect_signature_leaves(name, item, sub, leaves)

    def _signature_function(self) -> ConcreteFunction:
        concrete = self._signature_concrete
        if concrete is None:
            with self._lock:
                if self._signature_concrete is None:
                    key = tuple(encode(spec, []) for spec in self.input_signature)
                    values = tuple(self.input_signature)
                    self._signature_concrete = self._trace(key, values)
                concrete = self._signature_concrete
        return concrete

    # -- tracing ----------------------------------------------------------------------------

    def _trace(self, key: tuple, values: tuple) -> ConcreteFunction:
        """Traces one graph. The first trace may create variables (TensorFlow's rule); when
        it does, the function is traced again at once with creation forbidden, so a variable
        made on every trace fails now. The second graph is the one kept; the first runs once,
        for the call that traced it, as it holds the initial values that depend on the
        arguments."""
        where = f"{_display_name(self.python_function)}"
        if self._created_variables is None:
            policy = variables.CreationPolicy(True, where)
        elif self._created_variables:
            policy = variables.CreationPolicy(False, where)
        else:
            policy = variables.CreationPolicy(False, where, variables.LATER_CALL_MESSAGE)
        with variables.creating_variables(policy):
            concrete = self._trace_graph(key, values)
        if self._created_variables is None:
            self._created_variables = bool(policy.created)
            if policy.created:
                self._concretes.remove(concrete)  # counted once, as TensorFlow counts it
                first, concrete = concrete, self._trace(key, values)
                self._initializing = first
        return concrete

    def _take_initializing(self, concrete: ConcreteFunction) -> ConcreteFunction:
        """The first trace's graph instead of ``concrete`` (its second trace), once."""
        with self._lock:
            first, self._initializing = self._initializing, None
        if first is None or first.key != concrete.key:
            return concrete
        return first

    def _trace_graph(self, key: tuple, values: tuple) -> ConcreteFunction:
        name = self.__name__
        for part, param in zip(key, self._param_names):
            dtype = unsupported_dtype(part)
            if dtype is not None:
                raise TypeError(
                    f"{name}() argument '{param}' holds an array of dtype {dtype.name}, which "
                    f"cannot be a tensor: tensors hold booleans and numbers. Pass numbers, or "
                    f"keep strings and objects as Python values (not NumPy arrays).")
        graph = Graph(name)
        symbolic = tuple(_substitute(value, part, param, graph)
                         for value, part, param in zip(values, key, self._param_names))
        # Containers of tensors are rebuilt around the placeholders: both versions count.
        graph.received = (outside_objects.roots_of_call(self.python_function, values)
                          + outside_objects.roots_of_call(self._trace_function, symbolic))
        with tracing.building(graph):
            try:
                result = self._call_python(self._trace_function, symbolic)
            except RecursionError:
                raise RecursionError(
                    f"tracing {name} recursed too deeply. A recursive call whose depth depends on "
                    f"a tensor cannot be traced (the graph would be infinite); write the "
                    f"recursion as a loop, or make its depth a Python value.") from None
            outputs = _graph_outputs(result, graph)
        graph.received = None  # the graph must not keep the caller's objects alive
        traced = GraphRecord(graph)  # the graph before the passes, rebuilt only if asked for
        records = optimize(graph)
        concrete = ConcreteFunction(name, graph, key, self._param_names, outputs,
                                    self._bind_pair, records, traced=traced,
                                    jit_compile=self.jit_compile)
        self._concretes.append(concrete)
        return concrete

    # -- introspection ----------------------------------------------------------------------

    @property
    def trace_function(self) -> Callable:
        """What a trace calls: the converted function for ``transpiler.function``, else
        ``python_function`` itself."""
        return self._trace_function

    @property
    def tracing_count(self) -> int:
        """How many graphs this function has traced."""
        return len(self._concretes)

    def experimental_get_tracing_count(self) -> int:
        return self.tracing_count

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The graph for these arguments (values or TensorSpecs), tracing it if needed."""
        try:
            return self._get_concrete_function(args, kwargs)
        except Exception as error:
            if not config._traceback_filtering:  # rt.config.set_traceback_filtering
                raise
            raise error.with_traceback(user_traceback(error))

    def _get_concrete_function(self, args: tuple, kwargs: dict) -> ConcreteFunction:
        if self.input_signature is not None and self._takes_instance:
            if not args:
                raise TypeError(
                    f"{self.__name__}() is a method and its input_signature covers the "
                    f"parameters after self, so its graph needs an instance: call "
                    f"get_concrete_function() on the method of an instance "
                    f"(model.{self.__name__}.get_concrete_function()), or pass the instance "
                    f"first.")
            return self.__get__(args[0]).get_concrete_function(*args[1:], **kwargs)
        if self.input_signature is not None and not args and not kwargs:
            return self._signature_function()
        values = self._bind_pair(args, kwargs)
        if self.input_signature is not None:
            for name, value, spec in zip(self._param_names, values, self.input_signature):
                if isinstance(value, TensorSpec) and not spec.is_compatible_with(value):
                    raise TypeError(f"{self.__name__}() argument '{name}': {value!r} does not match "
                                    f"the input_signature {spec!r}.")
            return self._signature_function()
        key = tuple([encode(value, []) for value in values])
        with self._lock:
            concrete = self._cache.get(key) or self._find_relaxed(key)
            if concrete is None:
                concrete = self._trace(self._relax(key) if self.reduce_retracing else key, values)
                self._cache[key] = concrete
        return concrete

    def explain_retraces(self) -> retracing.RetraceReport:
        """Each trace's argument signature and what changed from the trace before it, with
        the fix; ``str`` of the result reads as a list. The retracing warning points here."""
        with self._lock:
            keys = [concrete.key for concrete in self._concretes]
        return retracing.RetraceReport(self.__name__, self._param_names, keys)

    def concrete_functions(self) -> list[ConcreteFunction]:
        return list(self._concretes)

    def pretty_printed_concrete_signatures(self) -> str:
        return "\n\n".join(c.pretty_printed_signature() for c in self._concretes)

    def __get__(self, instance, owner=None):
        """``instance.method``: a bound method over this instance's own Function.

        Each instance gets one Function (its own traces) that refers to the instance only
        weakly and is dropped when the instance is collected; the bound method returned holds
        the instance, as any Python bound method does, so ``step = Model().step`` keeps
        working."""
        if instance is None:
            return self
        method = self._methods.get(id(instance))
        if method is None:
            method = self._method_for(instance)
        return MethodType(method, instance)

    def _method_for(self, instance) -> "_MethodFunction":
        with self._lock:
            method = self._methods.get(id(instance))
            if method is None:
                method = self._methods[id(instance)] = _MethodFunction(self, instance)
                try:
                    weakref.finalize(instance, self._methods.pop, id(instance), None)
                except TypeError:
                    pass  # not weak-referenceable: the method holds it and both live on
        return method

    def __repr__(self) -> str:
        return f"<rt.Function {self.__name__}: {self.tracing_count} trace(s)>"


class _WeaklyBound:
    """An attribute of a ``_MethodFunction`` holding a method without holding its instance:
    it keeps the plain function and binds it to the (live) instance when read."""

    def __set_name__(self, owner, name: str) -> None:
        self.slot = "_unbound" + name

    def __get__(self, method_function, owner=None):
        if method_function is None:
            return self
        return getattr(method_function, self.slot).__get__(method_function._live_instance())

    def __set__(self, method_function, bound_method) -> None:
        setattr(method_function, self.slot, bound_method.__func__)


class _MethodFunction(Function):
    """The Function of one instance's method. Called through a bound method (``__get__``),
    which passes the instance first; it traces and runs the method of that instance."""

    python_function = _WeaklyBound()
    _trace_function = _WeaklyBound()
    __wrapped__ = _WeaklyBound()

    def __init__(self, unbound: Function, instance):
        try:
            self._live_instance = weakref.ref(instance)
        except TypeError:  # no weak references to it: held, as before (it lives on)
            self._live_instance = lambda: instance
        kind = type(instance)
        super().__init__(unbound.python_function.__get__(instance, kind),
                         input_signature=unbound.input_signature,
                         reduce_retracing=unbound.reduce_retracing,
                         trace_function=unbound._trace_function.__get__(instance, kind),
                         jit_compile=unbound.jit_compile)
        self.__qualname__ = getattr(unbound.python_function, "__qualname__", self.__name__)

    def __call__(self, instance, *args, **kwargs):
        return Function.__call__(self, *args, **kwargs)


def _children(spec):
    if isinstance(spec, dict):
        return [spec[k] for k in nest.sorted_keys(spec)]
    return list(spec)


def _code_of(fn) -> object:
    target = getattr(fn, "__func__", fn)
    while hasattr(target, "__wrapped__"):
        target = target.__wrapped__
    return getattr(target, "__code__", target)


def _display_name(fn) -> str:
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", repr(fn))
    return f"function {name}"


def _placeholder_name(param: str, path: str) -> str:
    cleaned = "".join(c if c.isalnum() else "_" for c in path).strip("_")
    return f"{param}_{cleaned}" if cleaned else param


def _substitute(value, part, param: str, graph: Graph, path: str = ""):
    """``value`` with its tensors replaced by placeholders typed by the key ``part``."""
    if is_tensor_key(part):
        return graph.add_placeholder(part[0], part[1], _placeholder_name(param, path))
    if type(part) is tuple and len(part) == 2 and isinstance(part[0], type) \
            and issubclass(part[0], (tuple, list, dict)) and type(part[1]) is tuple:
        if isinstance(value, dict):
            new = {key: _substitute(value[key], sub, param, graph, f"{path}_{key}")
                   for key, sub in part[1]}
            return type(value)((key, new[key]) for key in value) if type(value) is not dict \
                else {key: new[key] for key in value}
        items = [_substitute(item, sub, param, graph, f"{path}_{index}")
                 for index, (item, sub) in enumerate(zip(value, part[1]))]
        if nest.is_namedtuple(value):
            return type(value)(*items)
        return type(value)(items)
    return value


def _graph_outputs(result, graph: Graph):
    """The function's result with every leaf that can be a tensor turned into a graph value."""
    def convert(leaf):
        if type(leaf) is SymbolicTensor:
            return leaf if leaf.graph is graph else graph.capture(leaf)
        if type(leaf) is EagerTensor:
            return constant_in_graph(graph, leaf._value)
        if isinstance(leaf, dtypes.PYTHON_SCALARS):
            return constant_in_graph(graph, _exact_array(leaf))
        if isinstance(leaf, (np.ndarray, np.generic)):
            return constant_in_graph(graph, dtypes.to_array(leaf))
        read = getattr(leaf, "_read_value_for_op", None)
        if read is not None:
            return read()
        return leaf  # None, strings, other objects: returned as they are
    structure = nest.map_structure(convert, result)
    graph.outputs = [leaf for leaf in nest.flatten(structure) if type(leaf) is SymbolicTensor]
    return structure


def _exact_array(number) -> np.ndarray:
    """A Python number the function returns, in the default dtype when that holds it exactly
    and in the 64-bit one otherwise: a result computed from Python arguments (2**40 + 1,
    1e300 * 2) keeps its value."""
    default = dtypes.python_number_dtype(number)
    if default.kind != "f":
        return np.asarray(number, default)
    with np.errstate(over="ignore", under="ignore"):  # not fitting is what is checked here
        narrow = np.asarray(number, default)
    exact = float(narrow) == number or number != number  # NaN stays NaN in any width
    return narrow if exact else np.asarray(number, dtypes.float64)


def function(func: Callable | None = None, *, input_signature: Sequence | None = None,
             reduce_retracing: bool = False, jit_compile: bool | None = None):
    """Decorator: run ``func`` as cached graphs. Python control flow on tensors is not
    rewritten here; use ``transpiler.function`` for that (or rt.cond / rt.while_loop)."""
    def wrap(fn: Callable) -> Function:
        wrapped = Function(fn, input_signature=input_signature, reduce_retracing=reduce_retracing,
                           jit_compile=jit_compile)
        functools.update_wrapper(wrapped, fn, updated=())
        return wrapped
    return wrap if func is None else wrap(func)
