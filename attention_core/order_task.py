"""A task that needs order: name the letter that stands one place earlier (chapter 8).

An example is the n letters a, b, ... (2 <= n <= 8, the letters of chapter 2) in a random
order, each letter exactly once. Every example holds the same letters, so only their order
carries information. At each position t = back, ..., n - 1 (positions count from 0) the
answer is the letter at position t - back; with the default back = 1, the letter just
before.

The model is one self-attention layer (chapter 5) whose values are the letters themselves:

    x_t = W_E e_t  (+ PE(t) for "sinusoidal" and "learned"),     X = the rows x_t,
    Q = X W_Q,  K = X W_K   (for "rope": row t of Q and of K rotated, chapter 8),
    A = softmax(Q K^T / sqrt(d_k)),   Z = A V  with  V = the one-hot letters e_t,

where e_t is the one-hot vector of the letter at position t, W_E (d_model, n) the letters'
embedding (one column per letter), PE(t) the sinusoidal encoding of Vaswani et al. or row t
of a learned table, and the rotation the rotary embedding of Su et al.
(:mod:`attention_core.positions`). As every letter occurs once, z_t is a distribution over
the letters, z_t[c] = a_ti for the position i of letter c, and it is the model's prediction:
the loss -ln z_t[answer] = -ln a_t,t-back says only where to look.

Without positions ("none") the layer is permutation-equivariant, so its prediction at a
position is a function of that position's letter alone; given the letter, the answer is any
of the other n - 1 letters with equal probability, and no such model has an expected loss
below ln(n - 1) (:func:`order_blind_loss`).

Losses are in nats, averaged over the positions that have an answer and over the batch;
gradients are computed by hand (chapter 4's softmax, through the rotation for "rope" and
the look-ups of the embedding and of the learned table); training uses chapter 2's Adam.
"""

import time
from math import log

import numpy as np

from .positions import rope, sinusoidal_positions
from .softmax import log_softmax
from .toy_task import LETTERS, Adam, TrainingResult
from .validation import positive_int, shape_text

#: The ways of giving the model the positions: none, added to the tokens (a formula or a
#: learned table), or rotating the queries and keys.
ENCODINGS = ("none", "sinusoidal", "learned", "rope")

#: The options of :func:`make_model` (and of :func:`train`) besides the encoding.
MODEL_OPTIONS = ("n", "d_model", "d_k", "back", "n_max")


def make_sequences(count, rng, n=8):
    """``count`` random orders of the letters 0, ..., n - 1: an int array (count, n).

    Each row is a permutation drawn uniformly (every order equally likely) with the
    generator ``rng``; letter ``c`` is written ``LETTERS[c]``.
    """
    count = positive_int("make_sequences", "count", count)
    n = _letters("make_sequences", n)
    if not isinstance(rng, np.random.Generator):
        raise ValueError("make_sequences: rng must be a numpy.random.Generator, e.g. "
                         f"np.random.default_rng(0); got {type(rng).__name__}")
    return np.argsort(rng.random((count, n)), axis=1)


def _letters(func, n):
    n = positive_int(func, "n", n, minimum=2)
    if n > len(LETTERS):
        raise ValueError(f"{func}: n must be between 2 and {len(LETTERS)} (the letters "
                         f"{LETTERS}, each used once); got {n}")
    return n


class OrderModel:
    """One self-attention layer whose values are the one-hot letters, with positions given
    by ``encoding`` (one of :data:`ENCODINGS`).

    ``params`` holds the learned arrays: ``W_E`` (d_model, n), ``PE`` (n_max, d_model) for
    the learned encoding only, ``W_Q`` and ``W_K`` (d_model, d_k). Initial values: embedding
    and learned positions N(0, 1/2) per entry (the mean square of the sinusoidal encoding's
    entries), projections N(0, 1/d_model), so the scores start with variance about 1.
    """

    def __init__(self, encoding, rng, n=8, d_model=16, d_k=None, back=1, n_max=None):
        func = "make_model"
        if encoding not in ENCODINGS:
            raise ValueError(f"{func}: encoding must be one of {', '.join(map(repr, ENCODINGS))}; "
                             f"got {encoding!r}")
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"{func}: rng must be a numpy.random.Generator, e.g. "
                             f"np.random.default_rng(0); got {type(rng).__name__}")
        self.encoding = encoding
        self.n = _letters(func, n)
        self.d_model = positive_int(func, "d_model", d_model)
        self.d_k = self.d_model if d_k is None else positive_int(func, "d_k", d_k)
        even = {"sinusoidal": "d_model", "rope": "d_k"}.get(encoding)
        if even and getattr(self, even) % 2:
            raise ValueError(f"{func}: {even} = {getattr(self, even)} is odd; the {encoding} "
                             "encoding works on pairs of components, so it must be even")
        self.back = positive_int(func, "back", back, minimum=0)
        if self.back >= self.n:
            raise ValueError(f"{func}: back = {self.back} leaves no position with an answer "
                             f"in a sequence of n = {self.n} letters (back must be below n)")
        if n_max is not None and encoding != "learned":
            raise ValueError(f"{func}: n_max is the length of the learned table; the "
                             f"{encoding!r} encoding has no table")
        self.n_max = self.n if n_max is None else positive_int(func, "n_max", n_max)
        if self.n_max < self.n:
            raise ValueError(f"{func}: n_max = {self.n_max} is shorter than the sequences "
                             f"(n = {self.n}); the table needs a row for each position")
        d = self.d_model
        p = {"W_E": rng.normal(0.0, np.sqrt(0.5), (d, self.n))}
        if encoding == "learned":
            p["PE"] = rng.normal(0.0, np.sqrt(0.5), (self.n_max, d))
        p["W_Q"] = rng.normal(0.0, 1.0 / np.sqrt(d), (d, self.d_k))
        p["W_K"] = rng.normal(0.0, 1.0 / np.sqrt(d), (d, self.d_k))
        self.params = p
        self._sinusoidal = sinusoidal_positions(self.n, d) if encoding == "sinusoidal" else None
        self._positions = np.arange(self.n, dtype=np.float64)

    @property
    def n_params(self):
        """The number of learned numbers."""
        return sum(a.size for a in self.params.values())

    def __repr__(self):
        shapes = ", ".join(f"{k} {shape_text(v.shape)}" for k, v in self.params.items())
        return f"<order model ({self.encoding}), {self.n_params} parameters: {shapes}>"

    def _check(self, func, letters):
        letters = np.asarray(letters)
        if letters.ndim != 2 or letters.shape[1] != self.n \
                or not np.issubdtype(letters.dtype, np.integer):
            raise ValueError(f"{func}: letters must be an int array (count, n = {self.n}) from "
                             f"make_sequences; got shape {shape_text(letters.shape)} of dtype "
                             f"{letters.dtype}")
        if letters.shape[0] == 0:
            raise ValueError(f"{func}: letters is empty (shape {shape_text(letters.shape)})")
        if not (np.sort(letters, axis=1) == np.arange(self.n)).all():
            raise ValueError(f"{func}: every row of letters must hold each of the letters "
                             f"0 ... {self.n - 1} exactly once (an order from make_sequences)")
        return letters

    def inputs(self, letters):
        """The token vectors X (count, n, d_model): embedding, plus positions if added."""
        return self._inputs(self._check("inputs", letters))

    def _inputs(self, letters):
        X = self.params["W_E"].T[letters]
        if self.encoding == "sinusoidal":
            X += self._sinusoidal
        elif self.encoding == "learned":
            X += self.params["PE"][:self.n]
        return X

    def _forward(self, letters):
        """``ln A`` (count, n, n), the log-weights, and what the backward pass needs."""
        p = self.params
        X = self._inputs(letters)
        Q, K = X @ p["W_Q"], X @ p["W_K"]
        if self.encoding == "rope":
            Q, K = rope(np.stack([Q, K]), self._positions)    # both in one call
        S = Q @ K.transpose(0, 2, 1)
        S *= 1.0 / np.sqrt(self.d_k)
        return log_softmax(S), (X, Q, K)

    def weights(self, letters):
        """The attention weights A (count, n, n); row t holds position t's weights a_ti."""
        return np.exp(self._forward(self._check("weights", letters))[0])

    def probabilities(self, letters):
        """The predictions Z = A V (count, n, n): row t is position t's distribution over the
        letters 0 ... n - 1 (z_t[c] is the weight on the position of letter c)."""
        letters = self._check("probabilities", letters)
        A = np.exp(self._forward(letters)[0])
        Z = np.empty_like(A)
        rows = np.arange(letters.shape[0])[:, None, None]
        Z[rows, np.arange(self.n)[None, :, None], letters[:, None, :]] = A
        return Z

    def loss_and_gradients(self, letters):
        """The mean loss in nats and its gradient for every parameter (a dict), by hand.

        The loss of position t is -ln a_t,t-back, so its gradient with respect to the
        scores s_t is a_t - e_(t-back) (softmax with cross-entropy, chapter 4), divided by
        sqrt(d_k) for the products Q K^T. Then dQ = dS K, dK = dS^T Q; for "rope" the
        rotation's transpose, the rotation by minus the angle; dX = dQ W_Q^T + dK W_K^T,
        whose rows are collected by the letter's column of W_E and by the position's row
        of the learned table.
        """
        letters = self._check("loss_and_gradients", letters)
        log_A, (X, Q, K) = self._forward(letters)
        b, n, d = X.shape
        t = np.arange(self.back, n)
        loss = -log_A[:, t, t - self.back].mean()
        grad_S = np.exp(log_A)
        grad_S[:, :self.back] = 0.0                         # positions without an answer
        grad_S[:, t, t - self.back] -= 1.0
        grad_S *= 1.0 / (b * len(t) * np.sqrt(self.d_k))
        grad_Q = grad_S @ K
        grad_K = grad_S.transpose(0, 2, 1) @ Q
        if self.encoding == "rope":
            grad_Q, grad_K = rope(np.stack([grad_Q, grad_K]), -self._positions)
        p = self.params
        flat = X.reshape(-1, d)
        grad_Q, grad_K = grad_Q.reshape(-1, self.d_k), grad_K.reshape(-1, self.d_k)
        grads = {"W_Q": flat.T @ grad_Q, "W_K": flat.T @ grad_K}
        grad_X = grad_Q @ p["W_Q"].T + grad_K @ p["W_K"].T      # (b n, d)
        grads["W_E"] = grad_X.T @ np.eye(self.n)[letters.ravel()]
        if self.encoding == "learned":
            grads["PE"] = np.zeros_like(p["PE"])
            grads["PE"][:n] = grad_X.reshape(b, n, d).sum(axis=0)
        return float(loss), {name: grads[name] for name in p}


def make_model(encoding, rng, **options):
    """A freshly initialised :class:`OrderModel` with positions given by ``encoding``.

    Options: ``n`` letters (default 8), ``d_model`` (default 16), ``d_k`` (default d_model),
    ``back`` (default 1: the letter just before), ``n_max`` (learned table only; default n).
    """
    unknown = set(options) - set(MODEL_OPTIONS)
    if unknown:
        raise ValueError(f"make_model: unknown option(s) {', '.join(sorted(unknown))}; the "
                         f"options are {', '.join(MODEL_OPTIONS)}")
    return OrderModel(encoding, rng, **options)


def train(encoding, steps, batch_size=32, seed=0, learning_rate=0.01, callback=None,
          **options):
    """Train a model with ``encoding`` for ``steps`` steps of Adam on fresh sequences.

    Every step draws ``batch_size`` new sequences; everything random (initial parameters,
    sequences) comes from ``np.random.default_rng(seed)``, so a seed gives the same losses
    every run. ``callback(step, model)`` is called before the first step (step 0) and after
    every step; it may read the model but must not change it. ``options`` as for
    :func:`make_model`. Returns chapter 2's ``TrainingResult`` (model, losses, seconds).
    """
    steps = positive_int("train", "steps", steps)
    batch_size = positive_int("train", "batch_size", batch_size)
    if isinstance(learning_rate, bool) or not isinstance(learning_rate, (int, float)) \
            or not learning_rate > 0:
        raise ValueError(f"train: learning_rate must be a positive number; got {learning_rate!r}")
    if callback is not None and not callable(callback):
        raise ValueError("train: callback must be a function callback(step, model); got "
                         f"{type(callback).__name__}")
    rng = np.random.default_rng(seed)
    model = make_model(encoding, rng, **options)
    optimiser = Adam(model.params, learning_rate)
    losses = np.empty(steps)
    if callback is not None:
        callback(0, model)
    start = time.perf_counter()
    for step in range(steps):
        losses[step], grads = model.loss_and_gradients(make_sequences(batch_size, rng, model.n))
        optimiser.step(grads)
        if callback is not None:
            callback(step + 1, model)
    return TrainingResult(model, losses, time.perf_counter() - start)


def _check_model(func, model):
    if not isinstance(model, OrderModel):
        raise ValueError(f"{func}: model must be an OrderModel (from make_model or train); got "
                         f"{type(model).__name__}")


def evaluate(model, letters):
    """``(mean loss in nats, accuracy)`` over the positions with an answer.

    A position counts as right when its largest weight is on the position ``back`` places
    earlier, i.e. when the letter it predicts most is the answer.
    """
    _check_model("evaluate", model)
    letters = model._check("evaluate", letters)
    log_A = model._forward(letters)[0]
    t = np.arange(model.back, model.n)
    loss = -log_A[:, t, t - model.back].mean()
    accuracy = (log_A[:, t].argmax(axis=-1) == t - model.back).mean()
    return float(loss), float(accuracy)


def order_blind_loss(n=8):
    """``ln(n - 1)``: the least expected loss of any model that does not see the order.

    Such a model's prediction at a position is a function of that position's letter alone
    (permutation equivariance, chapter 5), and given the letter the answer is each of the
    other n - 1 letters with probability 1/(n - 1); the best prediction is that uniform
    distribution, whose loss is ln(n - 1) (chapter 2's theorem on the best prediction).
    """
    return log(_letters("order_blind_loss", n) - 1)


def order_blind_expectation(model):
    """The exact expected ``(loss, accuracy)`` of a model without positions, over all orders.

    Its prediction at a position is a function y(x) of that position's letter x alone, so
    one sequence (the letters in alphabetical order) gives all n distributions y(x); the
    expectation over uniform orders and answered positions is the mean over x and the
    n - 1 letters c != x of -ln y_c(x), and of [argmax y(x) = c]. This assumes back >= 1
    (the answer is another letter than the position's own, each of the n - 1 equally
    likely). ``ValueError`` for a model that sees positions or has back = 0.
    """
    _check_model("order_blind_expectation", model)
    if model.encoding != "none":
        raise ValueError("order_blind_expectation: the model sees positions (encoding "
                         f"{model.encoding!r}); the exact expectation holds only for 'none'")
    if model.back == 0:
        raise ValueError("order_blind_expectation: the model has back = 0 (the answer is "
                         "the position's own letter); the exact expectation assumes "
                         "back >= 1, where the answer is one of the other n - 1 letters "
                         "(use evaluate instead)")
    log_y = model._forward(np.arange(model.n)[None, :])[0][0]     # row x: ln y(x)
    others = ~np.eye(model.n, dtype=bool)
    loss = -log_y[others].mean()
    accuracy = (log_y.argmax(axis=1) != np.arange(model.n)).mean() / (model.n - 1)
    return float(loss), float(accuracy)
