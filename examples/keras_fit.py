"""A Keras-style fit of the physics group's functional model on synthetic data.

    python examples/keras_fit.py [--epochs N]

Prints Keras' progress line per epoch and, when matplotlib is installed, writes the loss
curve to keras_fit_loss.png (matplotlib is not a dependency).
"""

import argparse

import numpy as np

import runtime as rt

keras = rt.keras


def build_model():
    inputs = keras.Input(shape=(5))
    qq, x_b, t, phi, k = rt.split(inputs, num_or_size_splits=5, axis=1)
    kinematics = keras.layers.concatenate([qq, x_b, t])
    x = kinematics
    for _ in range(2):
        x = keras.layers.Dense(100, activation="tanh",
                               kernel_initializer=keras.initializers.HeNormal(seed=0))(x)
    cffs = keras.layers.Dense(4, activation="linear",
                              kernel_initializer=keras.initializers.HeNormal(seed=1))(x)
    # A stand-in for the cross-section layer: a smooth function of the CFFs and the angle.
    cross_section = rt.reduce_sum(cffs * rt.cos(phi * k), axis=1, keepdims=True)
    return keras.Model(inputs=inputs, outputs=cross_section)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=30)
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    x = rng.uniform(0.1, 1.0, size=(2000, 5)).astype("float32")
    y = (np.sin(3 * x[:, :1]) * np.cos(x[:, 3:4] * x[:, 4:5]) + 0.5 * x[:, 1:2] * x[:, 2:3]
         ).astype("float32")
    model = build_model()
    schedule = keras.optimizers.schedules.ExponentialDecay(0.0085, decay_steps=100, decay_rate=0.96)
    model.compile(optimizer=keras.optimizers.Adam(schedule), loss=keras.losses.MeanSquaredError())
    history = model.fit(x, y, epochs=args.epochs, batch_size=64, validation_split=0.1,
                        callbacks=[keras.callbacks.EarlyStopping(monitor="val_loss", patience=10,
                                                                 restore_best_weights=True)])
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no plot (history.history holds the curves).")
        return
    plt.plot(history.history["loss"], label="loss")
    plt.plot(history.history["val_loss"], label="val_loss")
    plt.xlabel("epoch")
    plt.yscale("log")
    plt.legend()
    plt.savefig("keras_fit_loss.png")
    print("wrote keras_fit_loss.png")


if __name__ == "__main__":
    main()
