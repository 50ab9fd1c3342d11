"""The seed notebook's Keras model, eager vs graph: "The speedup is most obvious when running
many small layers".

    python examples/keras_seed_model.py [--quick]

The notebook's code as written for TensorFlow, with ``import transpiler.tf as tf`` as the only
change: a subclassed ``tf.keras.Model`` of Flatten, 100 small Dense layers, Dropout and Dense,
called eagerly and with its ``call`` wrapped in ``tf.function``. Both are timed in this
process, in alternating rounds of ``number`` calls; each timing is its best round (the machine
may be shared: a busy moment then slows one round of each, not one side).
"""

import argparse
import timeit

import transpiler.tf as tf


# Create an override model to classify pictures
class SequentialModel(tf.keras.Model):
    def __init__(self, **kwargs):
        super(SequentialModel, self).__init__(**kwargs)
        self.flatten = tf.keras.layers.Flatten(input_shape=(28, 28))
        # Add a lot of small layers
        num_layers = 100
        self.my_layers = [tf.keras.layers.Dense(64, activation="relu")
                          for n in range(num_layers)]
        self.dropout = tf.keras.layers.Dropout(0.2)
        self.dense_2 = tf.keras.layers.Dense(10)

    def call(self, x):
        x = self.flatten(x)
        for layer in self.my_layers:
            x = layer(x)
        x = self.dropout(x)
        x = self.dense_2(x)
        return x


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="10 calls instead of 100")
    number = 10 if parser.parse_args().quick else 100

    input_data = tf.random.uniform([20, 28, 28])

    eager_model = SequentialModel()
    # Don't count the time for the initial build.
    eager_model(input_data)

    # Wrap the call method in a `tf.function`
    graph_model = SequentialModel()
    graph_model.call = tf.function(graph_model.call)
    # Don't count the time for the initial build and trace.
    graph_model(input_data)

    eager, graph = float("inf"), float("inf")
    for _ in range(5):
        eager = min(eager, timeit.timeit(lambda: eager_model(input_data), number=number))
        graph = min(graph, timeit.timeit(lambda: graph_model(input_data), number=number))
    print(f"Eager time ({number} calls): {eager:.3f} s")
    print(f"Graph time ({number} calls): {graph:.3f} s")
    print(f"graph speed-up: {eager / graph:.1f}x")


if __name__ == "__main__":
    main()
