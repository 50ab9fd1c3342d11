"""rt.Module: names, and variables and sub-modules gathered from attributes as tf.Module does."""

import numpy as np
import pytest

import runtime as rt


class Affine(rt.Module):
    """Elementwise ``x * w + b`` (the ops whose gradients exist today)."""

    def __init__(self, n, name=None):
        super().__init__(name=name)
        self.w = rt.Variable(np.full(n, 0.5, np.float32), name=f"{self.name}_w")
        self.b = rt.Variable(np.zeros(n, np.float32), name=f"{self.name}_b")

    def __call__(self, x):
        return x * self.w + self.b


class MLP(rt.Module):
    def __init__(self):
        super().__init__()
        self.layers = [Affine(2, name="first"), Affine(2, name="second")]
        self.scale = rt.Variable(2.0, name="scale")
        self.count = rt.Variable(0, name="count", trainable=False)

    def __call__(self, x):
        for layer in self.layers:
            x = layer(x)
        self.count.assign_add(1)
        return x * self.scale


def names(variables):
    return [v.name for v in variables]


def test_the_name_defaults_to_the_class_name_in_snake_case():
    assert MLP().name == "mlp" and Affine(1).name == "affine"
    assert rt.Module().name == "module" and rt.Module(name="encoder").name == "encoder"

    class HTTPLayerV2(rt.Module):
        pass
    assert HTTPLayerV2().name == "http_layer_v2"

    class NoSuperInit(rt.Module):
        def __init__(self):
            self.v = rt.Variable(1.0)
    assert NoSuperInit().name == "no_super_init" and len(NoSuperInit().variables) == 1


@pytest.mark.parametrize("name", ["two words", "1st", "", 3])
def test_a_name_must_be_an_identifier(name):
    with pytest.raises(ValueError, match="is not a valid module name"):
        rt.Module(name=name)


def test_variables_come_from_attributes_then_sub_modules_in_sorted_order():
    model = MLP()
    # MLP's own attributes by name (count, layers, scale), then the layers' (b before w).
    assert names(model.variables) == ["count", "scale", "first_b", "first_w", "second_b",
                                      "second_w"]
    assert names(model.trainable_variables) == ["scale", "first_b", "first_w", "second_b",
                                                "second_w"]
    assert [m.name for m in model.submodules] == ["first", "second"]
    assert isinstance(model.variables, tuple) and model.submodules[0] is model.layers[0]


def test_containers_are_searched_and_each_variable_is_taken_once():
    class Holder(rt.Module):
        def __init__(self):
            super().__init__()
            shared = rt.Variable(1.0, name="shared")
            self.by_key = {"z": rt.Variable(2.0, name="z"),
                           "a": [shared, (rt.Variable(3.0, name="deep"),)]}
            self.alias = shared
            self.child = rt.Module(name="child")
            self.child.again = shared
            self.child.parent = self  # cycles end: each module is searched once
            self.other = {"numbers": [1, 2.0, "text", None], "tensor": rt.constant(1.0)}
            self.not_searched = type("Plain", (), {"v": rt.Variable(4.0)})()

    holder = Holder()
    assert names(holder.variables) == ["shared", "deep", "z"]
    assert [m.name for m in holder.submodules] == ["child"]
    assert holder.child.variables[0] is holder.alias
    assert [m.name for m in holder.child.submodules] == ["holder"]


def test_a_module_trains_eagerly_and_in_a_graph_with_the_same_result():
    x = rt.constant([[1.0, 2.0], [3.0, -1.0]])
    results = []
    for decorator in (lambda f: f, rt.function):
        model = MLP()
        optimizer = rt.optimizers.SGD(learning_rate=0.01)

        @decorator
        def step(x):
            with rt.GradientTape() as tape:
                out = model(x) - 1.0
                squared = out * out
            grads = tape.gradient(squared, model.trainable_variables)
            optimizer.apply_gradients(zip(grads, model.trainable_variables))
            return squared

        for _ in range(3):
            step(x)
        results.append([v.numpy() for v in model.variables])
    for eager, graph in zip(*results):
        np.testing.assert_array_equal(eager, graph)
    assert results[0][0] == 3  # the non-trainable counter was only counted, not trained
    assert not np.array_equal(results[0][3], [0.5, 0.5])  # first_w was trained
