"""Input checks shared by every function of the package.

Bad input must fail early with a message that names the function, the argument and
the shape or value it got, never with a NumPy broadcasting error from deep inside.
"""

import numpy as np


def shape_text(shape):
    """Format a shape as ``(3, 2)`` (a 1-D shape as ``(3,)``)."""
    return str(tuple(int(n) for n in shape))


def finite_array(func, name, x, ndims, what=None):
    """Return ``x`` as a float64 array with one of the allowed ``ndims``.

    Raises ``ValueError`` naming ``func`` and ``name`` if the number of dimensions is
    wrong, if a dimension is empty, or if an entry is NaN or infinite.
    """
    try:
        a = np.asarray(x, dtype=np.float64)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{func}: {name} must be an array of numbers ({error})") from None
    if a.ndim not in ndims:
        expected = what or " or ".join(f"{n}-D" for n in ndims)
        raise ValueError(f"{func}: {name} must be {expected}; got shape {shape_text(a.shape)}")
    if 0 in a.shape:
        raise ValueError(f"{func}: {name} is empty (shape {shape_text(a.shape)})")
    if not np.isfinite(a).all():
        raise ValueError(
            f"{func}: {name} contains NaN or infinite values (shape {shape_text(a.shape)})"
        )
    return a


def same_size(func, name_a, size_a, name_b, size_b, meaning):
    """Raise ``ValueError`` unless two sizes agree; ``meaning`` says why they must."""
    if size_a != size_b:
        raise ValueError(f"{func}: {name_a} is {size_a} but {name_b} is {size_b} ({meaning})")


def positive_int(func, name, value, minimum=1):
    """Return ``value`` as an int; ``ValueError`` unless it is a whole number >= ``minimum``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{func}: {name} must be a whole number; got {value!r}")
    if value < minimum:
        raise ValueError(f"{func}: {name} must be at least {minimum}; got {value}")
    return int(value)
