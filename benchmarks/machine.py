"""What machine ran the benchmarks: CPU, cores, NumPy and its BLAS (via threadpoolctl)."""

import os
import platform
from importlib import metadata
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_info


def cpu_name():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def cpu_flags():
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


def blas():
    """The BLAS libraries NumPy loaded, as threadpoolctl sees them (a list of dicts)."""
    return [lib for lib in threadpool_info() if lib.get("user_api") == "blas"]


def blas_threads():
    """The number of threads NumPy's BLAS uses now (1 if threadpoolctl sees no BLAS)."""
    return max((lib.get("num_threads") or 1 for lib in blas()), default=1)


def torch_version():
    """PyTorch's version, or None when it is not installed (it is optional; not imported here)."""
    try:
        return metadata.version("torch")
    except metadata.PackageNotFoundError:
        return None


def describe():
    """Lines ``key: value`` that describe the machine, for the top of the table."""
    cores = os.cpu_count()
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    flags = cpu_flags()
    simd = [name for name, flag in (("AVX2", "avx2"), ("AVX-512", "avx512f")) if flag in flags]
    lines = [
        ("CPU", f"{cpu_name()} ({platform.machine()}{', ' + ', '.join(simd) if simd else ''})"),
        ("Cores", f"{cores} logical, {usable} usable by this process"),
        ("Python", platform.python_version()),
        ("NumPy", np.__version__),
    ]
    libraries = blas()
    if not libraries:
        lines.append(("BLAS", "none found by threadpoolctl"))
    for lib in libraries:
        lines.append(("BLAS", f"{lib.get('internal_api')} {lib.get('version')} "
                              f"({lib.get('threading_layer')}), kernel {lib.get('architecture')}, "
                              f"{lib.get('num_threads')} threads"))
    coretype = os.environ.get("OPENBLAS_CORETYPE")
    if coretype:
        note = f"OPENBLAS_CORETYPE={coretype} is set: OpenBLAS uses the {coretype} kernel"
        if "avx512f" in flags:
            note += " although this CPU has AVX-512 (left as it is; timings are with it)"
        lines.append(("Environment", note))
    else:
        lines.append(("Environment", "OPENBLAS_CORETYPE not set (OpenBLAS picks its kernel)"))
    version = torch_version()
    lines.append(("PyTorch", version if version else "not installed"))
    return lines
