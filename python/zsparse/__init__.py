"""zsparse — compressed sparse matrices decoded inside SpMV / SpMVT kernels, from Python.

SciPy matrices in, NumPy arrays out: zsparse.encode(A, "dtans") compresses a scipy.sparse
matrix, zsparse.Operator(E) puts it on a backend (cpu, cuda, ...) where op @ x and op.T @ x run
the library's kernels, op.aslinearoperator() hands it to SciPy's iterative solvers, and
zsparse.solve runs the library's own BiCG / BiCGSTAB / CG with the vectors kept on the backend.

A pure-Python package: libzsparse is loaded through ctypes on first use, from $ZSPARSE_LIBRARY,
else where the package was installed with it, else the system's library path; or name it with
zsparse.load_library(path) before anything else.
"""

from ._context import Context, Vector, default_context, devices
from ._encoded import Encoded, encode, formats, generate, load
from ._lib import (
    BackendUnavailableError,
    BreakdownError,
    ClosedError,
    CorruptError,
    DeviceError,
    Error,
    FileError,
    InvalidArgumentError,
    OutOfMemoryError,
    OutOfRangeError,
    ParseError,
    SizeOverflowError,
    UnsupportedError,
    library_path,
    library_version,
    load_library,
)
from ._operator import Operator, TransposedOperator
from ._solve import SolveInfo, solve

__all__ = [
    "BackendUnavailableError",
    "BreakdownError",
    "ClosedError",
    "Context",
    "CorruptError",
    "DeviceError",
    "Encoded",
    "Error",
    "FileError",
    "InvalidArgumentError",
    "Operator",
    "OutOfMemoryError",
    "OutOfRangeError",
    "ParseError",
    "SizeOverflowError",
    "SolveInfo",
    "TransposedOperator",
    "UnsupportedError",
    "Vector",
    "default_context",
    "devices",
    "encode",
    "formats",
    "generate",
    "library_path",
    "library_version",
    "load",
    "load_library",
    "solve",
]
