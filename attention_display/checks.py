"""Self-checks a student runs in an exercise's own cell (issue 20, item 3).

An exercise whose answer is a number, a few numbers or an array ends with a cell ::

    from attention_display.checks import check

    answer = None        # the student writes the result here
    check("2.1", answer)

``check`` prints, in Czech, whether the answer is right or which way it is off (a band of
the relative error, the wrong sign, the wrong count of numbers, wrong by orders of
magnitude), never the expected value nor a number one could compute it back from. The
expected values are not in the chapter, so a student edition of a notebook ("Notebook bez
řešení") does not show them: each is computed here when it is first asked for, from
``attention_core`` wherever the package can compute it, with the chapter and the formula of
the book's solution named next to it.

Keys are the exercises' numbers as the HTML shows them: "2.1" is the first exercise of
chapter 2, "dodatek 3" the third exercise of the appendix (an unnumbered page).
"""

import math
from dataclasses import dataclass
from functools import cache

import numpy as np

from attention_core import (
    attention,
    attention_weights,
    blocked_attention_steps,
    causal_mask,
    padding_mask,
    position_frequencies,
    rope,
    softmax,
    softmax_jacobian,
)
from attention_core.cost import attention_cost, layer_complexity, layer_cost
from attention_core.generation import kv_cache_bytes
from attention_core.toy_task import Adam, make_model, query_blind_loss

#: Czech words for counts and positions (numerals would be confused with the answer's value).
_COUNT = {1: "jedno číslo", 2: "dvě čísla", 3: "tři čísla", 4: "čtyři čísla",
          5: "pět čísel", 6: "šest čísel", 7: "sedm čísel", 8: "osm čísel",
          9: "devět čísel", 10: "deset čísel"}
_ORDINAL = ["první", "druhé", "třetí", "čtvrté", "páté", "šesté", "sedmé", "osmé",
            "deváté", "desáté"]
_WITH = {1: "jedním", 2: "dvěma", 3: "třemi", 4: "čtyřmi", 5: "pěti"}
_IN = ["v prvním", "ve druhém", "ve třetím", "ve čtvrtém", "v pátém", "v šestém",
       "v sedmém", "v osmém", "v devátém", "v desátém"]

NO_ANSWER = ("Zatím žádná odpověď: místo None napište do proměnné answer svůj výsledek "
             "a buňku spusťte znovu.")


@dataclass(frozen=True)
class Expected:
    """What one exercise's check accepts.

    ``compute`` returns the expected number or numbers (called once, lazily); an answer
    element x is accepted when ``|x - e| <= atol + rtol * |e|`` for its expected e.
    ``rtol`` (one number, or one per element) and ``atol`` leave room for the rounding the
    book's solution uses.
    """

    compute: object
    rtol: float | tuple = 1e-3
    atol: float = 0.0


@dataclass(frozen=True)
class Verdict:
    """The result of a check: ``correct`` is None when there is no answer yet.

    True only when the answer is right, so that a solution can write
    ``assert check(key, answer)``. ``check`` has printed the message already, so Jupyter
    shows nothing more for a verdict that ends a cell.
    """

    correct: bool | None
    message: str

    def __bool__(self):
        return self.correct is True

    def _ipython_display_(self):
        """Nothing: the message is printed by :func:`check`."""


# --- the expected answers, chapter by chapter ------------------------------------------

def _chapter_1_example(second_key=(0.0, 1.0)):
    """Chapter 1's example: q = (2; 1), keys (1; 0), k_2, (−1; 0), values 10, 20, 30."""
    q = np.array([2.0, 1.0])
    K = np.array([[1.0, 0.0], list(second_key), [-1.0, 0.0]])
    return q, K, np.array([10.0, 20.0, 30.0])


def _longer_key():
    """Exercise 1.1: the output with k_2 = (0; 3)."""
    return attention(*_chapter_1_example((0.0, 3.0)))


def _shifted_values():
    """Exercise 1.2: the output with values 2 v_i − 20, i.e. (0; 20; 40)."""
    q, K, V = _chapter_1_example()
    return attention(q, K, 2 * V - 20)


def _sure_weight():
    """Exercise 1.4: the least λ with first weight of λ q at least 0.99 (bisection)."""
    q, K, _ = _chapter_1_example()
    low, high = 0.0, 10.0
    for _ in range(60):
        middle = (low + high) / 2
        if attention_weights(middle * q, K)[0] < 0.99:
            low = middle
        else:
            high = middle
    return high


def _parameter_counts():
    """Exercise 2.1: parameters of chapter 2's attention model, d = 16 and d = 256."""
    rng = np.random.default_rng(0)
    return [make_model("attention", rng, d=d).n_params for d in (16, 256)]


def _gap_for_099():
    """Exercise 2.2: Δ with softmax weight 0.99 among n pairs, ln(0.99 (n − 1) / 0.01)."""
    gaps = [math.log(0.99 * (n - 1) / 0.01) for n in (6, 8)]
    for n, gap in zip((6, 8), gaps, strict=True):
        assert np.isclose(softmax(np.array([gap] + [0.0] * (n - 1)))[0], 0.99)
    return gaps


def _below_ln5():
    """Exercise 2.3: the hand-built model's accuracy at Δ = 1 and at Δ = 0, exactly.

    The right digit (say 0) against every combination of the other five pairs' digits: at
    Δ = 1 (e^Δ ≈ 2.72) it loses when another digit occurs at least twice more often; at
    Δ = 0 the model answers the most frequent digit, right with probability max_c m_c / 6
    (averaged over all six digits).
    """
    def counts(n_pairs):
        digits = np.indices((10,) * n_pairs, dtype=np.int8).reshape(n_pairs, -1)
        return np.stack([(digits == c).sum(axis=0) for c in range(10)], axis=1)

    others = counts(5)
    at_1 = (others[:, 1:].max(axis=1) < 1 + others[:, 0] + 2).mean()
    # six digits: the five above and a sixth digit d, whose count goes up by one
    most = others.max(axis=1)
    at_0 = np.mean([np.maximum(most, others[:, d] + 1).mean() / 6 for d in range(10)])
    return [at_1, at_0]


def _query_blind_losses():
    """Exercise 2.5: the best loss without the query for 1 to 8 pairs."""
    return [query_blind_loss(n) for n in range(1, 9)]


def _self_dot_variance():
    """Exercise 3.1: Var(q · q) = d Var(q_j²) = d (E q⁴ − 1) = 2 d for normal q, d = 64."""
    fourth_moment = 3.0
    return 64 * (fourth_moment - 1)


def _mixed_variance():
    """Exercise 3.2: Var(q · k / √d) = σ_q² σ_k² for σ_q = 0.5, σ_k = 3."""
    return 0.5**2 * 3.0**2


def _pairs_needed():
    """Exercise 3.3: N = 2 / r² pairs for a relative standard error r of 10, 1 and 0.1 %."""
    return [round(2 / r**2) for r in (0.1, 0.01, 0.001)]


def _equal_values_gradient():
    """Exercise 4.1: ∂L/∂s_j = a_j (v_j − o) · g_o with six equal values (any a, g_o)."""
    rng = np.random.default_rng(0)
    a = softmax(rng.normal(size=6))
    V = np.tile(rng.normal(size=4), (6, 1))
    gradient = a * ((V - a @ V) @ rng.normal(size=4))
    assert np.abs(gradient).max() < 1e-15     # zero up to rounding: the answer is zero
    return np.zeros_like(gradient)


def _entropy_bounds():
    """Exercise 4.3: entropy of ten weights, from one weight 1 to all weights 1/10."""
    def entropy(a):
        a = a[a > 0]
        return float(-(a * np.log(a)).sum())

    return [abs(entropy(np.eye(10)[0])), entropy(softmax(np.zeros(10)))]


def _first_d_below_a_hundredth():
    """Exercise 4.4: chapter 4's simulation (saturation, n = 10, method "norm") gives the
    factor below 0.01 first at d = 8 192; it is too slow to repeat here, so it is stored."""
    return 8192


def _uniform_diagonal():
    """Exercise 4.5: the Jacobian's diagonal (1/n)(1 − 1/n) for n = 2, 10, 100."""
    return [softmax_jacobian(softmax(np.zeros(n)))[0, 0] for n in (2, 10, 100)]


def _strong_queries():
    """Exercise 5.1: the weights of „Malé“ at λ = 10: both nouns score 2λ/√3, the rest 0."""
    noun = 20 / math.sqrt(3)
    return softmax(np.array([0.0, noun, 0.0, 0.0, noun]))


def _position_number():
    """Exercise 5.3: the weights of „auto“ by position, scores 3 (verb + pos/2) / √3."""
    verb = np.array([0.0, 1.0, 0.0])
    return softmax(3 * (verb + np.arange(1, 4) / 2) / math.sqrt(3))


def _gpt2_attention():
    """Exercise 6.1: d_k, parameters and multiply-adds of GPT-2's attention, n = 1 024."""
    gpt = attention_cost(1024, 768, h=12)
    return [gpt.d_k, gpt.params_total, gpt.madds_total]


def _ratio_near_four():
    """Exercise 6.2: the least even n with one head's cost ratio for n and n/2 >= 3.8."""
    def first_n(d_model, h):
        for n in range(2, 40 * d_model, 2):
            madds = (attention_cost(n, d_model, h).madds_head,
                     attention_cost(n // 2, d_model, h).madds_head)
            if 10 * madds[0] >= 38 * madds[1]:
                return n
        raise AssertionError("no n found")

    return [first_n(512, 8), first_n(768, 12)]


def _sixteen_heads():
    """Exercise 6.3: parameters, multiply-adds and score elements (the last two in
    millions, as the exercise's table shows them), h = 16."""
    layer = attention_cost(1000, 512, h=16)
    return [layer.params_total, layer.madds_total / 1e6, layer.scores_heads / 1e6]


def _doubled_length():
    """Exercise 7.3: operations of version (b), 2 n p d_k + 3 n² p (p = d_k = 64), 256 : 128."""
    def operations(n, dim=64):
        return 2 * n * dim * dim + 3 * n**2 * dim

    return operations(256) / operations(128)


def _memory():
    """Exercise 7.4: MB of the n × n × p array and of the score matrix, n = 1 000, p = 64."""
    return [1000 * 1000 * 64 * 8 / 1e6, 1000 * 1000 * 8 / 1e6]


def _weights_left():
    """Exercise 8.1: allowed elements with causal and padding masks, lengths 3 and 5, n = 5;
    per sequence (a row): all of them and those of real tokens' queries."""
    both = causal_mask(5) & padding_mask([3, 5], 5)
    return [[int(M.sum()), int(M[:length].sum())]
            for length, M in zip([3, 5], both, strict=True)]


def _wavelengths():
    """Exercise 8.3: the fastest and the slowest turn (positions), d_model = 512, and the
    number of pairs turning in fewer than 512 positions."""
    turns = 2 * np.pi / position_frequencies(512)
    return [turns[0], turns[-1], int((turns < 512).sum())]


def _one_pair():
    """Exercise 8.4: shifts 1 to 20 whose RoPE score (d_k = 2) is within 5 % of δ = 0's."""
    u = np.array([[1.0, 0.0]])
    score = {delta: (rope(u, positions=[0]) @ rope(u, positions=[delta]).T).item()
             for delta in range(21)}
    return [delta for delta in range(1, 21) if abs(score[delta] - score[0]) < 0.05 * score[0]]


def _gpt2_layer():
    """Exercise 9.1: GPT-2's attention and feed-forward parameters, the two balance lengths
    and the quadratic share of the whole layer's work at n = 1 024 (a fraction)."""
    gpt = layer_cost(n=1024, d=768, h=12, d_ff=3072)
    return [gpt.params_attention, gpt.params_ffn, gpt.crossover_attention,
            gpt.crossover_layer, gpt.madds_quadratic / gpt.madds_total]


def _gpt2_cache():
    """Exercise 10.1: GPT-2's key-value cache of 1 024 tokens in float32, in MiB."""
    return kv_cache_bytes(positions=1024, d=768, h=12, layers=12, itemsize=4) / 2**20


def _extreme_blocks():
    """Exercise 10.2: tiles of blocked attention for n = 40 with blocks of 1 and of 40."""
    X = np.random.default_rng(0).normal(size=(40, 4))
    return [sum(1 for _ in blocked_attention_steps(X, X, X, B)) for B in (1, 40)]


def _causal_tiles():
    """Exercise 10.3: tiles of causal blocked attention, n = 1 024, blocks of 128."""
    X = np.random.default_rng(0).normal(size=(1024, 4))
    return sum(1 for _ in blocked_attention_steps(X, X, X, 128, causal=True))


def _window():
    """Exercise 10.5: window r = 256, n = 4 096, d_model = 512 (the chapter's window): how
    many times fewer operations, the longest path, layers to reach 1 000 positions back."""
    window = layer_complexity("restricted_self_attention", 4096, 512, r=256)
    full = layer_complexity("self_attention", 4096, 512)
    return [full.operations / window.operations, window.path_length, math.ceil(1000 / 256)]


def _scaled_scores():
    """Appendix, exercise 1: the softmax weights of the scores (10; 20; 30)."""
    return softmax(np.array([10.0, 20.0, 30.0]))


def _even_digit():
    """Appendix, exercise 2: ln 5 nats, log₂ 5 bits and the bits saved against log₂ 10."""
    return [math.log(5), math.log2(5), math.log2(10) - math.log2(5)]


def _embedding():
    """Appendix, exercise 3: multiplications of W e_π (d_model = 512, N = 50 000), those
    by zero and those of reading a column by index."""
    d_model, n_tokens = 512, 50_000
    return [d_model * n_tokens, d_model * (n_tokens - 1), 0]


def _adam_first_step():
    """Appendix, exercise 4: Adam's first step over η for g_1 = 10⁻⁹, ε added to √v̂_1
    (the text's formula) and to √v_1 (the package's Adam)."""
    g, eps, eta = 1e-9, 1e-8, 0.01
    p = {"w": np.zeros(1)}
    Adam(p, learning_rate=eta, eps=eps).step({"w": np.array([g])})
    return [g / (g + eps), -p["w"][0] / eta]


#: Every exercise with a check, by its number in the HTML.
CHECKS = {
    "1.1": Expected(_longer_key),
    "1.2": Expected(_shifted_values),
    "1.4": Expected(_sure_weight),
    "2.1": Expected(_parameter_counts, rtol=0),
    "2.2": Expected(_gap_for_099, rtol=2e-3),
    "2.3": Expected(_below_ln5, rtol=0, atol=0.03),
    "2.5": Expected(_query_blind_losses, atol=5e-4),
    "3.1": Expected(_self_dot_variance, rtol=0.05),
    "3.2": Expected(_mixed_variance, rtol=0.05),
    "3.3": Expected(_pairs_needed, rtol=0),
    "4.1": Expected(_equal_values_gradient, rtol=0, atol=1e-12),
    "4.3": Expected(_entropy_bounds, atol=5e-4),
    "4.4": Expected(_first_d_below_a_hundredth, rtol=0),
    "4.5": Expected(_uniform_diagonal, atol=5e-5),
    "5.1": Expected(_strong_queries, rtol=0, atol=5e-4),
    "5.3": Expected(_position_number, rtol=0, atol=5e-4),
    "6.1": Expected(_gpt2_attention, rtol=(0, 0, 2e-3)),
    "6.2": Expected(_ratio_near_four, rtol=0),
    "6.3": Expected(_sixteen_heads, rtol=(0, 1e-4, 0)),
    "7.3": Expected(_doubled_length),
    "7.4": Expected(_memory, rtol=0),
    "8.1": Expected(_weights_left, rtol=0),
    "8.3": Expected(_wavelengths),
    "8.4": Expected(_one_pair, rtol=0),
    "9.1": Expected(_gpt2_layer, rtol=0, atol=5e-4),
    "10.1": Expected(_gpt2_cache),
    "10.2": Expected(_extreme_blocks, rtol=0),
    "10.3": Expected(_causal_tiles, rtol=0),
    "10.5": Expected(_window, rtol=0),
    "dodatek 1": Expected(_scaled_scores, rtol=1e-4, atol=5e-6),
    "dodatek 2": Expected(_even_digit, atol=5e-4),
    "dodatek 3": Expected(_embedding, rtol=0),
    "dodatek 4": Expected(_adam_first_step, rtol=0.02),
}


@cache
def expected(key):
    """The expected answer of exercise ``key`` as a float array (computed once)."""
    if key not in CHECKS:
        raise ValueError(f"expected: no check for exercise {key!r}; "
                         f"known: {', '.join(CHECKS)}")
    return np.asarray(CHECKS[key].compute(), dtype=float)


# --- judging an answer --------------------------------------------------------------------

def _count(n):
    return _COUNT.get(n, f"{n} čísel")


#: The bands of the relative error a hint names: a hint gives the direction and the band,
#: never a number that would let one try compute the answer back („Pro vyučující“).
_BANDS = ((0.01, "o méně než 1 %"), (0.1, "o 1 až 10 %"), (0.5, "o 10 až 50 %"))


def _how_far(x, e, atol):
    """How far the answer element x is from e, in words that do not give e away: which
    way, and the band of the relative error (an e within ``atol`` of zero: only which way)."""
    if abs(e) <= atol:
        return f"je {'větší' if x > e else 'menší'}, než má být"
    if x == 0:
        return "je nula, a to správná odpověď není"
    if np.sign(x) != np.sign(e):
        return "má opačné znaménko"
    ratio = x / e
    word = "větší" if ratio > 1 else "menší"
    if ratio >= 10 or ratio <= 0.1:
        return f"je řádově {word}, než má být (jiné jednotky?)"
    for bound, band in _BANDS:
        if abs(ratio - 1) < bound:
            return f"je {band} {word}, než má být"
    if ratio > 1:
        return "je aspoň o polovinu větší, než má být"
    return "je nejvýš polovina správné hodnoty"


def _place(index, shape):
    """„první číslo“ or „číslo ve druhém řádku a prvním sloupci“ (words, not numerals)."""
    if len(shape) == 2:
        row, column = index
        return f"číslo {_IN[row]} řádku a {_IN[column]} sloupci"
    return f"{_ORDINAL[index[0]]} číslo"


def _as_numbers(answer):
    """The answer as a float array, or None if it is not numbers."""
    if isinstance(answer, str | bytes | dict | set):
        return None
    try:
        array = np.asarray(answer, dtype=float)
    except (TypeError, ValueError):
        return None
    return array


def verdict(key, answer):
    """Judge ``answer`` to exercise ``key``: a :class:`Verdict` with a Czech message."""
    e = expected(key)
    spec = CHECKS[key]
    if answer is None:
        return Verdict(None, NO_ANSWER)
    x = _as_numbers(answer)
    if x is None:
        return Verdict(False, "Odpověď má být číslo nebo několik čísel (seznam, n-tice "
                              "nebo pole NumPy), ne text ani jiný objekt.")
    if e.ndim == 0 and x.size == 1:
        x = x.reshape(())
    if x.size == 0:
        return Verdict(False, f"Odpověď je prázdná; čekám {_count(e.size)}.")
    if x.size != e.size:
        return Verdict(False, f"Čekám {_count(e.size)}, odpověď jich má "
                              f"{_count(x.size).split()[0]}.")
    if x.shape != e.shape and e.ndim <= 1 and np.squeeze(x).ndim <= 1:
        x = x.reshape(e.shape)  # the same numbers written as a row or a column
    if x.shape != e.shape and e.ndim <= 1:
        return Verdict(False, f"Čekám {_count(e.size)} v jedné řadě (seznam nebo vektor); "
                              "odpověď je tabulka.")
    if x.shape != e.shape:
        rows, columns = (_WITH.get(n, str(n)) for n in e.shape)
        preposition = "se" if rows[0] in "dtč" else "s"
        return Verdict(False, f"Čekám tabulku {preposition} {rows} řádky a {columns} "
                              "sloupci; odpověď má jiný tvar.")
    if not np.isfinite(x).all():
        return Verdict(False, "V odpovědi je nekonečno nebo NaN, a to správná odpověď "
                              "neobsahuje.")
    # an exact check still allows the rounding of floating point (2 / 0.1² is not 200)
    rtol = np.maximum(np.broadcast_to(np.asarray(spec.rtol, dtype=float), e.shape), 1e-9)
    ok = np.abs(x - e) <= spec.atol + rtol * np.abs(e)
    if ok.all():
        return Verdict(True, "Správně.")
    if e.ndim == 0:
        return Verdict(False, f"Zatím ne: odpověď {_how_far(float(x), float(e), spec.atol)}.")
    wrong = [f"{_place(index, e.shape)} {_how_far(x[index], e[index], spec.atol)}"
             for index in zip(*np.nonzero(~ok), strict=True)]
    rest = "; ostatní jsou správně" if ok.any() else ""
    return Verdict(False, "Zatím ne: " + "; ".join(wrong) + rest + ".")


def check(key, answer):
    """Print in Czech whether ``answer`` to exercise ``key`` is right, or how far off it is.

    ``answer = None`` (the placeholder of the exercise's cell) prints that there is no
    answer yet. The expected value itself is never printed. Returns the :class:`Verdict`
    (true when right), which Jupyter does not show again.
    """
    result = verdict(key, answer)
    print(result.message)
    return result
