"""Capture real Keras 3 fit() console output (run by hand, not by the tests).

KERAS_BACKEND=torch python keras_fit.py [healthy|nan|long] > ../keras_<kind>.txt 2>&1

keras_cut.txt is the 'long' capture cut off inside epoch 3 (as a killed job leaves it):
  head -c <offset just after the first redraw of epoch 3> keras_long.txt > keras_cut.txt
"""
import os
import sys

os.environ.setdefault("KERAS_BACKEND", "torch")
import keras  # noqa: E402
import numpy as np  # noqa: E402

kind = sys.argv[1] if len(sys.argv) > 1 else "healthy"
keras.utils.set_random_seed(0)
rng = np.random.default_rng(0)
x = rng.normal(size=(192, 8)).astype("float32")
y = (x.sum(1) > 0).astype("float32")
model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(8, activation="relu"),
                          keras.layers.Dense(1, activation="sigmoid")])
if kind == "nan":  # a linear head and a learning rate that blows the weights up: loss goes to nan
    model = keras.Sequential([keras.Input((8,)), keras.layers.Dense(8, activation="relu"), keras.layers.Dense(1)])
    model.compile(optimizer=keras.optimizers.SGD(1e6), loss="mse", metrics=["accuracy"])
    model.fit(x, y * 1e6 + 0.5, epochs=3, batch_size=32, validation_split=0.25, verbose=1)
else:
    model.compile(optimizer=keras.optimizers.Adam(1e-2), loss="binary_crossentropy", metrics=["accuracy"])
    cb = keras.callbacks.ReduceLROnPlateau(monitor="loss", factor=0.01, patience=0, min_delta=10.0)
    model.fit(x, y, epochs=50 if kind == "long" else 4, batch_size=32, validation_split=0.25, verbose=1, callbacks=[cb])
