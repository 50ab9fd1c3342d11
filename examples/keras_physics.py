"""The physics group's Keras fit (seed 000), written as they write it for TensorFlow.

    python examples/keras_physics.py [--quick] [--epochs N] [--plot loss.png]

The group's file imports TensorFlow; here ``import transpiler.tf as tf`` is the one line
changed. Everything else is their structure: a cross-section class whose methods are
``@tf.function``s taking and returning tensors ("localizing methods, calling all methods
externally, passing tensors instead of Python variables"), a Keras layer wrapping it (``TotalF``),
and a functional model ``Input(shape=(5))`` -> ``tf.split`` -> ``concatenate`` -> ``Dense(100,
"tanh", HeNormal())`` x2 -> ``Dense(4)`` (the form factors) -> ``TotalFLayer``, compiled with
``Adam(ExponentialDecay(...))`` and ``MeanSquaredError()`` and fitted with ``EarlyStopping``.

Their data is a CSV of measured cross sections; here it is pseudo-data made by the same
class from known form factors, so the file runs alone. The formulas follow the Bethe-Heitler
plus interference structure of the group's BKM code (kinematics, lepton propagators, a
Fourier series in phi); they exercise the same kind of code and are not a physics reference.

Run with ``import tensorflow as tf`` instead (TensorFlow 2 with Keras 2, e.g.
``TF_USE_LEGACY_KERAS=1`` and tf-keras on TensorFlow 2.16+, since Keras 3 refuses ``tf.split``
on a Keras input), the file gives the same losses given the same initial weights.
"""

import argparse

import numpy as np

import transpiler.tf as tf


class BHDVCStf(object):
    """Unpolarized cross section: Bethe-Heitler plus interference, with a constant DVCS term."""

    def __init__(self):
        self.ALP_INV = tf.constant(137.0359998)  # 1 / electromagnetic fine structure constant
        self.PI = tf.constant(3.1415926535)
        self.RAD = tf.constant(3.1415926535 / 180.)
        self.M = tf.constant(0.938272)  # mass of the proton in GeV
        self.M2 = tf.constant(0.938272 * 0.938272)
        self.GeV2nb = tf.constant(.389379 * 1000000)  # conversion from GeV to nanobarn

    @tf.function
    def formFactors(self, t):
        GE = 1. / tf.square(1. - t / 0.71)  # dipole form factors
        GM = 2.792847 * GE
        tau = -t / (4. * self.M2)
        F1 = (GE + tau * GM) / (1. + tau)
        F2 = (GM - GE) / (1. + tau)
        return F1, F2

    @tf.function
    def setKinematics(self, QQ, x, t, k):
        ee = 4. * self.M2 * x * x / QQ  # epsilon squared
        y = tf.sqrt(QQ) / (tf.sqrt(ee) * k)  # lepton energy fraction
        xi = x * (1. + t / 2. / QQ) / (2. - x + x * t / QQ)  # generalized Bjorken variable
        Gamma = x * y * y / self.ALP_INV / self.ALP_INV / self.ALP_INV / self.PI / 8. / QQ / QQ \
            / tf.sqrt(1. + ee)  # factor in front of the cross section
        tmin = -QQ * (2. * (1. - x) * (1. - tf.sqrt(1. + ee)) + ee) \
            / (4. * x * (1. - x) + ee)  # eq. (31)
        Ktilde_10 = tf.sqrt(tmin - t) * tf.sqrt((1. - x) * tf.sqrt(1. + ee)
                                                + ((t - tmin) * (ee + 4. * x * (1. - x)) / 4. / QQ)) \
            * tf.sqrt(1. - y - y * y * ee / 4.) / tf.sqrt(1. - y + y * y * ee / 4.)  # eq. (30)
        K = tf.sqrt(1. - y + y * y * ee / 4.) * Ktilde_10 / tf.sqrt(QQ)  # eq. (30)
        return ee, y, xi, Gamma, tmin, Ktilde_10, K

    @tf.function
    def BHLeptonPropagators(self, phi, QQ, x, t, ee, y, K):
        # k*Delta, eq. (29), then the propagators P1 and P2, eq. (28)
        KD = -QQ / (2. * y * (1. + ee)) * (1. + 2. * K * tf.cos(self.PI - (phi * self.RAD))
                                           - t / QQ * (1. - x * (2. - y) + y * ee / 2.)
                                           + y * ee / 2.)
        P1 = 1. + 2. * KD / QQ
        P2 = t / QQ - 2. * KD / QQ
        return P1, P2

    @tf.function
    def BHUU(self, phi, F1, F2, P1, P2, QQ, x, t, ee, y, K, Gamma):
        electric = F1 * F1 - F2 * F2 * t / (4. * self.M2)
        magnetic = (F1 + F2) * (F1 + F2)
        # BH unpolarized Fourier harmonics, eqs. (35 - 37)
        c0_BH = 8. * K * K * ((2. + 3. * ee) * (QQ / t) * electric + 2. * x * x * magnetic) \
            + (2. - y) * (2. - y) * ((2. + ee) * ((4. * x * x * self.M2 / t) * (1. + t / QQ)
                                                  * (1. + t / QQ) + 4. * (1. - x) * (1. + x * t / QQ))
                                     * electric + 4. * x * x * (x + (1. - x + ee / 2.)
                                                                * (1. - t / QQ) * (1. - t / QQ)
                                                                - x * (1. - 2. * x) * t * t / (QQ * QQ))
                                     * magnetic) \
            + 8. * (1. + ee) * (1. - y - ee * y * y / 4.) \
            * (2. * ee * (1. - t / (4. * self.M2)) * electric
               - x * x * (1. - t / QQ) * (1. - t / QQ) * magnetic)
        c1_BH = 8. * K * (2. - y) * ((4. * x * x * self.M2 / t - 2. * x - ee) * electric
                                     + 2. * x * x * (1. - (1. - 2. * x) * t / QQ) * magnetic)
        c2_BH = 8. * x * x * K * K * ((4. * self.M2 / t) * electric + 2. * magnetic)
        angle = self.PI - (phi * self.RAD)
        Amp2_BH = 1. / (x * x * y * y * (1. + ee) * (1. + ee) * t * P1 * P2) \
            * (c0_BH + c1_BH * tf.cos(angle) + c2_BH * tf.cos(2. * angle))
        return Gamma * Amp2_BH * self.GeV2nb

    @tf.function
    def IUU(self, phi, F1, F2, P1, P2, QQ, x, t, ee, y, K, Gamma, ReH, ReE, ReHtilde):
        angle = self.PI - (phi * self.RAD)
        # interference coefficients of the form factor combinations
        A_U = -8. * K * K * (2. - y) * (2. - y) * (2. - y) / (1. - y) \
            - 8. * (2. - y) * (1. - y) * (2. - x) * t / QQ \
            - 8. * K * (2. - 2. * y + y * y) * tf.cos(angle)
        B_U = 8. * x * x * (2. - y) * (1. - y) / (2. - x) * t / QQ
        C_U = 8. * x * (2. - y) * (1. - y) / (2. - x) * t / QQ \
            + 8. * K * x * (2. - 2. * y + y * y) / (2. - x) * tf.cos(angle)
        I = 1. / (x * y * y * y * t * P1 * P2) \
            * (A_U * (F1 * ReH - t / (4. * self.M2) * F2 * ReE)
               + B_U * (F1 + F2) * (ReH + ReE) + C_U * (F1 + F2) * ReHtilde)
        return Gamma * I * self.GeV2nb

    @tf.function
    def TotalUUXS(self, kins, cffs):
        QQ, x, t, phi, k = tf.split(kins, num_or_size_splits=5, axis=1)
        ReH, ReE, ReHtilde, dvcs = tf.split(cffs, num_or_size_splits=4, axis=1)
        F1, F2 = self.formFactors(t)
        ee, y, xi, Gamma, tmin, Ktilde_10, K = self.setKinematics(QQ, x, t, k)
        P1, P2 = self.BHLeptonPropagators(phi, QQ, x, t, ee, y, K)
        xsbhuu = self.BHUU(phi, F1, F2, P1, P2, QQ, x, t, ee, y, K, Gamma)
        xsiuu = self.IUU(phi, F1, F2, P1, P2, QQ, x, t, ee, y, K, Gamma, ReH, ReE, ReHtilde)
        return xsbhuu + xsiuu + dvcs


class TotalFLayer(tf.keras.layers.Layer):
    def __init__(self):
        super(TotalFLayer, self).__init__(dtype='float32')
        self.f = BHDVCStf()

    def call(self, inputs):
        return self.f.TotalUUXS(inputs[:, 0:5], inputs[:, 5:9])  # QQ, x_b, t, phi, k | cffs


def build_model(rows):
    initializer = tf.keras.initializers.HeNormal()
    inputs = tf.keras.Input(shape=(5))
    QQ, x_b, t, phi, k = tf.split(inputs, num_or_size_splits=5, axis=1)
    kinematics = tf.keras.layers.concatenate([QQ, x_b, t])
    x1 = tf.keras.layers.Dense(100, activation="tanh", kernel_initializer=initializer)(kinematics)
    x2 = tf.keras.layers.Dense(100, activation="tanh", kernel_initializer=initializer)(x1)
    outputs = tf.keras.layers.Dense(4, activation="linear", kernel_initializer=initializer)(x2)
    #### QQ, x_b, t, phi, k, cffs ####
    total_FInputs = tf.keras.layers.concatenate([inputs, outputs])
    TotalF = TotalFLayer()(total_FInputs)

    tfModel = tf.keras.Model(inputs=inputs, outputs=TotalF, name="tfmodel")

    lr = tf.keras.optimizers.schedules.ExponentialDecay(
        0.0085, rows / 1, 0.96, staircase=False, name=None)

    tfModel.compile(
        optimizer=tf.keras.optimizers.Adam(lr),
        loss=tf.keras.losses.MeanSquaredError()
    )
    return tfModel


def pseudo_data(sets=16, seed=0):
    """``sets`` kinematic sets of 45 angles each (phi = 0, 8, ..., 352 degrees): kinematics
    (QQ, x_b, t, phi, k) and cross sections from smooth true form factors, with 1% noise."""
    rng = np.random.default_rng(seed)
    QQ = rng.uniform(1.8, 2.4, sets)
    x_b = rng.uniform(0.34, 0.40, sets)
    t = rng.uniform(-0.35, -0.20, sets)
    k = rng.uniform(5.6, 5.9, sets)
    phi = np.arange(0., 360., 8.)
    kins = np.array([[q, x, tt, p, kk] for q, x, tt, kk in zip(QQ, x_b, t, k) for p in phi],
                    dtype="float32")
    cffs = np.stack([-4. + 6. * kins[:, 1], 2. + 10. * kins[:, 2], 1. + kins[:, 0] / 2.,
                     0.01 * np.ones(len(kins))], axis=1).astype("float32")
    bhdvcs = BHDVCStf()  # TensorFlow's tf.function methods hold their instance weakly
    F = bhdvcs.TotalUUXS(kins, cffs).numpy()
    F = F * (1. + 0.01 * rng.standard_normal(F.shape))
    return kins, F.astype("float32")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--quick", action="store_true", help="3 epochs")
    parser.add_argument("--epochs", type=int, default=150)
    parser.add_argument("--plot", help="write the loss curve to this file (needs matplotlib)")
    args = parser.parse_args()
    kins, F = pseudo_data()
    print(f"{len(kins) // 45} kinematic sets of 45 points")

    tfModel = build_model(len(kins))
    early_stopping_callback = tf.keras.callbacks.EarlyStopping(
        monitor='loss', min_delta=0.0000005, patience=25)
    history = tfModel.fit(kins, F, epochs=3 if args.quick else args.epochs, verbose=1,
                          batch_size=16, callbacks=[early_stopping_callback])
    print(f"loss: first epoch {history.history['loss'][0]:.4g}, "
          f"last epoch {history.history['loss'][-1]:.4g}")

    if args.plot:
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
        except ImportError:
            print("matplotlib is not installed: no plot (history.history holds the curve).")
            return
        plt.plot(history.history['loss'])
        plt.yscale("log")
        plt.xlabel("epoch")
        plt.ylabel("loss")
        plt.savefig(args.plot)
        print(f"wrote {args.plot}")


if __name__ == "__main__":
    main()
