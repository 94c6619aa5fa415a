"""Sections 1 and 2: self-attention and multi-head attention against their bare products.

The reference of each is the matrix products the formula cannot avoid, timed in the same
run: for self-attention X W_Q, X W_K, X W_V, Q K^T and A V; for multi-head attention those
of every head plus [head_1, ..., head_h] W_O. The ratio says what the softmax, the checks
and the copies cost on top. With PyTorch installed, multi-head attention is also timed
against ``torch.nn.functional.scaled_dot_product_attention`` (same shapes, float64 like
NumPy, same number of threads). Times are the best of interleaved calls (see
``timing.interleaved``): on this shared machine their ratio repeats best.
"""

import numpy as np
from threadpoolctl import threadpool_limits

from attention_core import multi_head_attention, self_attention

from .table import Row, ms, verdict
from .timing import interleaved

D = 512
D_K = 64
SIZES = (128, 512, 1000, 2048)
THREADS = (1, 2)
SELF_TARGET = 1.3     # self_attention / bare products at n = 1000, one BLAS thread
TORCH_TARGET = 1.5    # multi_head_attention / PyTorch


def _projections(rng, d, columns, count):
    return [rng.standard_normal((d, columns)) / np.sqrt(d) for _ in range(count)]


def self_attention_rows(budget=0.6):
    rng = np.random.default_rng(0)
    rows = []
    for threads in THREADS:
        with threadpool_limits(limits=threads, user_api="blas"):
            for n in SIZES:
                X = rng.standard_normal((n, D))
                W_Q, W_K, W_V = _projections(rng, D, D_K, 3)

                def bare(X=X, W_Q=W_Q, W_K=W_K, W_V=W_V):
                    Q, K, V = X @ W_Q, X @ W_K, X @ W_V
                    return (Q @ K.T) @ V

                def ours(X=X, W_Q=W_Q, W_K=W_K, W_V=W_V):
                    return self_attention(X, W_Q, W_K, W_V)

                t_ours, t_bare = interleaved([ours, bare], budget=budget, statistic="min")
                ratio = t_ours / t_bare
                scored = threads == 1 and n == 1000
                rows.append(Row(
                    "1 self_attention", f"n = {n}, d = {D}, d_k = d_v = {D_K}, "
                    f"{threads} thread{'s' if threads > 1 else ''}",
                    ms(t_ours), ms(t_bare) + " (products)", f"{ratio:.2f}",
                    f"<= {SELF_TARGET}" if scored else None,
                    verdict(ratio <= SELF_TARGET) if scored else None))
    return rows


def _torch_mha(torch, X, heads, W_O, dtype=None):
    """The same multi-head attention in PyTorch: stacked projections, SDPA, W_O."""
    n, h, d_v = X.shape[0], len(heads), heads[0][2].shape[1]
    dtype = dtype or torch.float64
    x = torch.from_numpy(X).to(dtype)
    w_q, w_k, w_v = (torch.from_numpy(np.concatenate([head[j] for head in heads], axis=1))
                     .to(dtype) for j in range(3))
    w_o = torch.from_numpy(W_O).to(dtype)
    sdpa = torch.nn.functional.scaled_dot_product_attention

    def run():
        with torch.inference_mode():
            q = (x @ w_q).view(n, h, -1).transpose(0, 1)
            k = (x @ w_k).view(n, h, -1).transpose(0, 1)
            v = (x @ w_v).view(n, h, -1).transpose(0, 1)
            z = sdpa(q, k, v)
            return z.transpose(0, 1).reshape(n, h * d_v) @ w_o
    return run


def multi_head_rows(n=1000, h=8, budget=1.0):
    rng = np.random.default_rng(1)
    d_k = D // h
    X = rng.standard_normal((n, D))
    heads = [tuple(_projections(rng, D, d_k, 3)) for _ in range(h)]
    W_O = rng.standard_normal((h * d_k, D)) / np.sqrt(h * d_k)
    try:
        import torch
    except ImportError:
        torch = None
    rows = []
    for threads in THREADS:
        def bare():
            concat = np.empty((n, h * d_k))
            for r, (W_Q, W_K, W_V) in enumerate(heads):
                Q, K, V = X @ W_Q, X @ W_K, X @ W_V
                concat[:, r * d_k:(r + 1) * d_k] = (Q @ K.T) @ V
            return concat @ W_O

        def ours():
            return multi_head_attention(X, heads, W_O)

        case = (f"n = {n}, d = {D}, h = {h}, d_k = d_v = {d_k}, "
                f"{threads} thread{'s' if threads > 1 else ''}")
        functions = [ours, bare]
        if torch is not None:
            previous = torch.get_num_threads()
            torch.set_num_threads(threads)
            reference = _torch_mha(torch, X, heads, W_O)
            assert np.allclose(reference().numpy(), ours(), atol=1e-8)
            single = _torch_mha(torch, X, heads, W_O, torch.float32)
            assert np.allclose(single().numpy(), ours(), atol=1e-3)
            functions += [reference, single]
        try:
            with threadpool_limits(limits=threads, user_api="blas"):
                times = interleaved(functions, budget=budget, statistic="min")
        finally:
            if torch is not None:
                torch.set_num_threads(previous)
        rows.append(Row("2 multi_head_attention", case, ms(times[0]),
                        ms(times[1]) + " (products)", f"{times[0] / times[1]:.2f}"))
        if torch is None:
            rows.append(Row("2 multi_head_attention", case, ms(times[0]),
                            "PyTorch not installed", None, f"<= {TORCH_TARGET} x PyTorch"))
        else:
            ratio = times[0] / times[2]
            rows.append(Row("2 multi_head_attention", case, ms(times[0]),
                            ms(times[2]) + f" (PyTorch {torch.__version__} SDPA, float64)",
                            f"{ratio:.2f}", f"<= {TORCH_TARGET} x PyTorch",
                            verdict(ratio <= TORCH_TARGET)))
            rows.append(Row("2 multi_head_attention", case + " (for comparison only)",
                            ms(times[0]), ms(times[3]) + " (PyTorch SDPA, float32)",
                            f"{times[0] / times[3]:.2f}"))
    return rows
