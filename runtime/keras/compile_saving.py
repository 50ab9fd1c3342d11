"""The compile state that ``model.save`` keeps and ``load_model`` restores, as Keras 3 does:
the arguments of ``compile`` (``compile_config``: the optimizer's config, the loss and the
metrics) and the optimizer's variables (its step count and slots, so training goes on where
it stopped).

Losses and metrics are written as JSON: a name as given (``"mse"``), a loss or metric
function by its name, a loss or metric object by its class name and constructor arguments.
A compile argument that JSON cannot describe (a function or class of one's own, which is
Python code) leaves the compile state out: the loaded model is then uncompiled, as before.
"""

from __future__ import annotations

import inspect

import numpy as np

from runtime.keras import losses as losses_module
from runtime.keras import metrics as metrics_module
from runtime.keras import optimizers as optimizers_module
from runtime.keras.optimizer_base import Optimizer


class _NotSerializable(Exception):
    """A compile argument is Python code of one's own."""


def compile_config(model) -> dict | None:
    """The arguments of the model's ``compile`` as JSON, or None (not compiled, or compiled
    with something JSON cannot describe)."""
    args = getattr(model, "_compile_args", None)
    if args is None or not isinstance(model.optimizer, Optimizer):
        return None
    try:
        return {"optimizer": {"class_name": type(model.optimizer).__name__,
                              "config": model.optimizer.get_config()},
                "loss": _encoded(args["loss"]), "metrics": _encoded(args["metrics"]),
                "loss_weights": args["loss_weights"],
                "weighted_metrics": _encoded(args["weighted_metrics"]),
                "run_eagerly": args["run_eagerly"]}
    except _NotSerializable:
        return None


def optimizer_state(model) -> dict:
    """The optimizer's variables as arrays (``variable_0000``, ...), and whether it had made
    its slots (``built``)."""
    optimizer = model.optimizer
    arrays = {f"variable_{i:04d}": np.asarray(v.numpy())
              for i, v in enumerate(optimizer.variables)}
    arrays["built"] = np.array(bool(optimizer._slots))
    return arrays


def restore_compile(model, config: dict, state: dict | None, custom_objects: dict) -> None:
    """Compiles ``model`` as ``compile_config`` described, then gives the optimizer the
    variables ``optimizer_state`` saved."""
    entry = config["optimizer"]
    optimizer_class = custom_objects.get(entry["class_name"]) or \
        getattr(optimizers_module, str(entry["class_name"]), None)
    if not (isinstance(optimizer_class, type) and issubclass(optimizer_class, Optimizer)):
        raise ValueError(f"the saved model's optimizer {entry['class_name']!r} is not an "
                         f"optimizer of rt.keras; pass its class in custom_objects, or load "
                         f"with compile=False.")
    model.compile(optimizer=optimizer_class.from_config(entry["config"], custom_objects),
                  loss=_decoded(config["loss"], custom_objects),
                  metrics=_decoded(config["metrics"], custom_objects),
                  loss_weights=config["loss_weights"],
                  weighted_metrics=_decoded(config["weighted_metrics"], custom_objects),
                  run_eagerly=config["run_eagerly"])
    if state is not None:
        _restore_optimizer(model, state)


def _restore_optimizer(model, state: dict) -> None:
    optimizer = model.optimizer
    if bool(state["built"]):
        optimizer.build(model.trainable_variables)
    arrays = [state[key] for key in sorted(state) if key.startswith("variable_")]
    variables = optimizer.variables
    if len(arrays) != len(variables):
        raise ValueError(f"the saved optimizer has {len(arrays)} variables, the restored "
                         f"{optimizer.name} has {len(variables)}: the model's trainable "
                         f"weights differ from the saved model's. Load with compile=False and "
                         f"compile again.")
    for variable, array in zip(variables, arrays):
        variable.assign(array.astype(variable.dtype))


# -- losses and metrics as JSON -------------------------------------------------------------


def _encoded(spec):
    if spec is None or isinstance(spec, (str, int, float, bool)):
        return spec
    if isinstance(spec, (list, tuple)):
        return [_encoded(item) for item in spec]
    if isinstance(spec, dict):
        return {key: _encoded(value) for key, value in spec.items()}
    if isinstance(spec, type):
        return {**_known_class(spec), "config": {}}
    if isinstance(spec, (losses_module.Loss, metrics_module.Metric)):
        return {**_known_class(type(spec)), "config": _constructor_args(spec)}
    name = getattr(spec, "__name__", None)
    if callable(spec) and name is not None and _known_function(name) is spec:
        return {"function": name}
    raise _NotSerializable(spec)


_MODULES = {"losses": losses_module, "metrics": metrics_module}


def _known_class(cls: type) -> dict:
    """Where ``keras.losses`` or ``keras.metrics`` has ``cls`` (both have some names)."""
    for module_name, module in _MODULES.items():
        if getattr(module, cls.__name__, None) is cls:
            return {"module": module_name, "class_name": cls.__name__}
    raise _NotSerializable(cls)


def _known_function(name: str):
    """The loss or metric function of that name in ``keras.losses`` or ``keras.metrics``."""
    for module in (losses_module, metrics_module):
        value = getattr(module, name, None)
        if inspect.isfunction(value):
            return value
    return None


def _constructor_args(obj) -> dict:
    """The arguments that make ``obj`` again: each parameter of its class's constructor,
    read from the attribute of its name or from the function arguments it keeps."""
    if hasattr(obj, "get_config"):
        return {key: _plain(value) for key, value in obj.get_config().items()}
    kept = {**getattr(obj, "fn_kwargs", {}), **vars(obj)}
    args = {}
    for parameter in list(inspect.signature(type(obj).__init__).parameters.values())[1:]:
        if parameter.kind in (parameter.VAR_POSITIONAL, parameter.VAR_KEYWORD):
            continue
        if parameter.name in kept:
            args[parameter.name] = _plain(kept[parameter.name])
        elif parameter.default is parameter.empty:
            raise _NotSerializable(obj)
    return args


def _plain(value):
    if isinstance(value, np.dtype):
        return value.name
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if value is None or isinstance(value, (str, int, float, bool, list, tuple, dict)):
        return value
    raise _NotSerializable(value)


def _decoded(spec, custom_objects: dict):
    if isinstance(spec, list):
        return [_decoded(item, custom_objects) for item in spec]
    if not isinstance(spec, dict):
        return spec
    if "function" in spec:
        return custom_objects.get(spec["function"]) or _known_function(str(spec["function"]))
    if "class_name" in spec and spec.get("module") in _MODULES:
        cls = getattr(_MODULES[spec["module"]], str(spec["class_name"]), None)
        if not (isinstance(cls, type) and issubclass(cls, (losses_module.Loss,
                                                           metrics_module.Metric))):
            raise ValueError(f"the saved model was compiled with {spec['class_name']!r}, which "
                             f"is not a loss or metric of rt.keras; load with compile=False.")
        return cls(**spec["config"])
    return {key: _decoded(value, custom_objects) for key, value in spec.items()}
