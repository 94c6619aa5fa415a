"""attention_core: the one NumPy implementation of attention that every chapter imports.

The mathematics only, depending on NumPy alone. Names follow the symbols of the source
document (see ``shared/docs/design.md``): chapter 1 ``softmax``, ``scores``,
``attention_weights``, ``attention``; chapter 4 ``softmax_jacobian``; chapter 5
``self_attention``; chapter 6 ``multi_head_attention``; chapter 7 ``additive_*``. How the
book shows it (sliders, figures, plot style, Czech numbers) is the separate package
``attention_display``.
"""

from .additive import additive_attention, additive_scores, additive_weights
from .dot_product import attention, attention_backward, attention_weights, scores
from .multi_head import multi_head_attention
from .self_attention import self_attention, self_attention_weights
from .softmax import log_softmax, softmax, softmax_backward, softmax_jacobian

#: The version of both packages (pyproject.toml reads it from here).
__version__ = "0.1.0"

__all__ = [
    "additive_attention",
    "additive_scores",
    "additive_weights",
    "attention",
    "attention_backward",
    "attention_weights",
    "log_softmax",
    "multi_head_attention",
    "scores",
    "self_attention",
    "self_attention_weights",
    "softmax",
    "softmax_backward",
    "softmax_jacobian",
]
