"""Section 6: exact attention in linear memory (chapter 10), its memory and its time.

Peak memory is what ``tracemalloc`` sees NumPy allocate during one call, above what was
allocated before it (so the inputs are not counted; the output is). Three computations of
one head with d_k = d_v = 64:

* ``blocked_attention(Q, K, V, 128)``: tiles of 128 x 128 scores;
* ``self_attention(X, W_Q, W_K, W_V)`` with X (n, 64): its own projections Q, K, V, a copy
  of K^T, and the scores of blocks of query rows (4 MiB, or 128 rows of n scores when n is
  larger than 4 096, see ``attention_core/self_attention.py``);
* the plain formula ``softmax(Q K^T / sqrt(d_k)) V`` (``attention(Q, K, V)`` with a batch of
  queries), which holds all n^2 scores: at n = 4 096 only (at 16 384 its scores alone would
  be 2 GiB).

Both ``blocked_attention`` and ``self_attention`` return the output (n, d_v), 8 MiB at
n = 16 384, which is a sixth of ``self_attention``'s peak: the issue's target of 1/16 of
``self_attention``'s peak cannot hold for the whole peak, and is checked on the working
memory beyond the output (what each needs besides its result). Time: ``blocked_attention``
against ``self_attention`` at n = 4 096 on one thread, the best of interleaved calls.
"""

import tracemalloc

import numpy as np
from threadpoolctl import threadpool_limits

from attention_core import attention, blocked_attention, self_attention

from .table import Row, ms, verdict
from .timing import interleaved

D_K = 64
BLOCK = 128
MEMORY_SIZES = (4096, 16384)
TIME_SIZE = 4096
MEMORY_TARGET = 1 / 16   # working memory of blocked_attention / self_attention at 16 384
TIME_TARGET = 2.0        # blocked_attention / self_attention at 4 096, one thread
SECTION = "6 blocked_attention"


def peak_bytes(func, *args):
    """Bytes NumPy allocated at most during ``func(*args)``, above what was allocated before."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        func(*args)
        return tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()


def mib(n_bytes):
    return f"{n_bytes / 2**20:.2f} MiB" if n_bytes < 10 * 2**20 else f"{n_bytes / 2**20:.1f} MiB"


def problem(n, rng):
    """Tokens X (n, 64) with projections, and their Q, K, V for blocked_attention."""
    X = rng.standard_normal((n, D_K))
    W = [rng.standard_normal((D_K, D_K)) / np.sqrt(D_K) for _ in range(3)]
    return X, W, [X @ W_ for W_ in W]


def memory_rows(rng):
    rows = []
    for n in MEMORY_SIZES:
        X, W, (Q, K, V) = problem(n, rng)
        output = n * D_K * 8
        blocked = peak_bytes(blocked_attention, Q, K, V, BLOCK)
        own = peak_bytes(self_attention, X, *W)
        case = f"peak memory, n = {n}, d_k = d_v = {D_K}, B = {BLOCK}"
        rows.append(Row(SECTION, case + " (output included)", mib(blocked),
                        mib(own) + " (self_attention)", f"1/{own / blocked:.1f}"))
        scored = n == MEMORY_SIZES[-1]
        ratio = (blocked - output) / (own - output)
        rows.append(Row(SECTION, case + f" (beyond the output of {mib(output)})",
                        mib(blocked - output), mib(own - output) + " (self_attention)",
                        f"1/{1 / ratio:.0f}", "<= 1/16" if scored else None,
                        verdict(ratio <= MEMORY_TARGET) if scored else None))
        if n == MEMORY_SIZES[0]:
            plain = peak_bytes(attention, Q, K, V)
            rows.append(Row(SECTION, case + " (output included)", mib(blocked),
                            mib(plain) + " (plain formula, all n² scores)",
                            f"1/{plain / blocked:.0f}"))
    return rows


def time_rows(rng):
    X, W, (Q, K, V) = problem(TIME_SIZE, rng)
    np.testing.assert_allclose(blocked_attention(Q, K, V, BLOCK), self_attention(X, *W),
                               rtol=1e-10, atol=1e-12)
    with threadpool_limits(limits=1, user_api="blas"):
        t_blocked, t_wide, t_own = interleaved(
            [lambda: blocked_attention(Q, K, V, BLOCK), lambda: blocked_attention(Q, K, V, 256),
             lambda: self_attention(X, *W)], budget=3.0, min_repeats=3, statistic="min")
    case = f"time, n = {TIME_SIZE}, d_k = d_v = {D_K}, 1 thread"
    ratio = t_blocked / t_own
    return [Row(SECTION, case + f", B = {BLOCK}", ms(t_blocked), ms(t_own) + " (self_attention)",
                f"{ratio:.2f}", f"<= {TIME_TARGET}", verdict(ratio <= TIME_TARGET)),
            Row(SECTION, case + ", B = 256", ms(t_wide), ms(t_own) + " (self_attention)",
                f"{t_wide / t_own:.2f}")]


def rows():
    rng = np.random.default_rng(10)
    return memory_rows(rng) + time_rows(rng)
