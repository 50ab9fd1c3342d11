"""The five losses (by name and as objects, with from_logits) and the metrics shown with them."""

import numpy as np

from tests.keras_programs import data, deterministic_weights


def _fit(tf, model, loss, x, y, metrics=(), epochs=2, batch_size=4):
    model.compile(tf.keras.optimizers.SGD(0.1), loss, metrics=list(metrics))
    history = model.fit(x, y, epochs=epochs, batch_size=batch_size, shuffle=False, verbose=0)
    return history.history, model.get_weights()


def _dense(tf, units, activation=None, seed=30):
    model = tf.keras.Sequential([tf.keras.Input(shape=(4,)),
                                 tf.keras.layers.Dense(3, activation="tanh"),
                                 tf.keras.layers.Dense(units, activation=activation)])
    deterministic_weights(model, seed=seed)
    return model


def mean_squared_error_with_metrics(tf):
    x, y = data(12, 4, outputs=2, seed=30)
    return _fit(tf, _dense(tf, 2), "mean_squared_error", x, y, metrics=["mae", "mse"])


def mean_absolute_error_object(tf):
    x, y = data(12, 4, outputs=2, seed=31)
    return _fit(tf, _dense(tf, 2, seed=31), tf.keras.losses.MeanAbsoluteError(), x, y,
                metrics=[tf.keras.metrics.MeanSquaredError()])


def binary_crossentropy_sigmoid_accuracy(tf):
    x, _ = data(12, 4, seed=32)
    y = (x[:, :1] > 0).astype("float32")
    return _fit(tf, _dense(tf, 1, "sigmoid", seed=32), "binary_crossentropy", x, y,
                metrics=["accuracy"])


def binary_crossentropy_from_logits(tf):
    x, _ = data(12, 4, seed=33)
    y = (x[:, 1:2] > 0).astype("float32")
    return _fit(tf, _dense(tf, 1, seed=33), tf.keras.losses.BinaryCrossentropy(from_logits=True),
                x, y, metrics=[tf.keras.metrics.BinaryAccuracy(threshold=0.0)])


def categorical_crossentropy_softmax(tf):
    x, _ = data(12, 4, seed=34)
    y = np.eye(3, dtype="float32")[np.argmax(x[:, :3], axis=1)]
    return _fit(tf, _dense(tf, 3, "softmax", seed=34), "categorical_crossentropy", x, y,
                metrics=["accuracy"])


def sparse_categorical_crossentropy_from_logits(tf):
    x, _ = data(12, 4, seed=35)
    y = np.argmax(x[:, :3], axis=1).astype("int64")
    loss = tf.keras.losses.SparseCategoricalCrossentropy(from_logits=True)
    return _fit(tf, _dense(tf, 3, seed=35), loss, x, y,
                metrics=[tf.keras.metrics.SparseCategoricalAccuracy()])


def loss_objects_called_directly(tf):
    y_true = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, 1.0]], "float32")
    y_pred = np.array([[0.2, 0.7], [0.6, 0.3], [0.9, 0.4]], "float32")
    weights = np.array([1.0, 0.5, 2.0], "float32")
    losses = tf.keras.losses
    return [float(losses.MeanSquaredError()(y_true, y_pred)),
            float(losses.MeanSquaredError()(y_true, y_pred, sample_weight=weights)),
            float(losses.MeanAbsoluteError(reduction="sum")(y_true, y_pred)),
            float(losses.BinaryCrossentropy()(y_true, y_pred)),
            float(losses.BinaryCrossentropy(label_smoothing=0.1)(y_true, y_pred)),
            float(losses.CategoricalCrossentropy()(y_true, y_pred)),
            float(losses.SparseCategoricalCrossentropy()(np.array([1, 0, 0]), y_pred)),
            np.asarray(losses.MeanSquaredError(reduction="none")(y_true, y_pred)),
            np.asarray(losses.MSE(y_true, y_pred)), np.asarray(losses.mae(y_true, y_pred)),
            np.asarray(losses.binary_crossentropy(y_true, y_pred))]


def metric_objects_update_and_result(tf):
    mean = tf.keras.metrics.Mean()
    mean.update_state([1.0, 2.0, 3.0])
    mean.update_state([5.0])
    accuracy = tf.keras.metrics.SparseCategoricalAccuracy()
    accuracy.update_state(np.array([0, 1, 2]), np.array([[0.9, 0.1, 0.0], [0.2, 0.3, 0.5],
                                                         [0.1, 0.1, 0.8]], "float32"))
    mae = tf.keras.metrics.MeanAbsoluteError()
    mae.update_state(np.array([[1.0], [2.0]]), np.array([[1.5], [1.0]]))
    first = float(mae.result())
    mae.reset_state()
    mae.update_state(np.array([[1.0]]), np.array([[3.0]]))
    return float(mean.result()), float(accuracy.result()), first, float(mae.result())


def more_losses_called_directly(tf):
    y_true = np.array([[0.0, 1.0, 0.5], [1.0, 0.0, 2.0]], "float32")
    y_pred = np.array([[0.3, 0.6, 1.9], [0.8, 0.4, 0.1]], "float32")
    labels = np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0]], "float32")
    losses = tf.keras.losses
    return [float(losses.Huber()(y_true, y_pred)), float(losses.Huber(delta=0.5)(y_true, y_pred)),
            float(losses.LogCosh()(y_true, y_pred)),
            float(losses.KLDivergence()(labels / 2.0 + 0.1, y_pred / 3.0 + 0.05)),
            float(losses.Poisson()(y_true, y_pred)),
            float(losses.MeanSquaredLogarithmicError()(y_true, y_pred)),
            float(losses.MeanAbsolutePercentageError()(y_true + 1.0, y_pred)),
            float(losses.CosineSimilarity()(y_true, y_pred)),
            float(losses.Hinge()(labels, y_pred - 0.5)),
            float(losses.SquaredHinge()(labels, y_pred - 0.5)),
            float(losses.CategoricalHinge()(labels, y_pred)),
            np.asarray(losses.huber(y_true, y_pred)), np.asarray(losses.logcosh(y_true, y_pred))]


def huber_loss_fit_with_metrics(tf):
    x, y = data(12, 4, outputs=2, seed=36)
    model = _dense(tf, 2, seed=36)
    return _fit(tf, model, tf.keras.losses.Huber(delta=0.3), x, y * 3.0,
                metrics=["mse", tf.keras.metrics.RootMeanSquaredError()])


def precision_recall_auc_in_fit_and_alone(tf):
    x, _ = data(16, 4, seed=37)
    y = (x[:, :1] + 0.3 * x[:, 1:2] > 0).astype("float32")
    model = _dense(tf, 1, "sigmoid", seed=37)
    metrics = ["accuracy", tf.keras.metrics.Precision(), tf.keras.metrics.Recall(),
               tf.keras.metrics.AUC(), tf.keras.metrics.AUC(num_thresholds=7, curve="PR",
                                                            summation_method="minoring",
                                                            name="pr_auc")]
    history, weights = _fit(tf, model, "binary_crossentropy", x, y, metrics=metrics)
    auc = tf.keras.metrics.AUC(num_thresholds=11)
    auc.update_state([0, 1, 1, 0, 1], [0.1, 0.8, 0.35, 0.4, 0.9],
                     sample_weight=[1.0, 2.0, 1.0, 0.5, 1.0])
    precision = tf.keras.metrics.Precision(thresholds=0.3)
    precision.update_state([[0, 1], [1, 1]], [[0.5, 0.2], [0.9, 0.4]])
    return history, weights, float(auc.result()), float(precision.result())


def metric_classes_of_the_losses(tf):
    x, _ = data(12, 4, seed=38)
    y = np.eye(3, dtype="float32")[np.argmax(x[:, :3], axis=1)]
    metrics = tf.keras.metrics
    listed = [metrics.CategoricalCrossentropy(), metrics.KLDivergence(), metrics.Poisson(),
              metrics.CategoricalHinge(), metrics.LogCoshError(),
              metrics.MeanSquaredLogarithmicError(), metrics.Hinge(), metrics.SquaredHinge()]
    history, weights = _fit(tf, _dense(tf, 3, "softmax", seed=38), "categorical_crossentropy",
                            x, y, metrics=listed)
    alone = metrics.SparseCategoricalCrossentropy(from_logits=True)
    alone.update_state(np.array([0, 2]), np.array([[1.0, 0.5, -1.0], [0.2, 0.1, 2.0]], "float32"))
    bce = metrics.BinaryCrossentropy(label_smoothing=0.1)
    bce.update_state(np.array([[1.0], [0.0]], "float32"), np.array([[0.7], [0.4]], "float32"))
    mape = metrics.MeanAbsolutePercentageError()
    mape.update_state(np.array([[2.0, 4.0]], "float32"), np.array([[1.0, 5.0]], "float32"))
    return history, weights, float(alone.result()), float(bce.result()), float(mape.result())


def top_k_accuracies(tf):
    x, _ = data(12, 4, seed=39)
    labels = np.argsort(x[:, :4], axis=1)[:, 1].astype("int64")  # the second smallest
    model = _dense(tf, 4, "softmax", seed=39)
    metrics = [tf.keras.metrics.SparseTopKCategoricalAccuracy(k=2), "sparse_categorical_accuracy"]
    history, weights = _fit(tf, model, "sparse_categorical_crossentropy", x, labels,
                            metrics=metrics)
    top = tf.keras.metrics.TopKCategoricalAccuracy(k=2)
    top.update_state(np.eye(3, dtype="float32")[[0, 1, 2, 2]],
                     np.array([[0.5, 0.3, 0.2], [0.4, 0.4, 0.2], [0.1, 0.2, 0.7],
                               [0.5, 0.3, 0.2]], "float32"))
    return history, weights, float(top.result())


# Labels of shape (N,) with predictions of shape (N, 1): Keras adds or removes the trailing
# axis of 1 (without it the difference would broadcast to (N, N) and average wrong numbers).

def regression_on_flat_labels(tf):
    x, y = data(12, 4, seed=36)
    return _fit(tf, _dense(tf, 1, seed=36), "mse", x, y[:, 0],
                metrics=["mae", tf.keras.metrics.RootMeanSquaredError(),
                         tf.keras.metrics.MeanAbsolutePercentageError()])


def binary_classifier_on_flat_labels(tf):
    x, _ = data(12, 4, seed=37)
    y = (x[:, 0] > 0).astype("float32")
    return _fit(tf, _dense(tf, 1, "sigmoid", seed=37), "binary_crossentropy", x, y,
                metrics=["accuracy", tf.keras.metrics.BinaryAccuracy()])


def loss_objects_and_metrics_on_mismatched_ranks(tf):
    flat = np.array([0.0, 1.0, 1.0, 0.0, 2.0], "float32")
    column = np.array([[0.2], [0.7], [0.4], [0.1], [1.5]], "float32")
    losses = [tf.keras.losses.MeanSquaredError(), tf.keras.losses.MeanAbsoluteError(),
              tf.keras.losses.Huber(), tf.keras.losses.LogCosh(), tf.keras.losses.Hinge(),
              tf.keras.losses.Poisson(), tf.keras.losses.MeanSquaredLogarithmicError(),
              tf.keras.losses.BinaryCrossentropy(), tf.keras.losses.CosineSimilarity()]
    values = [float(loss(a, b)) for loss in losses for a, b in ((flat, column), (column, flat))]
    metrics = [tf.keras.metrics.MeanSquaredError(), tf.keras.metrics.MeanAbsoluteError(),
               tf.keras.metrics.RootMeanSquaredError(), tf.keras.metrics.BinaryAccuracy(),
               tf.keras.metrics.LogCoshError(), tf.keras.metrics.Hinge()]
    for metric in metrics:
        metric.update_state(flat, column)
        values.append(float(metric.result()))
    return values, tf.keras.losses.huber(flat, column).numpy(), \
        tf.keras.metrics.binary_accuracy(flat, column).numpy()


def binary_crossentropy_metric_refuses_mismatched_ranks(tf):
    metric = tf.keras.metrics.BinaryCrossentropy()
    metric.update_state(np.array([0.0, 1.0], "float32"), np.array([[0.2], [0.7]], "float32"))
    return float(metric.result())


def cosine_similarity_and_sum_metrics(tf):
    y_true = np.array([[1.0, 0.0, 2.0], [0.0, 3.0, 1.0], [1.0, 1.0, 1.0]], "float32")
    y_pred = np.array([[0.5, 0.5, 1.0], [1.0, 2.0, 0.0], [-1.0, 0.5, 2.0]], "float32")
    cosine = tf.keras.metrics.CosineSimilarity()
    cosine.update_state(y_true, y_pred)
    cosine.update_state(y_true[:2], y_pred[:2], sample_weight=[0.5, 2.0])
    total = tf.keras.metrics.Sum()
    total.update_state([1.0, 2.0, 3.5])
    total.update_state([[1.0, 2.0]], sample_weight=[[0.5, 3.0]])
    x, y = data(12, 4, outputs=2, seed=38)
    history = _fit(tf, _dense(tf, 2, seed=38), "mse", x, y, metrics=["cosine_similarity"])
    return float(cosine.result()), float(total.result()), history


def root_mean_squared_error_counts_flat_elements(tf):
    rmse = tf.keras.metrics.RootMeanSquaredError()
    rmse.update_state([0.0, 0.0, 0.0], [1.0, 1.0, 1.0])
    rmse.update_state([0.0], [3.0])
    weighted = tf.keras.metrics.RootMeanSquaredError()
    weighted.update_state([0.0, 1.0, 0.5], [0.2, 0.3, 0.4], sample_weight=[1.0, 2.0, 3.0])
    accuracy = tf.keras.metrics.Accuracy()
    accuracy.update_state([1, 2, 3], [1, 0, 3], sample_weight=[1.0, 2.0, 4.0])
    return float(rmse.result()), float(weighted.result()), float(accuracy.result())


def confusion_metric_options_and_names(tf):
    rng = np.random.default_rng(0)
    y_true = (rng.uniform(size=(6, 4)) > 0.5).astype("float32")
    y_pred = rng.uniform(size=(6, 4)).astype("float32")
    y_pred[0, 1] = y_pred[0, 2]  # a tie inside the top k
    weights = rng.uniform(size=(6,)).astype("float32")
    metrics = tf.keras.metrics
    made = [metrics.Precision(top_k=2), metrics.Recall(top_k=2),
            metrics.Precision(top_k=1, class_id=2), metrics.Recall(class_id=1),
            metrics.Recall(thresholds=[0.3, 0.5, 0.7]), metrics.AUC(curve="PR"),
            metrics.AUC(num_thresholds=7, curve="PR"), metrics.AUC(from_logits=True),
            metrics.AUC(thresholds=[0.2, 0.5, 0.8]), metrics.AUC(name="named")]
    results = []
    for metric in made:
        metric.update_state(y_true[:3], y_pred[:3], sample_weight=weights[:3])
        metric.update_state(y_true[3:], y_pred[3:], sample_weight=weights[3:])
        results.append(np.asarray(metric.result()))
    return results, [metric.name for metric in made]


def sparse_crossentropy_ignore_class_and_focal_loss(tf):
    logits = np.array([[1.0, 2.0, -1.0], [0.5, 0.1, 0.3], [-2.0, 0.0, 3.0]], "float32")
    losses = tf.keras.losses
    ignoring = losses.SparseCategoricalCrossentropy(from_logits=True, ignore_class=0)
    rng = np.random.default_rng(1)
    y_true = (rng.uniform(size=(5, 3)) > 0.5).astype("float32")
    y_pred = rng.uniform(size=(5, 3)).astype("float32")
    return [float(ignoring(np.array([1, 0, 2]), logits)),
            float(ignoring(np.array([1, 0, 2]), logits, sample_weight=[1.0, 2.0, 3.0])),
            float(losses.BinaryFocalCrossentropy()(y_true, y_pred)),
            float(losses.BinaryFocalCrossentropy(apply_class_balancing=True, gamma=1.5,
                                                 label_smoothing=0.1)(y_true, y_pred)),
            float(losses.BinaryFocalCrossentropy(from_logits=True)(y_true, y_pred * 4 - 2)),
            np.asarray(losses.binary_focal_crossentropy(y_true, y_pred))]


def mean_iou_and_r2_score(tf):
    iou = tf.keras.metrics.MeanIoU(num_classes=3)
    iou.update_state([0, 1, 2, 2, 1], [0, 2, 2, 1, 1])
    iou.update_state([[0, 0]], [[1, 0]], sample_weight=[[2.0, 1.0]])
    scores = tf.keras.metrics.MeanIoU(num_classes=3, sparse_y_pred=False, ignore_class=0)
    scores.update_state([0, 1, 2, 2, 1], np.eye(3, dtype="float32")[[0, 2, 2, 1, 1]] * 0.8)
    rng = np.random.default_rng(1)
    y_true, y_pred = rng.uniform(size=(5, 3)), rng.uniform(size=(5, 3))
    r2 = tf.keras.metrics.R2Score()
    r2.update_state(y_true, y_pred)
    r2.update_state(y_true[:2], y_pred[:2] * 0.5)
    adjusted = tf.keras.metrics.R2Score(class_aggregation="variance_weighted_average",
                                        num_regressors=2)
    adjusted.update_state(y_true, y_pred, sample_weight=np.arange(5.0))
    each = tf.keras.metrics.R2Score(class_aggregation=None)
    each.update_state(y_true[:, :2], y_pred[:, :2])
    return [float(iou.result()), iou.name, float(scores.result()), float(r2.result()),
            float(adjusted.result()), np.asarray(each.result())]


def segmentation_and_focal_losses(tf):
    rng = np.random.default_rng(31)
    masks = (rng.uniform(size=(2, 3, 4, 1)) > 0.5).astype("float32")
    probabilities = rng.uniform(size=(2, 3, 4, 1)).astype("float32")
    labels = np.eye(3, dtype="float32")[[0, 2, 1, 2]]
    logits = rng.normal(size=(4, 3)).astype("float32")
    weights = np.array([1.0, 0.5, 2.0, 0.0], "float32")
    losses = tf.keras.losses
    return (losses.Dice()(masks, probabilities),
            losses.Dice(axis=(1, 2, 3))(masks, probabilities),
            losses.dice(masks, probabilities, axis=(1, 2, 3)),
            losses.Tversky()(masks, probabilities),
            losses.Tversky(alpha=0.7, beta=0.3, axis=(1, 2, 3), reduction="sum")(masks,
                                                                                 probabilities),
            losses.tversky(masks, probabilities, 0.2, 0.8),
            losses.CategoricalFocalCrossentropy()(labels, tf.nn.softmax(logits)),
            losses.CategoricalFocalCrossentropy(from_logits=True, gamma=1.0,
                                                label_smoothing=0.1)(labels, logits, weights),
            losses.categorical_focal_crossentropy(labels, tf.nn.softmax(logits), alpha=0.5),
            losses.get("dice")(masks, probabilities))


def focal_loss_in_training(tf):
    x, y = data(12, 3, seed=33)
    labels = np.eye(3, dtype="float32")[(np.abs(y[:, 0] * 10).astype(int)) % 3]
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(3)])
    deterministic_weights(model, seed=33)
    model.compile(tf.keras.optimizers.SGD(0.1),
                  tf.keras.losses.CategoricalFocalCrossentropy(from_logits=True))
    history = model.fit(x, labels, epochs=2, batch_size=4, shuffle=False, verbose=0)
    return history.history, model.get_weights()


def iou_and_correlation_metrics(tf):
    rng = np.random.default_rng(35)
    labels = np.array([0, 1, 2, 2, 1, 0, 2])
    scores = rng.uniform(size=(7, 3)).astype("float32")
    one_hot = np.eye(3, dtype="float32")[labels]
    binary_true = np.array([0, 1, 1, 0, 1], "float32")
    binary_scores = np.array([0.2, 0.5, 0.9, 0.7, 0.4], "float32")
    metrics = tf.keras.metrics
    results = []
    for metric, args in [
            (metrics.IoU(3, [0, 2]), (labels, scores.argmax(-1))),
            (metrics.IoU(3, [1], sparse_y_pred=False), (labels, scores)),
            (metrics.BinaryIoU(), (binary_true, binary_scores)),
            (metrics.BinaryIoU(target_class_ids=[1], threshold=0.6),
             (binary_true, binary_scores)),
            (metrics.OneHotIoU(3, [0, 1]), (one_hot, scores)),
            (metrics.OneHotMeanIoU(3), (one_hot, scores)),
            (metrics.OneHotMeanIoU(3, ignore_class=2), (one_hot, scores))]:
        metric.update_state(*args)
        metric.update_state(*args, sample_weight=np.linspace(0.5, 1.5, len(args[0])))
        results.append((metric.name, metric.result()))
    targets = rng.normal(size=(4, 5)).astype("float32")
    predictions = targets + rng.normal(size=(4, 5)).astype("float32") * 0.5
    pearson, concordance = metrics.PearsonCorrelation(), metrics.ConcordanceCorrelation(axis=0)
    pearson.update_state(targets, predictions)
    concordance.update_state(targets, predictions)
    return (results, metrics.pearson_correlation(targets, predictions),
            metrics.concordance_correlation(targets, predictions),
            pearson.result(), concordance.result(), [v.name for v in pearson.variables])


def correlation_metrics_in_fit(tf):
    x, y = data(16, 3, outputs=2, seed=36)
    model = tf.keras.Sequential([tf.keras.Input(shape=(3,)), tf.keras.layers.Dense(2)])
    deterministic_weights(model, seed=36)
    model.compile(tf.keras.optimizers.SGD(0.1), "mse",
                  metrics=[tf.keras.metrics.PearsonCorrelation(),
                           tf.keras.metrics.ConcordanceCorrelation()])
    history = model.fit(x, y, epochs=2, batch_size=8, shuffle=False, verbose=0)
    return history.history
