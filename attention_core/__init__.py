"""attention_core: the one NumPy implementation of attention that every chapter imports.

The mathematics only, depending on NumPy alone. Names follow the symbols of the source
document (see ``shared/docs/design.md``): chapter 1 ``softmax``, ``scores``,
``attention_weights``, ``attention``; chapter 4 ``softmax_jacobian``; chapter 5
``self_attention``; chapter 6 ``multi_head_attention``; chapter 7 ``additive_*``. How the
book shows it (sliders, figures, plot style, Czech numbers) is the separate package
``attention_display``.
"""

from .additive import additive_attention, additive_scores, additive_weights
from .blocked import (
    TileStep,
    blocked_attention,
    blocked_attention_steps,
    online_softmax,
    running_max_and_sum,
)
from .cross_attention import cross_attention
from .dot_product import attention, attention_backward, attention_weights, scores
from .feed_forward import feed_forward, feed_forward_backward
from .layer_norm import layer_norm, layer_norm_backward
from .masks import causal_mask, padding_mask
from .multi_head import multi_head_attention, multi_head_attention_backward
from .positions import position_frequencies, rope, sinusoidal_positions, sinusoidal_shift
from .self_attention import self_attention, self_attention_weights
from .softmax import log_softmax, softmax, softmax_backward, softmax_jacobian
from .transformer import (
    Block,
    transformer_block,
    transformer_block_backward,
    transformer_block_vjp,
    transformer_stack,
    transformer_stack_vjp,
    without_residuals,
)

#: The version of both packages (pyproject.toml reads it from here).
__version__ = "0.1.0"

__all__ = [
    "Block",
    "TileStep",
    "additive_attention",
    "additive_scores",
    "additive_weights",
    "attention",
    "attention_backward",
    "attention_weights",
    "blocked_attention",
    "blocked_attention_steps",
    "causal_mask",
    "cross_attention",
    "feed_forward",
    "feed_forward_backward",
    "layer_norm",
    "layer_norm_backward",
    "log_softmax",
    "multi_head_attention",
    "multi_head_attention_backward",
    "online_softmax",
    "padding_mask",
    "position_frequencies",
    "rope",
    "running_max_and_sum",
    "scores",
    "self_attention",
    "self_attention_weights",
    "sinusoidal_positions",
    "sinusoidal_shift",
    "softmax",
    "softmax_backward",
    "softmax_jacobian",
    "transformer_block",
    "transformer_block_backward",
    "transformer_block_vjp",
    "transformer_stack",
    "transformer_stack_vjp",
    "without_residuals",
]
