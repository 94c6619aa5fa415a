"""The one-hot task of section 2: find the digit paired with the queried letter (chapter 2).

An example is six pairs (letter, digit) with distinct letters and one queried letter among
them; the answer is that letter's digit. Letters a-h are one-hot ``e`` in {0, 1}^8, digits
0-9 one-hot ``u`` in {0, 1}^10, an item is ``x_i = (e, u)`` in {0, 1}^18.

Three models, each with a forward and a backward pass written in NumPy (batched):

* ``"attention"``, exactly as the source: d = 16,
  ``q = W_Q x_query``, ``k_i = W_K x_i``, ``v_i = W_V x_i``,
  ``o = sum_i a_i v_i`` with ``a = softmax(q . k_i / sqrt(d))`` and
  ``y = softmax(W_O o + b_O)``; 16*8 + 2*16*18 + 10*16 + 10 = 874 parameters
  (chapter 4 also trains it at other d and without the division by sqrt(d));
* ``"averaging"``: the same with fixed weights ``a_i = 1/n`` (so ``W_Q``, ``W_K`` are gone);
* ``"dense"``: one hidden layer of H = 64 ReLU units (option ``hidden``) on the
  6*18 + 8 = 116 inputs laid side by side; 116 H + H + 10 H + 10 = 127 H + 10 parameters,
  8 138 for H = 64.

The loss is the cross-entropy ``L = -ln y_c*`` in nats, averaged over a batch. Training uses
Adam on fresh examples every step.
"""

import time
from dataclasses import dataclass
from math import comb, log

import numpy as np

from .softmax import log_softmax, softmax_backward, softmax_unchecked
from .validation import positive_int, shape_text

N_LETTERS = 8
N_DIGITS = 10
ITEM_SIZE = N_LETTERS + N_DIGITS
LETTERS = "abcdefgh"
KINDS = ("attention", "averaging", "dense")

#: Adam's step size per model kind (the settings of chapter 2).
LEARNING_RATES = {"attention": 0.01, "averaging": 0.01, "dense": 0.01}


@dataclass(frozen=True)
class Examples:
    """A batch of examples of the task.

    ``items`` ``(count, n_pairs, 18)``, ``query`` ``(count, 8)``, ``answer`` ``(count,)``
    (the digit 0-9); for reading them: ``letters`` and ``digits`` ``(count, n_pairs)`` as
    integers and ``position`` ``(count,)``, the index i* of the queried pair.
    """

    items: np.ndarray
    query: np.ndarray
    answer: np.ndarray
    letters: np.ndarray
    digits: np.ndarray
    position: np.ndarray

    @property
    def count(self):
        return self.items.shape[0]

    @property
    def n_pairs(self):
        return self.items.shape[1]

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        """The examples ``index`` selects (a slice or an index array), as ``Examples``."""
        if isinstance(index, (int, np.integer)):
            index = slice(index, index + 1 if index != -1 else None)
        return Examples(self.items[index], self.query[index], self.answer[index],
                        self.letters[index], self.digits[index], self.position[index])


def make_examples(count, rng, n_pairs=6):
    """``count`` random examples with ``n_pairs`` pairs each, drawn with the generator ``rng``.

    Letters within an example are distinct (chosen uniformly without replacement from the
    eight), digits are independent and uniform on 0-9 (they may repeat), and the queried pair
    is uniform among the ``n_pairs``.
    """
    count = positive_int("make_examples", "count", count)
    n_pairs = positive_int("make_examples", "n_pairs", n_pairs)
    if n_pairs > N_LETTERS:
        raise ValueError(f"make_examples: n_pairs must be between 1 and {N_LETTERS} (there are "
                         f"only {N_LETTERS} letters and they must differ); got {n_pairs}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError("make_examples: rng must be a numpy.random.Generator, e.g. "
                         f"np.random.default_rng(0); got {type(rng).__name__}")
    letters = np.argsort(rng.random((count, N_LETTERS)), axis=1)[:, :n_pairs]
    digits = rng.integers(0, N_DIGITS, size=(count, n_pairs))
    position = rng.integers(0, n_pairs, size=count)
    rows = np.arange(count)
    items = np.zeros((count, n_pairs, ITEM_SIZE))
    pair = np.arange(n_pairs)
    items[rows[:, None], pair, letters] = 1.0
    items[rows[:, None], pair, N_LETTERS + digits] = 1.0
    query = np.zeros((count, N_LETTERS))
    query[rows, letters[rows, position]] = 1.0
    answer = digits[rows, position]
    return Examples(items, query, answer, letters, digits, position)


def _check_examples(func, examples, n_pairs=None):
    if not isinstance(examples, Examples):
        raise ValueError(f"{func}: examples must come from make_examples; got "
                         f"{type(examples).__name__}")
    items, query = examples.items, examples.query
    if items.ndim != 3 or items.shape[2] != ITEM_SIZE:
        raise ValueError(f"{func}: examples.items must have shape (count, n_pairs, {ITEM_SIZE}); "
                         f"got {shape_text(items.shape)}")
    if query.shape != (items.shape[0], N_LETTERS):
        raise ValueError(f"{func}: examples.query must have shape ({items.shape[0]}, {N_LETTERS}) "
                         f"to match items {shape_text(items.shape)}; got {shape_text(query.shape)}")
    if examples.answer.shape != (items.shape[0],):
        raise ValueError(f"{func}: examples.answer must have shape ({items.shape[0]},); got "
                         f"{shape_text(examples.answer.shape)}")
    if n_pairs is not None and items.shape[1] != n_pairs:
        raise ValueError(f"{func}: the examples have {items.shape[1]} pairs (items "
                         f"{shape_text(items.shape)}) but the dense model takes exactly {n_pairs} "
                         f"pairs: its W_1 has a block of columns for each position, "
                         f"{n_pairs * ITEM_SIZE + N_LETTERS} inputs in all")


class _Model:
    """What the three models share: parameters in a dict, the loss, prediction, counting."""

    kind = None
    params: dict

    @property
    def n_params(self):
        """The number of learned numbers."""
        return sum(p.size for p in self.params.values())

    def logits(self, examples):
        """The logits ``z = W_O o + b_O`` (count, 10) of the digits."""
        return self._forward(examples)[0]

    def probabilities(self, examples):
        """The predicted distribution ``y`` (count, 10) over the digits."""
        return np.exp(log_softmax(self.logits(examples)))

    def loss_and_gradients(self, examples):
        """The mean loss in nats on ``examples`` and its gradient for every parameter (a dict)."""
        z, cache = self._forward(examples)
        log_y = log_softmax(z)
        count = z.shape[0]
        rows = np.arange(count)
        loss = -log_y[rows, examples.answer].mean()
        grad_z = np.exp(log_y)
        grad_z[rows, examples.answer] -= 1.0
        grad_z /= count
        return loss, self._backward(grad_z, cache)

    def __repr__(self):
        shapes = ", ".join(f"{k} {shape_text(v.shape)}" for k, v in self.params.items())
        return f"<{self.kind} model, {self.n_params} parameters: {shapes}>"


class AttentionModel(_Model):
    """The source's model; with ``uniform=True`` the averaging model (a_i = 1/n).

    ``d`` is the dimension of q, k_i, v_i and o; with ``scaled=False`` the scores are
    ``q . k_i`` without the division by sqrt(d) (chapter 4). The initial parameters give
    q and k_i components of variance 1 (``W_Q`` ~ N(0, 1), ``W_K`` ~ N(0, 1/2): a key sums
    two columns), so the scores start with variance 1 scaled and d unscaled (chapter 3);
    ``qk_init_scale`` multiplies the initial ``W_Q`` and ``W_K`` (chapter 4's control:
    ``d ** -0.25`` without the division starts with the scores of the division).

    The computation is chapter 2's, ordered so that no (count, n, d) array is formed:
    ``k_i = W_K x_i`` gives ``s_i = q . k_i = (W_K^T q) . x_i``, and ``v_i = W_V x_i``
    gives ``o = sum_i a_i v_i = W_V xbar`` with ``xbar = sum_i a_i x_i`` (the same numbers,
    up to rounding, as forming every k_i and v_i; chapter 4 checks them against that).
    """

    def __init__(self, rng, d=16, uniform=False, scaled=True, qk_init_scale=1.0):
        self.d = d
        self.uniform = uniform
        self.scaled = scaled
        self.score_scale = 1.0 / np.sqrt(d) if scaled else 1.0
        self.kind = "averaging" if uniform else "attention"
        self.params = {}
        if not uniform:
            # q = W_Q e: one column per letter; k_i = W_K x_i sums two columns.
            self.params["W_Q"] = qk_init_scale * rng.normal(0.0, 1.0, (d, N_LETTERS))
            self.params["W_K"] = qk_init_scale * rng.normal(0.0, 1.0 / np.sqrt(2),
                                                            (d, ITEM_SIZE))
        self.params["W_V"] = rng.normal(0.0, 1.0 / np.sqrt(2), (d, ITEM_SIZE))
        self.params["W_O"] = rng.normal(0.0, 1.0 / np.sqrt(d), (N_DIGITS, d))
        self.params["b_O"] = np.zeros(N_DIGITS)

    def _check(self, func, examples):
        _check_examples(func, examples)

    def weights(self, examples):
        """The attention weights ``a`` (count, n_pairs); each row sums to 1."""
        self._check("weights", examples)
        return self._weights(examples)[0]

    def scores(self, examples):
        """The scores ``s_i = q . k_i / sqrt(d)`` (count, n_pairs) of the attention model.

        Without the division (``scaled=False``) the scores are ``q . k_i``.
        """
        self._check("scores", examples)
        if self.uniform:
            raise ValueError("scores: the averaging model has no scores (its weights are fixed)")
        return self._weights(examples)[2]

    def attend(self, examples):
        """The output of step 2, ``o = sum_i a_i v_i`` (count, d)."""
        self._check("attend", examples)
        cache = self._forward(examples)[1]
        return cache["o"]

    def _weights(self, examples):
        """Weights a, queries q and scores s (count, n_pairs); q and s None if uniform."""
        items = examples.items
        count, n = items.shape[:2]
        if self.uniform:
            return np.full((count, n), 1.0 / n), None, None
        p = self.params
        q = examples.query @ p["W_Q"].T                        # (count, d)
        key_side = q @ p["W_K"]                                # W_K^T q: (count, 18)
        s = _per_item(items, key_side) * self.score_scale      # q . k_i (/ sqrt d)
        return softmax_unchecked(s.copy()), q, s

    def _forward(self, examples):
        self._check(f"{self.kind} model", examples)
        p = self.params
        a, q, _ = self._weights(examples)
        mixed = np.matmul(a[:, None, :], examples.items)[:, 0, :]    # sum_i a_i x_i
        o = mixed @ p["W_V"].T                                 # sum_i a_i v_i: (count, d)
        z = o @ p["W_O"].T + p["b_O"]
        return z, {"examples": examples, "a": a, "q": q, "mixed": mixed, "o": o}

    def _backward(self, grad_z, c):
        p = self.params
        items = c["examples"].items
        grads = {"W_O": grad_z.T @ c["o"], "b_O": grad_z.sum(axis=0)}
        grad_o = grad_z @ p["W_O"]                                      # (count, d)
        # dL/dv_i = a_i grad_o, so dL/dW_V = sum_i a_i grad_o x_i^T = grad_o^T xbar
        grads["W_V"] = grad_o.T @ c["mixed"]
        if not self.uniform:
            grad_a = _per_item(items, grad_o @ p["W_V"])                # v_i . grad_o
            grad_s = softmax_backward(c["a"], grad_a) * self.score_scale
            # dL/dk_i = grad_s_i q and dL/dq = sum_i grad_s_i k_i = W_K sum_i grad_s_i x_i
            weighted = np.matmul(grad_s[:, None, :], items)[:, 0, :]    # (count, 18)
            grads["W_Q"] = (weighted @ p["W_K"].T).T @ c["examples"].query
            grads["W_K"] = c["q"].T @ weighted
        return {name: grads[name] for name in p}


def _per_item(items, vectors):
    """``items[c, i] . vectors[c]`` for every example c and pair i: (count, n_pairs)."""
    return np.matmul(items, vectors[:, :, None])[:, :, 0]


class DenseModel(_Model):
    """One hidden layer of ReLU units on the pairs and the query laid side by side."""

    kind = "dense"

    def __init__(self, rng, hidden=64, n_pairs=6):
        self.n_pairs = n_pairs
        self.hidden = hidden
        n_in = n_pairs * ITEM_SIZE + N_LETTERS
        active = n_pairs * 2 + 1  # ones in an input vector
        self.params = {
            "W_1": rng.normal(0.0, np.sqrt(2.0 / active), (hidden, n_in)),
            "b_1": np.zeros(hidden),
            "W_2": rng.normal(0.0, np.sqrt(1.0 / hidden), (N_DIGITS, hidden)),
            "b_2": np.zeros(N_DIGITS),
        }

    def inputs(self, examples):
        """The 116 inputs: the six items and the query, one after the other."""
        _check_examples("dense model", examples, self.n_pairs)
        count = examples.count
        return np.concatenate([examples.items.reshape(count, -1), examples.query], axis=1)

    def _forward(self, examples):
        x = self.inputs(examples)
        p = self.params
        pre = x @ p["W_1"].T + p["b_1"]
        h = np.maximum(pre, 0.0)
        return h @ p["W_2"].T + p["b_2"], {"x": x, "pre": pre, "h": h}

    def _backward(self, grad_z, c):
        p = self.params
        grad_h = grad_z @ p["W_2"]
        grad_pre = grad_h * (c["pre"] > 0)
        return {"W_1": grad_pre.T @ c["x"], "b_1": grad_pre.sum(axis=0),
                "W_2": grad_z.T @ c["h"], "b_2": grad_z.sum(axis=0)}


#: The options that choose a model, and the kinds of model each applies to.
MODEL_OPTIONS = {"d": ("attention", "averaging"), "scaled": ("attention",),
                 "qk_init_scale": ("attention",), "hidden": ("dense",)}

#: What a model without the option lacks, for the error message.
_LACKS = {"d": "no d", "scaled": "no scores", "qk_init_scale": "no W_Q and W_K",
          "hidden": "no hidden layer"}


def make_model(kind, rng, **options):
    """A freshly initialised model of ``kind`` ("attention", "averaging" or "dense").

    Options as for :func:`train`: ``d`` (attention and averaging, default 16), ``scaled``
    and ``qk_init_scale`` (attention only, defaults True and 1) and ``hidden`` (dense
    only, default 64).
    """
    _check_kind("make_model", kind)
    if not isinstance(rng, np.random.Generator):
        raise ValueError("make_model: rng must be a numpy.random.Generator, e.g. "
                         f"np.random.default_rng(0); got {type(rng).__name__}")
    unknown = set(options) - set(MODEL_OPTIONS)
    if unknown:
        raise ValueError(f"make_model: unknown option(s) {', '.join(sorted(unknown))}; the "
                         f"options are {', '.join(MODEL_OPTIONS)}")
    return _new_model("make_model", kind, rng, options)


def _new_model(func, kind, rng, options, n_pairs=6):
    """The model of ``kind`` with the checked options of :data:`MODEL_OPTIONS`."""
    for name, applies in MODEL_OPTIONS.items():
        if name in options and kind not in applies:
            raise ValueError(f"{func}: the option {name} applies only to the "
                             f"{' and '.join(applies)} model{'s' if len(applies) > 1 else ''}; "
                             f"the {kind} model has {_LACKS[name]}")
    if kind == "dense":
        hidden = positive_int(func, "hidden", options.get("hidden", 64))
        return DenseModel(rng, hidden=hidden, n_pairs=n_pairs)
    d = positive_int(func, "d", options.get("d", 16))
    scaled = options.get("scaled", True)
    if not isinstance(scaled, (bool, np.bool_)):
        raise ValueError(f"{func}: scaled must be True (scores q . k_i / sqrt(d)) or False "
                         f"(scores q . k_i); got {scaled!r}")
    qk_init_scale = options.get("qk_init_scale", 1.0)
    if not _positive_number(qk_init_scale):
        raise ValueError(f"{func}: qk_init_scale must be a positive number (it multiplies the "
                         f"initial W_Q and W_K); got {qk_init_scale!r}")
    return AttentionModel(rng, d=d, uniform=kind == "averaging", scaled=bool(scaled),
                          qk_init_scale=float(qk_init_scale))


def _positive_number(x):
    """True for a finite number above 0 (not a bool)."""
    return (isinstance(x, (int, float, np.integer, np.floating)) and not isinstance(x, bool)
            and bool(np.isfinite(x)) and x > 0)


def _check_kind(func, kind):
    if kind not in KINDS:
        raise ValueError(f"{func}: kind must be one of {', '.join(map(repr, KINDS))}; "
                         f"got {kind!r}")


class Adam:
    """The Adam optimiser (Kingma & Ba, 2015) for a dict of parameter arrays, updated in place."""

    def __init__(self, params, learning_rate, beta1=0.9, beta2=0.999, eps=1e-8):
        self.params = params
        self.learning_rate = learning_rate
        self.beta1, self.beta2, self.eps = beta1, beta2, eps
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}
        self.t = 0

    def step(self, grads):
        self.t += 1
        b1, b2 = self.beta1, self.beta2
        scale = self.learning_rate * np.sqrt(1 - b2 ** self.t) / (1 - b1 ** self.t)
        for name, p in self.params.items():
            g = grads[name]
            m, v = self.m[name], self.v[name]
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            p -= scale * m / (np.sqrt(v) + self.eps)


@dataclass
class TrainingResult:
    """What :func:`train` returns: the trained ``model``, the loss of every step (nats) and
    the wall-clock time of training in seconds (a ``callback``'s time included)."""

    model: _Model
    losses: np.ndarray
    seconds: float


#: The options :func:`train` accepts besides its arguments.
TRAIN_OPTIONS = ("learning_rate", "n_pairs", *MODEL_OPTIONS, "callback")


def train(kind, steps, batch_size=64, seed=0, **options):
    """Train a model of ``kind`` for ``steps`` steps of Adam, each on ``batch_size`` fresh examples.

    Options:

    * ``learning_rate``: Adam's step size (default ``LEARNING_RATES[kind]``);
    * ``n_pairs``: pairs per example (default 6);
    * ``d``: the dimension of q, k_i, v_i and o of the attention and averaging models
      (default 16, the source's);
    * ``scaled``: the attention model's scores are ``q . k_i / sqrt(d)`` if True (the
      default) and ``q . k_i`` if False (chapter 4's saturation in training);
    * ``qk_init_scale``: a number that multiplies the attention model's initial ``W_Q`` and
      ``W_K`` (default 1; chapter 4's control without the division uses ``d ** -0.25``);
    * ``hidden``: the width H of the dense model's hidden layer (default 64; chapter 2's
      width sweep);
    * ``callback``: a function ``callback(step, model)``, called before the first step with
      ``step = 0`` and after every step with the number of steps done; it may read the model
      (weights, parameters) but must not change it.

    Everything random (initial parameters, the examples) comes from
    ``np.random.default_rng(seed)``, so a seed gives the same losses every run, and the
    options ``scaled``, ``qk_init_scale`` and ``callback`` do not change which numbers are
    drawn.
    """
    _check_kind("train", kind)
    steps = positive_int("train", "steps", steps)
    batch_size = positive_int("train", "batch_size", batch_size)
    unknown = set(options) - set(TRAIN_OPTIONS)
    if unknown:
        raise ValueError(f"train: unknown option(s) {', '.join(sorted(unknown))}; the options "
                         f"are {', '.join(TRAIN_OPTIONS)}")
    learning_rate = options.get("learning_rate", LEARNING_RATES[kind])
    if not _positive_number(learning_rate):
        raise ValueError(f"train: learning_rate must be a positive number; got {learning_rate!r}")
    n_pairs = options.get("n_pairs", 6)
    callback = options.get("callback")
    if callback is not None and not callable(callback):
        raise ValueError("train: callback must be a function callback(step, model); got "
                         f"{type(callback).__name__}")
    rng = np.random.default_rng(seed)
    if kind == "dense":
        n_pairs = positive_int("train", "n_pairs", n_pairs)
    model = _new_model("train", kind, rng,
                       {k: v for k, v in options.items() if k in MODEL_OPTIONS}, n_pairs)
    make_examples(1, rng, n_pairs)  # checks n_pairs before the loop
    optimiser = Adam(model.params, learning_rate)
    losses = np.empty(steps)
    if callback is not None:
        callback(0, model)
    start = time.perf_counter()
    for step in range(steps):
        batch = make_examples(batch_size, rng, n_pairs)
        losses[step], grads = model.loss_and_gradients(batch)
        optimiser.step(grads)
        if callback is not None:
            callback(step + 1, model)
    return TrainingResult(model, losses, time.perf_counter() - start)


def evaluate(model, examples):
    """``(mean loss in nats, accuracy)`` of ``model`` on ``examples``."""
    if not isinstance(model, _Model):
        raise ValueError(f"evaluate: model must be a model from train(...).model; got "
                         f"{type(model).__name__}")
    z = model.logits(examples)
    log_y = log_softmax(z)
    rows = np.arange(examples.count)
    loss = -log_y[rows, examples.answer].mean()
    accuracy = (z.argmax(axis=1) == examples.answer).mean()
    return float(loss), float(accuracy)


def query_blind_loss(n_pairs=6):
    """The best mean loss (nats) of any model that does not see the query, computed exactly.

    Such a model sees the pairs; the answer is the digit of a uniformly chosen pair, so the
    best it can do is predict each digit with its share among the pairs, ``y_c = m_c / n``.
    The answer's digit occurs ``m = 1 + B`` times, ``B ~ Binomial(n - 1, 1/10)`` (the other
    pairs' digits), so the loss is ``E[ln(n / m)]``.
    """
    n_pairs = positive_int("query_blind_loss", "n_pairs", n_pairs)
    p = 1 / N_DIGITS
    return sum(comb(n_pairs - 1, k) * p ** k * (1 - p) ** (n_pairs - 1 - k)
               * log(n_pairs / (1 + k)) for k in range(n_pairs))
