"""_lib.py — loads libzsparse, declares its C prototypes, turns statuses into exceptions."""

import ctypes
import ctypes.util
import os
import threading

from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_int,
    c_int64,
    c_size_t,
    c_uint,
    c_uint64,
    c_void_p,
)

# Status codes of include/zsparse.h (stable: never renumbered).
OK = 0
INFO_NOT_CONVERGED = 1
ERR_INVALID_ARGUMENT = -1
ERR_OUT_OF_MEMORY = -2
ERR_OVERFLOW = -3
ERR_IO = -4
ERR_PARSE = -5
ERR_CORRUPT = -6
ERR_UNSUPPORTED = -7
ERR_BACKEND_UNAVAILABLE = -8
ERR_DEVICE = -9
ERR_BREAKDOWN = -10
ERR_INTERNAL = -11
ERR_OUT_OF_RANGE = -12

F32 = 1
F64 = 2
OP_N = 0
OP_T = 1


class Error(Exception):
    """An error reported by libzsparse.

    ``str(e)`` is the library's message (``zs_last_error()``: it names the file, line, array or
    limit involved) followed by the status name; ``e.status`` is the ``zs_status`` code (None for
    errors the Python layer finds itself) and ``e.status_name`` its name, e.g. "ZS_ERR_PARSE".
    """

    def __init__(self, message, status=None, status_name=None):
        super().__init__(message)
        self.message = message
        self.status = status
        self.status_name = status_name

    def __str__(self):
        if self.status_name:
            return f"{self.message} ({self.status_name})"
        return self.message


class InvalidArgumentError(Error, ValueError):
    """ZS_ERR_INVALID_ARGUMENT: a bad argument, option or option value."""


class OutOfMemoryError(Error, MemoryError):
    """ZS_ERR_OUT_OF_MEMORY."""


class SizeOverflowError(Error, OverflowError):
    """ZS_ERR_OVERFLOW: a size or index does not fit its type or limit."""


class FileError(Error, OSError):
    """ZS_ERR_IO: a file could not be opened, read or written."""


class ParseError(Error, ValueError):
    """ZS_ERR_PARSE: malformed text input (Matrix Market, option string)."""


class CorruptError(Error, ValueError):
    """ZS_ERR_CORRUPT: a container or encoded blob fails validation."""


class UnsupportedError(Error, NotImplementedError):
    """ZS_ERR_UNSUPPORTED: a valid request this build, backend or format cannot do."""


class BackendUnavailableError(Error, RuntimeError):
    """ZS_ERR_BACKEND_UNAVAILABLE: the backend is absent or unusable here."""


class DeviceError(Error, RuntimeError):
    """ZS_ERR_DEVICE: the device runtime reported an error."""


class BreakdownError(Error, ArithmeticError):
    """ZS_ERR_BREAKDOWN: a solver hit a zero divisor."""


class OutOfRangeError(Error, ValueError):
    """ZS_ERR_OUT_OF_RANGE: an index outside the matrix, or a value that is NaN or infinite."""


class ClosedError(Error, ValueError):
    """An object was used after close() (its own or its context's)."""


_ERRORS = {
    ERR_INVALID_ARGUMENT: InvalidArgumentError,
    ERR_OUT_OF_MEMORY: OutOfMemoryError,
    ERR_OVERFLOW: SizeOverflowError,
    ERR_IO: FileError,
    ERR_PARSE: ParseError,
    ERR_CORRUPT: CorruptError,
    ERR_UNSUPPORTED: UnsupportedError,
    ERR_BACKEND_UNAVAILABLE: BackendUnavailableError,
    ERR_DEVICE: DeviceError,
    ERR_BREAKDOWN: BreakdownError,
    ERR_OUT_OF_RANGE: OutOfRangeError,
}


def error(status, what=None):
    """The exception for a failed call: zs_last_error()'s text, read on the calling thread."""
    lib = _loaded
    message = lib.zs_last_error().decode("utf-8", "replace") if lib else ""
    name = lib.zs_status_name(status).decode() if lib else f"status {status}"
    if not message:
        message = f"{what or 'libzsparse'} failed"
    elif what:
        message = f"{what}: {message}"
    return _ERRORS.get(status, Error)(message, status, name)


def check(status, what=None):
    """Raise the library's error for a status < 0; return the status otherwise."""
    if status < 0:
        raise error(status, what)
    return status


class BackendInfo(Structure):
    _fields_ = [("name", c_char_p), ("usable", c_int), ("detail", c_char_p)]


class Topology(Structure):
    _fields_ = [
        (name, c_int)
        for name in (
            "packages",
            "cores",
            "pus",
            "numa_nodes",
            "gpus_nvidia",
            "gpus_amd",
            "threads",
            "hwloc",
        )
    ]


class SolverOptions(Structure):
    _fields_ = [
        ("method", c_int),
        ("tol", c_double),
        ("max_iter", c_int64),
        ("precond", c_void_p),
        ("breakdown_tol", c_double),
        ("x0_given", c_int),
        ("history", POINTER(c_double)),
        ("history_cap", c_int64),
    ]


class SolverResult(Structure):
    _fields_ = [
        ("iterations", c_int64),
        ("rel_residual", c_double),
        ("history_len", c_int64),
        ("spmv_count", c_int64),
        ("spmvt_count", c_int64),
        ("precond_count", c_int64),
        ("time_s", c_double),
        ("stop_reason", c_char_p),
    ]


STAT_FN = CFUNCTYPE(None, c_void_p, c_char_p, c_double)

_p = c_void_p
_pp = POINTER(c_void_p)
_i64p = POINTER(c_int64)

# name: (restype, argtypes). Every handle is a void pointer here: the Python classes keep the kinds
# apart.
_PROTOTYPES = {
    "zs_version": (c_char_p, []),
    "zs_last_error": (c_char_p, []),
    "zs_status_name": (c_char_p, [c_int]),
    "zs_format_name": (c_char_p, [c_int]),
    "zs_format_from_name": (c_int, [c_char_p, POINTER(c_int)]),
    "zs_matrix_from_csr": (c_int, [_pp, c_int64, c_int64, _p, _p, _p, c_int, c_uint]),
    "zs_matrix_destroy": (None, [_pp]),
    "zs_matrix_generate": (c_int, [_pp, c_char_p, c_int, c_int]),
    "zs_matrix_rows": (c_int64, [_p]),
    "zs_matrix_cols": (c_int64, [_p]),
    "zs_matrix_nnz": (c_int64, [_p]),
    "zs_matrix_type": (c_int, [_p]),
    "zs_matrix_csr": (None, [_p, _pp, _pp, _pp]),
    "zs_encode": (c_int, [_pp, _p, c_int, c_char_p]),
    "zs_decode": (c_int, [_pp, _p]),
    "zs_encoded_destroy": (None, [_pp]),
    "zs_encoded_save": (c_int, [_p, c_char_p]),
    "zs_encoded_load": (c_int, [_pp, c_char_p]),
    "zs_encoded_format": (c_int, [_p]),
    "zs_encoded_note": (c_char_p, [_p]),
    "zs_encoded_options": (c_char_p, [_p]),
    "zs_encoded_type": (c_int, [_p]),
    "zs_encoded_rows": (c_int64, [_p]),
    "zs_encoded_cols": (c_int64, [_p]),
    "zs_encoded_nnz": (c_int64, [_p]),
    "zs_encoded_bytes": (c_uint64, [_p]),
    "zs_encoded_array_count": (c_int, [_p]),
    "zs_encoded_array_info": (
        c_int,
        [_p, c_int, POINTER(c_char_p), POINTER(c_size_t), POINTER(c_uint64)],
    ),
    "zs_encoded_param_count": (c_int, [_p]),
    "zs_encoded_param_info": (c_int, [_p, c_int, POINTER(c_char_p), _i64p]),
    "zs_encoded_stats": (c_int, [_p, STAT_FN, c_void_p]),
    "zs_context_create": (c_int, [_pp]),
    "zs_context_destroy": (None, [_pp]),
    "zs_context_backend_count": (c_int, [_p]),
    "zs_context_backend_info": (c_int, [_p, c_int, POINTER(BackendInfo)]),
    "zs_context_default_backend": (c_char_p, [_p]),
    "zs_context_topology": (None, [_p, POINTER(Topology)]),
    "zs_context_device_count": (c_int, [_p]),
    "zs_context_device": (c_char_p, [_p, c_int]),
    "zs_vector_create": (c_int, [_pp, _p, c_char_p, c_int, c_int64]),
    "zs_vector_wrap": (c_int, [_pp, _p, c_char_p, c_int, c_int64, _p]),
    "zs_vector_rewrap": (c_int, [_p, _p]),
    "zs_vector_destroy": (None, [_pp]),
    "zs_vector_size": (c_int64, [_p]),
    "zs_vector_upload": (c_int, [_p, _p]),
    "zs_vector_download": (c_int, [_p, _p]),
    "zs_vector_fill": (c_int, [_p, c_double]),
    "zs_operator_create": (c_int, [_pp, _p, _p, c_char_p, c_char_p]),
    "zs_operator_destroy": (None, [_pp]),
    "zs_operator_backend": (c_char_p, [_p]),
    "zs_operator_rows": (c_int64, [_p]),
    "zs_operator_cols": (c_int64, [_p]),
    "zs_operator_type": (c_int, [_p]),
    "zs_spmv": (c_int, [_p, c_int, c_double, _p, c_double, _p]),
    "zs_spmv_pair": (c_int, [_p, c_double, _p, c_double, _p, c_double, _p, c_double, _p]),
    "zs_operator_sync": (c_int, [_p]),
    "zs_solver_options_init": (None, [POINTER(SolverOptions)]),
    "zs_solver_method_from_name": (c_int, [c_char_p, POINTER(c_int)]),
    "zs_solve": (
        c_int,
        [_p, _p, _p, _p, POINTER(SolverOptions), POINTER(SolverResult)],
    ),
    "zs_solver_jacobi": (c_int, [_pp, _p, _p, c_char_p]),
}

_lock = threading.Lock()
_loaded = None
_loaded_path = None


def _candidates():
    """Where to look, in order: $ZSPARSE_LIBRARY alone when set; else the library directory the
    package was installed with; else the system's search (ld.so cache, LD_LIBRARY_PATH)."""
    env = os.environ.get("ZSPARSE_LIBRARY")
    if env:
        return [env]
    found = []
    try:
        from . import _config  # written by `meson install` only

        for name in ("libzsparse.so.0", "libzsparse.so", "libzsparse.dylib"):
            path = os.path.join(_config.LIBDIR, name)
            if os.path.exists(path):
                found.append(path)
    except ImportError:
        pass
    system = ctypes.util.find_library("zsparse")
    if system:
        found.append(system)
    found += ["libzsparse.so.0", "libzsparse.so"]
    return found


def load_library(path=None):
    """Load libzsparse and return its path. Without `path`: $ZSPARSE_LIBRARY, then the install
    location, then the system's library search. Loading happens at most once per process; a
    second call with another path raises RuntimeError."""
    global _loaded, _loaded_path
    with _lock:
        if _loaded is not None:
            if path is not None and os.path.realpath(path) != os.path.realpath(_loaded_path):
                raise RuntimeError(
                    f"libzsparse is already loaded from {_loaded_path}; "
                    f"cannot switch to {path} in the same process"
                )
            return _loaded_path
        tried = []
        for cand in [os.fspath(path)] if path is not None else _candidates():
            try:
                lib = ctypes.CDLL(cand)
            except OSError as e:
                tried.append(f"{cand}: {e}")
                continue
            _declare(lib, cand)
            _loaded, _loaded_path = lib, cand
            return cand
        raise OSError(
            "libzsparse not found; set ZSPARSE_LIBRARY=/path/to/libzsparse.so or call "
            "zsparse.load_library(path). Tried:\n  " + "\n  ".join(tried)
        )


def _declare(lib, path):
    for name, (res, args) in _PROTOTYPES.items():
        try:
            fn = getattr(lib, name)
        except AttributeError:
            raise OSError(f"{path} lacks {name}: not a libzsparse of this version") from None
        fn.restype = res
        fn.argtypes = args


def lib():
    """The loaded library (loading it with the default search on first use)."""
    if _loaded is None:
        load_library()
    return _loaded


def library_path():
    """Path the library was loaded from (loads it first if needed)."""
    lib()
    return _loaded_path


def library_version():
    """The library's version string, e.g. "0.1.0"."""
    return lib().zs_version().decode()


def destroy(destroy_fn, handle):
    """Free a handle through its zs_*_destroy (which accepts NULL and sets it to NULL)."""
    if handle.value is not None:
        destroy_fn(ctypes.byref(handle))


class Owner:
    """Base of the objects that own a library handle (self._p, freed by self._finalizer, a
    weakref.finalize): close(), `with` blocks, .closed, and a ClosedError once closed."""

    _what = "object"

    def _closed_message(self):
        return f"the {self._what} is closed"

    def handle(self):
        """The library's pointer (a ctypes c_void_p); ClosedError once closed."""
        if self._p.value is None:
            raise ClosedError(self._closed_message())
        return self._p

    @property
    def closed(self):
        return self._p.value is None

    def close(self):
        """Free the handle now (also done on garbage collection); closing twice is harmless."""
        self._finalizer()

    def _close_with_context(self):
        self.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


_addressof, _from_buffer = ctypes.addressof, ctypes.c_char.from_buffer


def address(a):
    """Address of a C-contiguous array's data: c_char.from_buffer is several times quicker than
    a.ctypes.data, but takes only writable, non-empty arrays."""
    try:
        return _addressof(_from_buffer(a))
    except (TypeError, ValueError):
        return a.ctypes.data
