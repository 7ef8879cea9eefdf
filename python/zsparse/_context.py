"""_context.py — the context (hardware discovery, backends), device-resident vectors, devices()."""

import ctypes
import threading
import weakref

import numpy as np

from . import _lib
from ._lib import check

_DTYPES = {_lib.F32: np.dtype(np.float32), _lib.F64: np.dtype(np.float64)}
_TYPE_IDS = {np.dtype(np.float32): _lib.F32, np.dtype(np.float64): _lib.F64}


def type_id(dtype, what="dtype"):
    """The zs_type of float32/float64; TypeError for anything else."""
    try:
        dt = np.dtype(dtype)
    except TypeError:
        raise TypeError(f"{what} {dtype!r} is not a NumPy dtype; use float32 or float64") from None
    if dt not in _TYPE_IDS:
        raise TypeError(f"{what} {dt} is not supported; zsparse stores float32 or float64")
    return _TYPE_IDS[dt]


def dtype_of(type_id_):
    return _DTYPES[type_id_]


def _destroy_context(lib, handle):
    _lib.destroy(lib.zs_context_destroy, handle)


class Context(_lib.Owner):
    """Hardware discovery and the backends that can run operators ("ref", "cpu", and "cuda" or
    "hip" where a device and its runtime are found).

    backend: the backend operators and vectors of this context use when none is named; None means
    the library's choice ($ZS_BACKEND, else cuda > hip > cpu). Closing a context (close(), the end
    of a `with` block, or garbage collection) first closes every operator and vector made in it;
    objects made in a context keep it alive while they live.
    """

    def __init__(self, backend=None):
        lib = _lib.lib()
        self._lib = lib
        self._p = ctypes.c_void_p()
        check(lib.zs_context_create(ctypes.byref(self._p)), "zs_context_create")
        self._finalizer = weakref.finalize(self, _destroy_context, lib, self._p)
        self._children = weakref.WeakSet()
        self._children_lock = threading.Lock()
        if backend is not None:
            if not isinstance(backend, str):
                raise TypeError(f"backend must be a name such as 'cpu', not {backend!r}")
            known = {b["name"]: b for b in self.backends}
            if backend not in known:
                self.close()
                raise _lib.InvalidArgumentError(
                    f"unknown backend '{backend}' (this build has: {', '.join(known)})"
                )
            if not known[backend]["usable"]:
                self.close()
                raise _lib.BackendUnavailableError(
                    f"backend '{backend}' is not usable here: {known[backend]['detail']}"
                )
        self._backend = backend

    _what = "context"

    def _adopt(self, child):
        with self._children_lock:
            self._children.add(child)

    def close(self):
        """Close every operator and vector made in this context, then the context itself."""
        with self._children_lock:
            children = list(self._children)
            self._children.clear()
        for child in children:
            child._close_with_context()
        self._finalizer()

    def __repr__(self):
        if self.closed:
            return "<zsparse.Context (closed)>"
        return f"<zsparse.Context backend={self.backend!r}>"

    # -- what was found ---------------------------------------------------------------------
    @property
    def backend(self):
        """The backend used when none is named."""
        if self._backend is not None:
            return self._backend
        return self._lib.zs_context_default_backend(self.handle()).decode()

    @property
    def backends(self):
        """[{name, usable, detail}] for every registered backend."""
        p = self.handle()
        out = []
        for i in range(self._lib.zs_context_backend_count(p)):
            info = _lib.BackendInfo()
            check(self._lib.zs_context_backend_info(p, i, ctypes.byref(info)))
            out.append(
                {
                    "name": info.name.decode(),
                    "usable": bool(info.usable),
                    "detail": (info.detail or b"").decode("utf-8", "replace"),
                }
            )
        return out

    def usable_backends(self):
        """Names of the backends operators can be created on."""
        return [b["name"] for b in self.backends if b["usable"]]

    @property
    def topology(self):
        """CPU packages, cores, PUs, NUMA nodes, OpenMP threads, PCI GPUs by vendor, hwloc."""
        t = _lib.Topology()
        self._lib.zs_context_topology(self.handle(), ctypes.byref(t))
        out = {name: int(getattr(t, name)) for name, _ in _lib.Topology._fields_}
        out["hwloc"] = bool(out["hwloc"])
        return out

    @property
    def devices(self):
        """One line of text per discovered object (PCI GPUs, hwloc OS devices)."""
        p = self.handle()
        n = self._lib.zs_context_device_count(p)
        return [self._lib.zs_context_device(p, i).decode("utf-8", "replace") for i in range(n)]

    def info(self):
        """What `zsparse devices --json` prints: topology, devices, backends, default_backend."""
        return {
            "topology": self.topology,
            "devices": self.devices,
            "backends": self.backends,
            "default_backend": self._lib.zs_context_default_backend(self.handle()).decode(),
        }


def devices():
    """What a fresh context discovers (see Context.info()): the topology, the devices found,
    every backend with whether it is usable and why, and the default backend."""
    with Context() as ctx:
        return ctx.info()


_default = None
_default_lock = threading.Lock()


def default_context():
    """The context used where none is given: created on first use, kept for the process."""
    global _default
    with _default_lock:
        if _default is None or _default.closed:
            _default = Context()
        return _default


def _destroy_vector(lib, handle, ctx, memory):
    # ctx and memory (a shared array, or None) are passed only to keep them alive until the
    # vector is gone: the library reads and writes the array's memory until then.
    _lib.destroy(lib.zs_vector_destroy, handle)


def _why_not_shared(array, dtype):
    """Why a vector cannot work in `array`'s memory as it is, or None."""
    if not isinstance(array, np.ndarray):
        return f"data is a {type(array).__name__}, not a NumPy array"
    if array.dtype != dtype:
        return f"data has dtype {array.dtype}, the vector {dtype}"
    if not (array.flags.c_contiguous and array.flags.aligned):
        return "data is not a C-contiguous, aligned array"
    if not array.flags.writeable:
        return "data is read-only, and a vector may be written"
    return None


class Vector(_lib.Owner):
    """A vector resident on one backend, for products and solves without host copies.

    Vector(data, context=None, backend=None, dtype=None, copy=True): data is a length (the vector
    is then zero-filled) or a 1-D array (dtype defaults to the array's when float32/float64).
    copy=True uploads the array: the vector owns its elements. copy=False shares the array's
    memory instead, on a backend whose vectors live in host memory (ref, cpu): every write to the
    vector (fill, upload, out= of a product) lands in the array and every change to the array is
    seen by the vector; the vector keeps the array alive. It needs a writable, C-contiguous 1-D
    NumPy array of exactly the vector's dtype, else ValueError (and UnsupportedError on a device
    backend, whose vectors live in device memory: there a copy is the only way in).
    """

    def __init__(self, data, context=None, backend=None, dtype=None, copy=True):
        ctx = context if context is not None else default_context()
        if isinstance(data, (int, np.integer)) and not isinstance(data, bool):
            n, array = int(data), None
            if n < 0:
                raise ValueError(f"vector length {n} is negative")
            if dtype is None:
                dtype = np.float64
        else:
            array = np.asarray(data)
            if array.ndim != 1:
                raise ValueError(f"a vector needs a 1-D array, not shape {array.shape}")
            if dtype is None:
                dtype = array.dtype if array.dtype in _TYPE_IDS else np.float64
            n = array.shape[0]
        t = type_id(dtype)
        lib = ctx._lib
        self._lib, self._ctx, self._dtype, self._n = lib, ctx, dtype_of(t), n
        self._p = ctypes.c_void_p()
        be = backend if backend is not None else ctx._backend
        be = be.encode() if be else None
        shared = None
        if copy:
            check(
                lib.zs_vector_create(ctypes.byref(self._p), ctx.handle(), be, t, n),
                "zs_vector_create",
            )
        else:
            if array is None:
                why = "copy=False needs an array to share"
            else:
                why = _why_not_shared(data, self._dtype)
            if why:
                raise ValueError(f"Vector(copy=False): {why}")
            shared = array
            check(
                lib.zs_vector_wrap(
                    ctypes.byref(self._p), ctx.handle(), be, t, n, _lib.address(array)
                ),
                "zs_vector_wrap",
            )
        self._shared = shared is not None
        self._finalizer = weakref.finalize(self, _destroy_vector, lib, self._p, ctx, shared)
        ctx._adopt(self)
        if array is None:
            self.fill(0.0)
        elif copy:
            self.upload(array)

    _what = "vector"

    def _closed_message(self):
        return super()._closed_message() + (" (its context was closed)" if self._ctx.closed else "")

    @property
    def size(self):
        return self._n

    @property
    def shape(self):
        return (self._n,)

    @property
    def dtype(self):
        return self._dtype

    @property
    def context(self):
        return self._ctx

    def __len__(self):
        return self._n

    @property
    def shares_memory(self):
        """Whether the vector works in a NumPy array's memory (made with copy=False)."""
        return self._shared

    def __repr__(self):
        state = " (closed)" if self.closed else ""
        shared = " shared" if self._shared else ""
        return f"<zsparse.Vector n={self._n} dtype={self._dtype}{shared}{state}>"

    def upload(self, array):
        """Copy a host array of this vector's length in (converted to its dtype)."""
        a = as_input(array, self._n, self._dtype, "vector data")
        check(self._lib.zs_vector_upload(self.handle(), _lib.address(a)), "zs_vector_upload")

    def to_numpy(self, out=None):
        """Copy the vector to the host: a new array, or into `out` (see Operator.matvec)."""
        y = as_output(out, self._n, self._dtype, "out")
        check(self._lib.zs_vector_download(self.handle(), _lib.address(y)), "zs_vector_download")
        return y

    def fill(self, value):
        check(self._lib.zs_vector_fill(self.handle(), float(value)), "zs_vector_fill")


def as_input(x, n, dtype, what):
    """x as a C-contiguous 1-D array of `dtype` and length n: as it is when it already is one,
    else converted (a copy). Complex, object and other non-real arrays are a TypeError; a wrong
    shape is a ValueError."""
    if type(x) is np.ndarray and x.dtype is dtype and x.flags.c_contiguous and x.shape == (n,):
        return x
    if isinstance(x, Vector):
        raise TypeError(f"{what} is a zsparse.Vector; this call takes a NumPy array")
    try:
        a = np.asarray(x)
    except Exception as e:  # e.g. ragged sequences
        raise TypeError(f"{what} cannot be read as a NumPy array: {e}") from None
    if a.dtype.kind not in "fiub":
        what_kind = "complex" if a.dtype.kind == "c" else f"dtype {a.dtype}"
        raise TypeError(
            f"{what} is {what_kind}; zsparse operators are real (float32/float64 vectors)"
        )
    if a.shape != (n,):
        raise ValueError(f"{what} has shape {a.shape}; expected ({n},)")
    return np.ascontiguousarray(a, dtype=dtype)


def as_output(out, n, dtype, what):
    """A new array, or `out` checked: it is written in place, so it must already be a writable
    C-contiguous 1-D array of exactly `dtype` and length n."""
    if out is None:
        return np.empty(n, dtype)
    if not isinstance(out, np.ndarray):
        raise TypeError(f"{what} must be a NumPy array, not {type(out).__name__}")
    if out.dtype != dtype:
        raise TypeError(f"{what} has dtype {out.dtype}; this result is {dtype}")
    if out.shape != (n,):
        raise ValueError(f"{what} has shape {out.shape}; expected ({n},)")
    if not out.flags.c_contiguous:
        raise ValueError(f"{what} is not C-contiguous; results are written into contiguous arrays")
    if not out.flags.writeable:
        raise ValueError(f"{what} is read-only")
    return out
