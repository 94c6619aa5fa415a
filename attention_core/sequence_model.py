"""A small transformer that classifies a sequence from its first token (chapter 9).

Tokens come as one-hot features ``Phi`` (b, n, F), e.g. ``lookup_task.make_examples``:

    X_0 = Phi E                               embedding E (F, d_model)
    X_N = Block_N(... Block_1(X_0))           transformer blocks with the padding mask
    x = X_N[:, 0], or LN_f(X_N)[:, 0]         pre-norm models end with a layer norm LN_f
    logits = x W_out + b_out,  y = softmax(logits),  L = mean over the batch of -ln y_answer

The output is read at token 0 only (as BERT reads its [CLS] token), so the last block is
computed for token 0 alone (``n_queries=1``; every token is still a key and a value there):
the same logits and gradients as the full block's, for less work. Every gradient by hand,
backwards: dlogits = (y - u_answer) / b, dW_out = x^T dlogits, db_out = sum of dlogits,
dx = dlogits W_out^T, back through LN_f and the blocks (``transformer.transformer_stack_vjp``:
layer norms, feed-forward networks, residual connections, multi-head attention and its
mask), and dE = Phi^T dX_0.
"""

import copy
from dataclasses import dataclass

import numpy as np

from .layer_norm import backward as ln_backward
from .layer_norm import forward as ln_forward
from .softmax import log_softmax
from .toy_task import Adam
from .transformer import Block, transformer_block_vjp, transformer_stack_vjp
from .validation import finite_array, positive_int, shape_text


class SequenceClassifier:
    """Embedding, ``n_blocks`` transformer blocks and an output layer at token 0 (chapter 9).

    ``n_features`` one-hot columns per token, ``n_classes`` answers; the blocks are
    ``Block.random(d_model, h, d_ff, rng, norm_first, residual)`` (d_k = d_v = d_model / h).
    E ~ N(0, 1/2) (a token with two one-hot parts then has components of variance 1),
    W_out Glorot-normal, b_out 0; a pre-norm model (``norm_first=True``) also has the final
    layer norm LN_f (gamma_f 1, beta_f 0).
    """

    def __init__(self, rng, n_features, n_classes, d_model=64, h=4, d_ff=128, n_blocks=1,
                 norm_first=True, residual=True):
        func = "SequenceClassifier"
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"{func}: rng must be a numpy.random.Generator, e.g. "
                             f"np.random.default_rng(0); got {type(rng).__name__}")
        n_features, n_classes, d_model, n_blocks = (
            positive_int(func, name, value) for name, value in
            (("n_features", n_features), ("n_classes", n_classes), ("d_model", d_model),
             ("n_blocks", n_blocks)))
        self.E = rng.normal(0.0, np.sqrt(0.5), (n_features, d_model))
        self.blocks = [Block.random(d_model, h, d_ff, rng, norm_first=norm_first,
                                    residual=residual) for _ in range(n_blocks)]
        self.norm_first = bool(norm_first)
        self.gamma_f = np.ones(d_model) if norm_first else None
        self.beta_f = np.zeros(d_model) if norm_first else None
        self.W_out = rng.normal(0.0, np.sqrt(2.0 / (d_model + n_classes)), (d_model, n_classes))
        self.b_out = np.zeros(n_classes)

    @property
    def params(self):
        """Every array by name, the arrays themselves (so ``Adam`` trains them in place)."""
        named = {"E": self.E}
        for k, block in enumerate(self.blocks, start=1):
            named.update({f"block {k} {name}": W for name, W in block.params.items()})
        if self.norm_first:
            named.update({"gamma_f": self.gamma_f, "beta_f": self.beta_f})
        named.update({"W_out": self.W_out, "b_out": self.b_out})
        return named

    @property
    def n_params(self):
        """The number of learned numbers."""
        return sum(p.size for p in self.params.values())

    @property
    def h(self):
        return len(self.blocks[0].heads)

    def __repr__(self):
        kind = "pre-norm" if self.norm_first else "post-norm"
        return (f"<SequenceClassifier ({kind}): {len(self.blocks)} block(s), "
                f"d_model = {self.E.shape[1]}, h = {self.h}, {self.n_params} parameters>")

    # --- forward and backward ---------------------------------------------------------

    def _check(self, func, features, mask, answer=None):
        features = finite_array(func, "features", features, (3,),
                                "an array (b, n, F) of one-hot features, one token per row")
        if features.shape[2] != self.E.shape[0]:
            raise ValueError(f"{func}: features has shape {shape_text(features.shape)} but the "
                             f"embedding E has {self.E.shape[0]} rows (F must match)")
        if answer is not None:
            answer = np.asarray(answer)
            n_classes = self.W_out.shape[1]
            if (answer.shape != (features.shape[0],)
                    or not np.issubdtype(answer.dtype, np.integer)
                    or answer.min() < 0 or answer.max() >= n_classes):
                raise ValueError(f"{func}: answer must be {features.shape[0]} whole numbers "
                                 f"in 0 ... {n_classes - 1}, one per sequence; got shape "
                                 f"{shape_text(answer.shape)}, dtype {answer.dtype}")
        return features, mask, answer

    def _forward(self, features, mask):
        """``(logits, cache)`` for checked inputs (the blocks check the mask)."""
        X_0 = features @ self.E
        # the loss reads token 0 alone, so the last block is computed for it alone
        X_N, stack_backward = transformer_stack_vjp(X_0, self.blocks, mask, n_queries=1)
        logits, head_cache = self._head_forward(X_N)
        return logits, (features, head_cache, stack_backward)

    def _backward(self, grad_logits, cache):
        features, head_cache, stack_backward = cache
        grads, grad_X = self._head_backward(grad_logits, head_cache)
        grad_X0, block_grads = stack_backward(grad_X)
        return self._all_grads(grads, features, grad_X0, block_grads)

    def _head_forward(self, X_N):
        """``(logits, cache)`` from the last block's output X_N (b, n, d): LN_f, token 0."""
        ln_cache = None
        if self.norm_first:
            X_N, ln_cache = ln_forward(X_N, self.gamma_f, self.beta_f, self.blocks[0].eps)
        x = X_N[:, 0]
        logits = x @ self.W_out
        logits += self.b_out
        return logits, (X_N.shape, x, ln_cache)

    def _head_backward(self, grad_logits, cache):
        """``(gradients of W_out, b_out and LN_f, dX_N)`` from the cache of _head_forward."""
        shape, x, ln_cache = cache
        grads = {"W_out": x.T @ grad_logits, "b_out": grad_logits.sum(axis=0)}
        grad_X = np.zeros(shape)
        grad_X[:, 0] = grad_logits @ self.W_out.T
        if self.norm_first:
            grad_X, grads["gamma_f"], grads["beta_f"] = ln_backward(ln_cache, grad_X)
        return grads, grad_X

    def _all_grads(self, grads, features, grad_X0, block_grads):
        """Every gradient by the names of ``params``: the head's, dE and the blocks'."""
        grads["E"] = features.reshape(-1, features.shape[2]).T @ grad_X0.reshape(
            -1, grad_X0.shape[2])
        for k, g in enumerate(block_grads, start=1):
            grads.update({f"block {k} {name}": W for name, W in g.params.items()})
        return {name: grads[name] for name in self.params}

    @staticmethod
    def _loss_gradient(logits, answer):
        """``(mean loss in nats, dL/dlogits)`` of the cross-entropy with ``answer``."""
        log_y = log_softmax(logits)
        rows = np.arange(len(answer))
        grad_logits = np.exp(log_y)
        grad_logits[rows, answer] -= 1.0
        grad_logits /= len(answer)
        return float(-log_y[rows, answer].mean()), grad_logits

    def logits(self, features, mask=None):
        """The logits (b, n_classes) read at token 0 of each sequence."""
        return self._forward(*self._check("logits", features, mask)[:2])[0]

    def loss_logits_and_gradients(self, features, mask, answer):
        """``(mean loss in nats, logits, gradients)``; gradients a dict like ``params``."""
        features, mask, answer = self._check("loss_and_gradients", features, mask, answer)
        logits, cache = self._forward(features, mask)
        loss, grad_logits = self._loss_gradient(logits, answer)
        return loss, logits, self._backward(grad_logits, cache)

    def loss_and_gradients(self, features, mask, answer):
        """``(mean loss in nats, gradients)``, the gradients a dict with the names of ``params``."""
        loss, _, grads = self.loss_logits_and_gradients(features, mask, answer)
        return loss, grads

    def gradient_trace(self, features, mask, answer):
        """What flows through the blocks, for chapter 9's deep stacks: a :class:`Trace`.

        One forward pass, every block computed for every token, and one backward pass; the
        trace keeps the residual stream X_0 ... X_N (X_k the output of block k, X_0 the
        embedding), the gradients dL/dX_0 ... dL/dX_N of the loss by them and the gradients
        of every block's parameters (the same as ``loss_and_gradients``).
        """
        features, mask, answer = self._check("gradient_trace", features, mask, answer)
        streams, backwards = [features @ self.E], []
        for block in self.blocks:
            X, backward = transformer_block_vjp(streams[-1], block, mask)
            streams.append(X)
            backwards.append(backward)
        logits, head_cache = self._head_forward(streams[-1])
        loss, grad_logits = self._loss_gradient(logits, answer)
        _, grad_X = self._head_backward(grad_logits, head_cache)
        stream_grads, block_grads = [grad_X], []
        for backward in reversed(backwards):
            grad_X, g = backward(grad_X)
            stream_grads.append(grad_X)
            block_grads.append(g)
        return Trace(loss, streams, stream_grads[::-1], block_grads[::-1])

    # --- reading the model -------------------------------------------------------------

    def attention_weights(self, features, mask=None, block=1):
        """The weights (b, h, n, n) of every head of block ``block`` (1 = the first).

        ``[s, r, j, i]`` is the weight that token j of sequence s gives token i in head r + 1.
        """
        features, mask, _ = self._check("attention_weights", features, mask)
        block = positive_int("attention_weights", "block", block)
        if block > len(self.blocks):
            raise ValueError(f"attention_weights: block must be 1 ... {len(self.blocks)}; "
                             f"got {block}")
        X = features @ self.E
        if block > 1:
            X = transformer_stack_vjp(X, self.blocks[:block - 1], mask)[0]
        p = self.blocks[block - 1]
        if p.norm_first:
            X = ln_forward(X, p.gamma_1, p.beta_1, p.eps)[0]
        weights = []
        for W_Q, W_K, _ in p.heads:
            s = np.matmul(X @ W_Q, (X @ W_K).transpose(0, 2, 1)) / np.sqrt(W_Q.shape[1])
            if mask is not None:
                s = np.where(np.broadcast_to(mask, s.shape), s, -np.inf)
            s -= s.max(axis=-1, keepdims=True)
            e = np.exp(s)
            weights.append(e / e.sum(axis=-1, keepdims=True))
        return np.stack(weights, axis=1)

    def without_head(self, r, block=1):
        """A copy of the model with head ``r`` (1 ... h) of block ``block`` switched off.

        ``r`` may also be a sequence of heads, all switched off. Their rows of W_O are set
        to 0, so they add nothing to the block's attention output; everything else is as
        trained (chapter 9's ablation).
        """
        heads = [r] if isinstance(r, (int, np.integer)) else list(r)
        heads = [positive_int("without_head", "r", k) for k in heads]
        block = positive_int("without_head", "block", block)
        if not heads or max(heads) > self.h or block > len(self.blocks):
            raise ValueError(f"without_head: the model has heads 1 ... {self.h} and blocks "
                             f"1 ... {len(self.blocks)}; got head {r}, block {block}")
        model = copy.deepcopy(self)
        d_v = model.blocks[block - 1].heads[0][2].shape[1]
        for k in heads:
            model.blocks[block - 1].W_O[(k - 1) * d_v:k * d_v] = 0.0
        return model


@dataclass
class Trace:
    """What :meth:`SequenceClassifier.gradient_trace` returns (chapter 9).

    ``streams[k]`` (b, n, d) is X_k, the output of block k (``streams[0]`` the embedding
    X_0 = Phi E); ``stream_grads[k]`` is dL/dX_k; ``block_grads[k - 1]`` is a Block of the
    gradients of block k's parameters.
    """

    loss: float
    streams: list
    stream_grads: list
    block_grads: list


def evaluate(model, examples):
    """``(mean loss in nats, accuracy)`` of ``model`` on ``examples`` (features, mask, answer)."""
    if not isinstance(model, SequenceClassifier):
        raise ValueError(f"evaluate: model must be a SequenceClassifier; got "
                         f"{type(model).__name__}")
    logits = model.logits(examples.features, examples.mask)
    log_y = log_softmax(logits)
    rows = np.arange(len(examples.answer))
    return (float(-log_y[rows, examples.answer].mean()),
            float((logits.argmax(axis=1) == examples.answer).mean()))


@dataclass
class TrainingResult:
    """What :func:`train` returns: the loss (nats) and the accuracy of every step's batch.

    ``reached`` is the step at which the stopping rule of ``train(..., until=...)`` held
    (None if it never did or there was none); training stopped there.
    """

    losses: np.ndarray
    accuracies: np.ndarray
    reached: int | None = None

    @property
    def steps(self):
        return len(self.losses)

    def first_reaching(self, accuracy, window=50):
        """The first step after which the mean batch accuracy of the last ``window`` steps is
        at least ``accuracy`` (the stopping rule of :func:`train`); None if none is."""
        return next((step for step in range(window, len(self.accuracies) + 1)
                     if _reaches(self.accuracies[:step], accuracy, window)), None)


def _reaches(accuracies, accuracy, window):
    """The stopping rule: the last ``window`` batch accuracies have a mean >= ``accuracy``."""
    return len(accuracies) >= window and accuracies[-window:].mean() >= accuracy


def train(model, make_batch, steps, rng, learning_rate=3e-3, until=None, window=50):
    """Train ``model`` in place with Adam for ``steps`` steps at most (chapter 9).

    Each step draws a fresh batch ``make_batch(rng)`` (an object with ``features``, ``mask``
    and ``answer``, e.g. ``lambda rng: lookup_task.make_examples(64, rng)``), computes the
    loss and every gradient by hand and updates the parameters. With ``until`` (an accuracy)
    training stops after the first step at which the mean batch accuracy of the last
    ``window`` steps is at least ``until``. Everything random comes from ``rng``, so the
    same generator state gives the same run. Returns a :class:`TrainingResult`.
    """
    func = "train"
    if not isinstance(model, SequenceClassifier):
        raise ValueError(f"{func}: model must be a SequenceClassifier; got "
                         f"{type(model).__name__}")
    if not callable(make_batch):
        raise ValueError(f"{func}: make_batch must be a function make_batch(rng) returning a "
                         f"batch; got {type(make_batch).__name__}")
    steps = positive_int(func, "steps", steps)
    window = positive_int(func, "window", window)
    if not (isinstance(learning_rate, (int, float)) and learning_rate > 0):
        raise ValueError(f"{func}: learning_rate must be a positive number; got "
                         f"{learning_rate!r}")
    if until is not None and not (isinstance(until, (int, float)) and 0 < until <= 1):
        raise ValueError(f"{func}: until must be an accuracy in (0, 1] or None; got {until!r}")
    optimiser = Adam(model.params, learning_rate)
    losses, accuracies = np.empty(steps), np.empty(steps)
    for step in range(steps):
        batch = make_batch(rng)
        losses[step], logits, grads = model.loss_logits_and_gradients(
            batch.features, batch.mask, batch.answer)
        accuracies[step] = (logits.argmax(axis=1) == batch.answer).mean()
        optimiser.step(grads)
        if until is not None and _reaches(accuracies[:step + 1], until, window):
            return TrainingResult(losses[:step + 1], accuracies[:step + 1], step + 1)
    return TrainingResult(losses, accuracies)
