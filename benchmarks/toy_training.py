"""Chapter 2: training steps per second of the three models of the one-hot task (batch 64).

One training step is what ``attention_core.toy_task.train`` does each step: make 64 fresh
examples, forward and backward pass, one Adam update. NumPy steps of every model are timed;
where PyTorch happens to be installed, the same attention model (same shapes, float64, the
same examples, Adam, autograd) is timed on the CPU with the same number of threads,
interleaved with the NumPy steps so that a slow spell of the machine hits both alike.
PyTorch is not a requirement of the book: without it the table says so.

``run()`` returns the rows (:class:`benchmarks.table.Row`); ``main()`` prints them.
"""

import numpy as np
from threadpoolctl import threadpool_limits

from attention_core.toy_task import KINDS, LEARNING_RATES, Adam, make_examples, make_model

from .table import Row, normalise, render, verdict
from .timing import interleaved

BATCH = 64
CHUNK = 50          # steps per timed call
THREADS = (1, 2)
TORCH_TARGET = 1.0  # NumPy time per step / PyTorch time per step must not exceed this
SECTION = "Toy task training (ch. 2)"


def numpy_steps(kind, batch=BATCH, seed=0):
    """A function doing ``CHUNK`` NumPy training steps of a model of ``kind``."""
    rng = np.random.default_rng(seed)
    model = make_model(kind, rng)
    optimiser = Adam(model.params, LEARNING_RATES[kind])

    def steps():
        for _ in range(CHUNK):
            _, grads = model.loss_and_gradients(make_examples(batch, rng))
            optimiser.step(grads)
    return steps


def torch_steps(torch, batch=BATCH, seed=0, dtype=None):
    """A function doing ``CHUNK`` PyTorch training steps of the source's attention model."""
    dtype = dtype or torch.float64
    gen = torch.Generator().manual_seed(seed)
    d = 16

    def param(*shape, std):
        return (torch.randn(*shape, generator=gen, dtype=dtype) * std).requires_grad_()

    W_Q, W_K, W_V = param(d, 8, std=1.0), param(d, 18, std=0.5 ** 0.5), param(d, 18, std=0.5 ** 0.5)
    W_O, b_O = param(10, d, std=d ** -0.5), torch.zeros(10, dtype=dtype, requires_grad=True)
    optimiser = torch.optim.Adam([W_Q, W_K, W_V, W_O, b_O], lr=LEARNING_RATES["attention"])
    rng = np.random.default_rng(seed)

    def steps():
        for _ in range(CHUNK):
            ex = make_examples(batch, rng)
            items = torch.from_numpy(ex.items).to(dtype)
            query = torch.from_numpy(ex.query).to(dtype)
            q = query @ W_Q.T                                   # (batch, d)
            K = items @ W_K.T                                   # (batch, 6, d)
            V = items @ W_V.T
            a = torch.softmax((K @ q.unsqueeze(2)).squeeze(2) / d ** 0.5, dim=1)
            o = (a.unsqueeze(1) @ V).squeeze(1)
            loss = torch.nn.functional.cross_entropy(o @ W_O.T + b_O, torch.from_numpy(ex.answer))
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    return steps


def _rate(seconds):
    return f"{CHUNK / seconds:,.0f} steps/s".replace(",", " ")


def run(budget=1.5):
    """Measure; return the rows of the table."""
    try:
        import torch
    except ImportError:
        torch = None
    rows = []
    for threads in THREADS:
        with threadpool_limits(limits=threads):
            functions = [numpy_steps(kind) for kind in KINDS]
            if torch is not None:
                old = torch.get_num_threads()
                torch.set_num_threads(threads)
                functions.append(torch_steps(torch))
            try:
                times = interleaved(functions, budget=budget, min_repeats=5)
            finally:
                if torch is not None:
                    torch.set_num_threads(old)
        for kind, seconds in zip(KINDS, times, strict=False):
            row = Row(SECTION, f"NumPy {kind}, batch {BATCH}, {threads} thread(s)",
                      time=_rate(seconds))
            if kind == "attention" and torch is not None:
                ratio = seconds / times[-1]
                row.reference = f"PyTorch {torch.__version__}: {_rate(times[-1])}"
                row.ratio = f"{ratio:.2f}"
                row.target = f"<= {TORCH_TARGET:.1f} (NumPy time / PyTorch time)"
                row.met = verdict(ratio <= TORCH_TARGET)
            elif kind == "attention":
                row.reference = "PyTorch: not installed"
            rows.append(row)
    return rows


def main():
    print(render([normalise(row) for row in run()]))


if __name__ == "__main__":
    main()
