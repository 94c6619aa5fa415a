"""Chapter 9: a training step of the small transformer, NumPy against PyTorch (batch 64).

One training step is what ``attention_core.sequence_model.train`` does each step: 64 fresh
examples of chapter 9's two look-ups (``lookup_task.make_examples``), the forward pass
(embedding, one post-norm block with 4 heads, d_model = 64, d_ff = 128, padding mask,
output layer at token 0), the loss, every gradient, one Adam update. Where
PyTorch is installed, the same model (the same parameters copied over, float64, the same
examples, autograd, ``torch.optim.Adam``) is timed with the same number of threads,
interleaved with the NumPy steps so that a slow spell of the machine hits both alike.
Before timing, one step of each is compared: the same loss and gradients to 1e-10.
PyTorch is not a requirement of the book: without it the table says so.

``run()`` returns the rows (:class:`benchmarks.table.Row`); ``main()`` prints them.
"""

import numpy as np
from threadpoolctl import threadpool_limits

from attention_core.lookup_task import N_CLASSES, N_FEATURES, make_examples
from attention_core.sequence_model import SequenceClassifier
from attention_core.toy_task import Adam

from .table import Row, ms, normalise, render, verdict
from .timing import interleaved

BATCH = 64
CHUNK = 10          # steps per timed call
THREADS = (1, 2)
TORCH_TARGET = 1.0  # NumPy time per step / PyTorch time per step must not exceed this
LEARNING_RATE = 3e-3
SECTION = "Transformer training (ch. 9)"
MODEL = dict(d_model=64, h=4, d_ff=128, n_blocks=1, norm_first=False)   # the chapter's


def numpy_model(seed=0):
    """The chapter's model, freshly initialised from ``seed``."""
    return SequenceClassifier(np.random.default_rng(seed), N_FEATURES, N_CLASSES, **MODEL)


def numpy_steps(seed=0, batch=BATCH):
    """A function doing ``CHUNK`` NumPy training steps."""
    model = numpy_model(seed)
    optimiser = Adam(model.params, LEARNING_RATE)
    rng = np.random.default_rng(seed)

    def steps():
        for _ in range(CHUNK):
            ex = make_examples(batch, rng)
            _, grads = model.loss_and_gradients(ex.features, ex.mask, ex.answer)
            optimiser.step(grads)
    return steps


class TorchModel:
    """The same model in PyTorch, its parameters copied from a NumPy ``SequenceClassifier``."""

    def __init__(self, torch, model, dtype):
        self.torch, self.dtype = torch, dtype
        self.names = list(model.params)
        self.tensors = {name: torch.tensor(p, dtype=dtype, requires_grad=True)
                        for name, p in model.params.items()}
        self.h = model.h
        self.eps = model.blocks[0].eps
        self.norm_first = model.norm_first

    def loss(self, ex):
        """The mean loss of the batch ``ex``, as ``SequenceClassifier`` computes it."""
        torch, F, t = self.torch, self.torch.nn.functional, self.tensors
        features = torch.from_numpy(ex.features).to(self.dtype)
        mask = torch.from_numpy(ex.mask)[:, None]            # (b, 1, 1, n): True = may attend
        X = features @ t["E"]
        b, n, d = X.shape
        d_k = d // self.h
        heads = range(1, self.h + 1)
        W = torch.cat([t[f"block 1 {m}^({r})"] for m in ("W_Q", "W_K", "W_V") for r in heads],
                      dim=1)

        def norm(x, which):
            return F.layer_norm(x, (d,), t[f"block 1 gamma_{which}"],
                                t[f"block 1 beta_{which}"], self.eps)

        def attention(x):
            Q, K, V = (part.reshape(b, n, self.h, d_k).transpose(1, 2)
                       for part in (x @ W).split(d, -1))
            heads_out = F.scaled_dot_product_attention(Q, K, V, attn_mask=mask)
            return heads_out.transpose(1, 2).reshape(b, n, d) @ t["block 1 W_O"]

        def ffn(x):
            hidden = F.relu(x @ t["block 1 W_1"] + t["block 1 b_1"])
            return hidden @ t["block 1 W_2"] + t["block 1 b_2"]

        if self.norm_first:
            X = X + attention(norm(X, 1))
            X = X + ffn(norm(X, 2))
            X = F.layer_norm(X, (d,), t["gamma_f"], t["beta_f"], self.eps)
        else:
            X = norm(X + attention(X), 1)
            X = norm(X + ffn(X), 2)
        logits = X[:, 0] @ t["W_out"] + t["b_out"]
        return F.cross_entropy(logits, torch.from_numpy(ex.answer))


def torch_steps(torch, seed=0, batch=BATCH, dtype=None):
    """A function doing ``CHUNK`` PyTorch training steps of the same model."""
    model = TorchModel(torch, numpy_model(seed), dtype or torch.float64)
    optimiser = torch.optim.Adam(model.tensors.values(), lr=LEARNING_RATE)
    rng = np.random.default_rng(seed)

    def steps():
        for _ in range(CHUNK):
            loss = model.loss(make_examples(batch, rng))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return steps


def same_step(torch, **options):
    """The largest relative difference of loss and gradients between NumPy and PyTorch."""
    model = SequenceClassifier(np.random.default_rng(0), N_FEATURES, N_CLASSES,
                               **(MODEL | options))
    ex = make_examples(BATCH, np.random.default_rng(1))
    loss, grads = model.loss_and_gradients(ex.features, ex.mask, ex.answer)
    twin = TorchModel(torch, model, torch.float64)
    torch_loss = twin.loss(ex)
    torch_loss.backward()
    worst = abs(loss - torch_loss.item()) / abs(loss)
    for name in twin.names:
        g = twin.tensors[name].grad.numpy()
        worst = max(worst, np.abs(g - grads[name]).max() / max(np.abs(grads[name]).max(), 1e-300))
    return worst


def run(budget=2.0):
    """Measure; return the rows of the table."""
    try:
        import torch
    except ImportError:
        return [Row(SECTION, f"NumPy, batch {BATCH}", reference="PyTorch: not installed")]
    difference = max(same_step(torch), same_step(torch, norm_first=True))
    if difference > 1e-10:
        raise AssertionError(f"NumPy and PyTorch differ by {difference:.1e} on one step")
    rows = []
    for threads in THREADS:
        old = torch.get_num_threads()
        torch.set_num_threads(threads)
        try:
            with threadpool_limits(limits=threads):
                times = interleaved([numpy_steps(), torch_steps(torch),
                                     torch_steps(torch, dtype=torch.float32)],
                                    budget=budget, min_repeats=3)
        finally:
            torch.set_num_threads(old)
        numpy_time, torch_time, torch32_time = (t / CHUNK for t in times)
        ratio = numpy_time / torch_time
        rows.append(Row(
            SECTION, f"step: 1 post-norm block, h = 4, d_model = 64, batch {BATCH}, "
                     f"{threads} thread(s)",
            time=f"NumPy {ms(numpy_time)}",
            reference=(f"PyTorch {torch.__version__} float64: {ms(torch_time)} "
                       f"(float32: {ms(torch32_time)})"),
            ratio=f"{ratio:.2f}", target=f"<= {TORCH_TARGET:.1f} (NumPy time / PyTorch time)",
            met=verdict(ratio <= TORCH_TARGET)))
    rows.append(Row(SECTION, "same loss and gradients, NumPy vs PyTorch (one step, post- and "
                    "pre-norm)",
                    time=f"{difference:.0e} (relative)", target="<= 1e-10",
                    met=verdict(difference <= 1e-10)))
    return rows


def main():
    print(render([normalise(row) for row in run()]))


if __name__ == "__main__":
    main()
