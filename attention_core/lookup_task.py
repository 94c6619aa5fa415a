"""Chapter 9's task: two look-ups in chapter 2's pairs, answered by a small transformer.

An example is between 3 and 6 pairs (letter, digit) as in chapter 2 (letters a-h distinct,
digits 0-9 independent) and one query token that names two different letters of the
example, a first and a second. The answer is the two-digit number ``10 c_1 + c_2`` (00-99)
made of the first letter's digit c_1 and the second letter's digit c_2: each answer needs
two look-ups, and it must not mix up which digit came from which letter.

Tokens, as rows of ``features`` (count, 1 + MAX_PAIRS, 34), one-hot parts side by side:

* position 0 is the query: first letter in columns 18-25, second letter in columns 26-33;
* positions 1 ... m are the m pairs: letter in columns 0-7, digit in columns 8-17;
* positions m + 1 ... MAX_PAIRS are padding, all zeros; ``mask`` (count, 1, n) is False
  there (``masks.padding_mask`` with the query counted as a real token).

The task does not depend on the order of the pairs, so the model needs no positions; the
query token is told apart by its own columns.
"""

from dataclasses import dataclass
from math import log

import numpy as np

from .toy_task import LETTERS, N_DIGITS, N_LETTERS
from .validation import positive_int

MAX_PAIRS = 6
MIN_PAIRS = 3
#: pair letter 8 + pair digit 10 + first letter 8 + second letter 8
N_FEATURES = 2 * N_LETTERS + N_LETTERS + N_DIGITS
N_CLASSES = N_DIGITS * N_DIGITS
#: where each one-hot part starts among the 34 columns
PAIR_LETTER, PAIR_DIGIT = 0, N_LETTERS
FIRST_LETTER, SECOND_LETTER = N_LETTERS + N_DIGITS, 2 * N_LETTERS + N_DIGITS


@dataclass(frozen=True)
class LookupExamples:
    """A batch of examples of the two look-ups.

    ``features`` (count, n, 34) and ``mask`` (count, 1, n) are what the model reads
    (n = 1 + MAX_PAIRS tokens); ``answer`` (count,) is 10 c_1 + c_2. For reading them:
    ``letters`` and ``digits`` (count, MAX_PAIRS), -1 at padding; ``lengths`` (count,) the
    number of pairs m; ``first`` and ``second`` (count,) the indices (0-based, among the
    pairs) of the two queried pairs, so that pair i is token i + 1.
    """

    features: np.ndarray
    mask: np.ndarray
    answer: np.ndarray
    letters: np.ndarray
    digits: np.ndarray
    lengths: np.ndarray
    first: np.ndarray
    second: np.ndarray

    @property
    def count(self):
        return self.features.shape[0]

    def __len__(self):
        return self.count

    def __getitem__(self, index):
        """The examples ``index`` selects (an int, a slice or an index array)."""
        if isinstance(index, (int, np.integer)):
            index = slice(index, index + 1 if index != -1 else None)
        return LookupExamples(*(getattr(self, f)[index] for f in self.__dataclass_fields__))

    def describe(self, k=0):
        """Example ``k`` as text, e.g. ``'a3 c7 f1 ? ca -> 73'`` (pairs, query, answer)."""
        pairs = " ".join(f"{LETTERS[p]}{c}" for p, c in
                         zip(self.letters[k][:self.lengths[k]], self.digits[k]))
        first, second = (LETTERS[self.letters[k][i]] for i in (self.first[k],
                                                               self.second[k]))
        return f"{pairs} ? {first}{second} -> {self.answer[k]:02d}"


def make_examples(count, rng, min_pairs=MIN_PAIRS, max_pairs=MAX_PAIRS):
    """``count`` random examples drawn with the generator ``rng`` (chapter 9).

    The number of pairs is uniform on ``min_pairs`` ... ``max_pairs`` (2 <= min <= max
    <= 6); letters distinct, digits uniform, the two queried pairs a uniformly chosen
    ordered pair of different pairs. Always ``1 + MAX_PAIRS`` tokens, padded with zeros.
    """
    func = "make_examples"
    count = positive_int(func, "count", count)
    min_pairs = positive_int(func, "min_pairs", min_pairs, minimum=2)
    max_pairs = positive_int(func, "max_pairs", max_pairs, minimum=2)
    if not min_pairs <= max_pairs <= MAX_PAIRS:
        raise ValueError(f"{func}: need 2 <= min_pairs <= max_pairs <= {MAX_PAIRS}; got "
                         f"min_pairs = {min_pairs}, max_pairs = {max_pairs}")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"{func}: rng must be a numpy.random.Generator, e.g. "
                         f"np.random.default_rng(0); got {type(rng).__name__}")
    lengths = rng.integers(min_pairs, max_pairs + 1, size=count)
    letters = np.argsort(rng.random((count, N_LETTERS)), axis=1)
    digits = rng.integers(0, N_DIGITS, size=(count, MAX_PAIRS))
    first = (rng.random(count) * lengths).astype(int)
    second = (first + 1 + (rng.random(count) * (lengths - 1)).astype(int)) % lengths
    real = np.arange(MAX_PAIRS) < lengths[:, None]
    letters = np.where(real, letters[:, :MAX_PAIRS], -1)
    digits = np.where(real, digits, -1)

    rows = np.arange(count)
    features = np.zeros((count, 1 + MAX_PAIRS, N_FEATURES))
    example, pair = np.nonzero(real)
    features[example, pair + 1, PAIR_LETTER + letters[example, pair]] = 1.0
    features[example, pair + 1, PAIR_DIGIT + digits[example, pair]] = 1.0
    features[rows, 0, FIRST_LETTER + letters[rows, first]] = 1.0
    features[rows, 0, SECOND_LETTER + letters[rows, second]] = 1.0
    answer = N_DIGITS * digits[rows, first] + digits[rows, second]
    mask = np.concatenate([np.ones((count, 1), dtype=bool), real], axis=1)[:, None, :]
    return LookupExamples(features, mask, answer, letters, digits, lengths, first, second)


def with_swapped_digits(examples):
    """The same examples with the digits of the two queried pairs swapped (chapter 9).

    Pair ``first`` gets the digit of pair ``second`` and the other way round, in
    ``digits`` and in the features; the answer becomes 10 c_2 + c_1. These are the twin
    examples of chapter 9's theorem on one head: the same letters, the same digits, only
    which digit belongs to which queried letter differs.
    """
    if not isinstance(examples, LookupExamples):
        raise ValueError(f"with_swapped_digits: examples must be LookupExamples (from "
                         f"make_examples); got {type(examples).__name__}")
    rows = np.arange(examples.count)
    first, second = examples.first, examples.second
    digits = examples.digits.copy()
    digits[rows, first], digits[rows, second] = (examples.digits[rows, second],
                                                 examples.digits[rows, first])
    features = examples.features.copy()
    columns = slice(PAIR_DIGIT, PAIR_DIGIT + N_DIGITS)
    features[rows, first + 1, columns] = examples.features[rows, second + 1, columns]
    features[rows, second + 1, columns] = examples.features[rows, first + 1, columns]
    answer = N_DIGITS * digits[rows, first] + digits[rows, second]
    return LookupExamples(features, examples.mask.copy(), answer, examples.letters.copy(),
                          digits, examples.lengths.copy(), first.copy(), second.copy())


def order_blind_accuracy():
    """The best accuracy of a model that knows both digits but not which is which (exact).

    Equal digits (probability 1/10) it gets right; otherwise it can only guess between
    10 c_1 + c_2 and 10 c_2 + c_1: 1/10 + 9/10 * 1/2 = 0.55.
    """
    return 1 / N_DIGITS + (1 - 1 / N_DIGITS) / 2


def order_blind_loss():
    """The best mean loss (nats) of the same model: probability 1/2 on each order, 0.9 ln 2."""
    return (1 - 1 / N_DIGITS) * log(2)


def one_digit_loss():
    """The best mean loss (nats) of a model that knows one of the two digits exactly: ln 10."""
    return log(N_DIGITS)
