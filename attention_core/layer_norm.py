"""Layer normalisation of each token (chapter 9).

For a token x (its d numbers along the last axis),

    mu = mean_i x_i,   sigma^2 = mean_i (x_i - mu)^2   (the biased variance),
    x_hat = (x - mu) / sqrt(sigma^2 + eps),   LN(x) = gamma * x_hat + beta,

as ``torch.nn.LayerNorm(d, eps)``: each token gets mean 0 and variance sigma^2 / (sigma^2
+ eps) (1 up to eps) before the learned scale gamma and shift beta, both (d,). Its
backward pass, with g = dLN * gamma,

    dx = (g - mean(g) - x_hat mean(g x_hat)) / sqrt(sigma^2 + eps),
    dgamma = sum over tokens of dLN * x_hat,   dbeta = sum over tokens of dLN.
"""

import numpy as np

from .validation import finite_array, shape_text


def check_layer_norm(func, X, gamma, beta, eps):
    """Check X (..., d) with 1 to 3 axes, gamma and beta (d,), eps > 0."""
    X = finite_array(func, "X", X, (1, 2, 3),
                     "a token (d,), a matrix (n, d) or a batch (b, n, d)")
    gamma, beta = check_scale_shift(func, X.shape, gamma, beta)
    return X, gamma, beta, check_eps(func, eps)


def check_scale_shift(func, X_shape, gamma, beta, names=("gamma", "beta")):
    """Check that gamma and beta (named ``names``) are (d,) for tokens of shape ``X_shape``."""
    d = X_shape[-1]
    checked = []
    for name, p in zip(names, (gamma, beta)):
        p = finite_array(func, name, p, (1,), f"a vector (d,) with d = {d}")
        if p.shape != (d,):
            raise ValueError(f"{func}: {name} has shape {shape_text(p.shape)} but X "
                             f"{shape_text(X_shape)} has d = {d}, so {name} must be ({d},)")
        checked.append(p)
    return checked


def check_eps(func, eps):
    """``eps`` as a float; ``ValueError`` unless it is a positive number."""
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.floating)) or not eps > 0:
        raise ValueError(f"{func}: eps must be a positive number; got {eps!r}")
    return float(eps)


def forward(X, gamma, beta, eps):
    """``(LN(X), cache)`` for checked inputs; the cache is what :func:`backward` needs."""
    d = X.shape[-1]
    centred = X - np.einsum("...i->...", X)[..., None] * (1.0 / d)  # einsum: fast row sums
    variance = np.einsum("...i,...i->...", centred, centred)[..., None]
    variance *= 1.0 / d
    variance += eps
    r = 1.0 / np.sqrt(variance)
    x_hat = centred
    x_hat *= r
    return x_hat * gamma + beta, (x_hat, r, gamma)


def backward(cache, grad_out):
    """``(dX, dgamma, dbeta)`` from the cache of :func:`forward` and the gradient of LN(X)."""
    x_hat, r, gamma = cache
    d = x_hat.shape[-1]
    tokens = grad_out.reshape(-1, d)
    grad_gamma = np.einsum("ti,ti->i", tokens, x_hat.reshape(-1, d))
    grad_beta = tokens.sum(axis=0)
    g = grad_out * gamma
    mean_g = np.einsum("...i->...", g)[..., None] * (1.0 / d)
    mean_gx = np.einsum("...i,...i->...", g, x_hat)[..., None] * (1.0 / d)
    g -= mean_g
    g -= x_hat * mean_gx
    g *= r
    return g, grad_gamma, grad_beta


def layer_norm(X, gamma, beta, eps=1e-5):
    """``gamma * (X - mu) / sqrt(sigma^2 + eps) + beta`` over the last axis (chapter 9).

    ``X`` is a token (d,), tokens (n, d) or a batch (b, n, d); ``gamma``, ``beta`` (d,);
    mu and the biased variance sigma^2 are each token's own, as in ``torch.nn.LayerNorm``.
    """
    return forward(*check_layer_norm("layer_norm", X, gamma, beta, eps))[0]


def layer_norm_backward(X, gamma, beta, grad_out, eps=1e-5):
    """Gradients ``(dX, dgamma, dbeta)`` of a loss whose gradient w.r.t. LN(X) is ``grad_out``.

    The formulas of chapter 9 (module docstring); ``grad_out`` has the shape of X.
    """
    X, gamma, beta, eps = check_layer_norm("layer_norm_backward", X, gamma, beta, eps)
    grad_out = finite_array("layer_norm_backward", "grad_out", grad_out, (1, 2, 3))
    if grad_out.shape != X.shape:
        raise ValueError(f"layer_norm_backward: grad_out has shape {shape_text(grad_out.shape)} "
                         f"but X has shape {shape_text(X.shape)} (they must match)")
    return backward(forward(X, gamma, beta, eps)[1], grad_out)
