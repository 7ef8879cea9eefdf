"""_encoded.py — SciPy matrices in, encoded matrices (and .zsm files) out, and back."""

import ctypes
import math
import os
import weakref

import numpy as np
import scipy.sparse as sp

from . import _lib
from ._context import _TYPE_IDS, dtype_of, type_id
from ._lib import check

_INT32_MAX = 2**31 - 1


def options_string(options, what="options"):
    """None, a "key=value,..." string, or a dict {key: value} as the library's option string.
    Values must be str, int, or finite floats; NaN and infinities are refused here."""
    if options is None:
        return None
    if isinstance(options, str):
        return options.encode()
    if not isinstance(options, dict):
        raise TypeError(f"{what} must be a 'key=value,...' string or a dict, not {options!r}")
    parts = []
    for key, value in options.items():
        if not isinstance(key, str) or not key or any(c in key for c in ",="):
            raise ValueError(f"{what}: bad key {key!r}")
        if isinstance(value, bool):
            value = int(value)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise ValueError(f"{what}: {key}={value} is not finite")
            if value.is_integer():
                value = int(value)
        if not isinstance(value, (str, int, float, np.integer, np.floating)):
            raise TypeError(f"{what}: {key} has a value of type {type(value).__name__}")
        text = str(value)
        if any(c in text for c in ","):
            raise ValueError(f"{what}: {key}={text!r} contains ','")
        parts.append(f"{key}={text}")
    return ",".join(parts).encode()


def format_id(name):
    """The zs_format id of a format name (what zs_format_from_name accepts)."""
    if not isinstance(name, str):
        raise TypeError(f"format must be a name such as 'csr', not {name!r}")
    lib = _lib.lib()
    out = ctypes.c_int()
    check(lib.zs_format_from_name(name.encode(), ctypes.byref(out)))
    return out.value


def _format_name(fid):
    name = _lib.lib().zs_format_name(fid)
    return name.decode() if name else f"format {fid}"


_formats = None


def formats():
    """Names of the formats this build of the library can encode sparse matrices in.

    Every name zs_format_name knows is tried on a 1 x 1 matrix; the ones the library reports as
    not built in (or, like "vans", not for sparse matrices) are left out."""
    global _formats
    if _formats is None:
        lib = _lib.lib()
        names, fid = [], 1
        one = sp.csr_matrix(np.ones((1, 1)))
        while lib.zs_format_name(fid):
            name = lib.zs_format_name(fid).decode()
            try:
                encode(one, name).close()
                names.append(name)
            except _lib.UnsupportedError:
                pass
            fid += 1
        _formats = names
    return list(_formats)


def _value_dtype(A, dtype):
    if dtype is not None:
        return dtype_of(type_id(dtype))
    if A.dtype in _TYPE_IDS:
        return A.dtype
    if A.dtype.kind in "iub" or A.dtype == np.float16:
        return np.dtype(np.float64)
    raise TypeError(
        f"matrix dtype {A.dtype} is not supported; zsparse stores real float32/float64 values"
    )


def csr_parts(A, dtype=None):
    """(rows, cols, indptr int64, indices int32, data, dtype) of A, a scipy.sparse matrix or
    array, or a dense 2-D array. CSR input is used without converting it; arrays are copied only
    where their index or value type differs from what the library reads."""
    if sp.issparse(A):
        csr = A if A.format == "csr" else A.tocsr()
    elif isinstance(A, np.ndarray) or hasattr(A, "__array__"):
        dense = np.asarray(A)
        if dense.ndim != 2:
            raise ValueError(f"a matrix needs 2 dimensions, not shape {dense.shape}")
        csr = sp.csr_matrix(dense)
    else:
        raise TypeError(
            f"expected a scipy.sparse matrix or array (or a dense 2-D array), "
            f"not {type(A).__name__}"
        )
    if len(csr.shape) != 2:
        raise ValueError(f"a matrix needs 2 dimensions, not shape {csr.shape}")
    rows, cols = (int(n) for n in csr.shape)
    vdt = _value_dtype(csr, dtype)
    indptr = np.ascontiguousarray(csr.indptr, dtype=np.int64)
    indices, data = csr.indices, csr.data
    # The library reads indptr[rows] entries of indices and data: check the lengths here, where
    # a malformed SciPy object would otherwise make it read past their ends.
    if indptr.shape != (rows + 1,):
        raise ValueError(
            f"CSR indptr has {indptr.shape[0]} entries; a {rows}-row matrix needs {rows + 1}"
        )
    nnz = int(indptr[-1])
    if nnz > indices.shape[0] or nnz > data.shape[0]:
        raise ValueError(
            f"CSR indptr[-1] = {nnz} but indices has {indices.shape[0]} and data "
            f"{data.shape[0]} entries"
        )
    if indices.dtype != np.int32:
        if nnz and (indices[:nnz].min() < 0 or indices[:nnz].max() > _INT32_MAX):
            raise ValueError(
                f"column indices span {indices[:nnz].min()} .. {indices[:nnz].max()}; "
                f"zsparse needs 0 .. {_INT32_MAX}"
            )
        indices = indices.astype(np.int32)
    indices = np.ascontiguousarray(indices)
    if data.dtype.kind == "c":
        raise TypeError("complex matrices are not supported; zsparse stores real values")
    data = np.ascontiguousarray(data, dtype=vdt)
    return rows, cols, indptr, indices, data, vdt


def matrix_from(A, dtype=None, flags=0):
    """A new zs_matrix (c_void_p) from A; the caller destroys it."""
    rows, cols, indptr, indices, data, vdt = csr_parts(A, dtype)
    lib = _lib.lib()
    m = ctypes.c_void_p()
    check(
        lib.zs_matrix_from_csr(
            ctypes.byref(m),
            rows,
            cols,
            indptr.ctypes.data,
            indices.ctypes.data if indices.size else None,
            data.ctypes.data if data.size else None,
            _TYPE_IDS[vdt],
            flags,
        ),
        "zs_matrix_from_csr",
    )
    return m


def matrix_to_scipy(m):
    """Copy a zs_matrix's CSR arrays into a scipy.sparse.csr_matrix."""
    lib = _lib.lib()
    rows, cols, nnz = lib.zs_matrix_rows(m), lib.zs_matrix_cols(m), lib.zs_matrix_nnz(m)
    dt = dtype_of(lib.zs_matrix_type(m))
    rp, ci, va = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
    lib.zs_matrix_csr(m, ctypes.byref(rp), ctypes.byref(ci), ctypes.byref(va))

    def copy(ptr, n, t):
        if n == 0:
            return np.zeros(0, t)
        buf = (ctypes.c_char * (n * np.dtype(t).itemsize)).from_address(ptr.value)
        return np.frombuffer(buf, dtype=t).copy()

    indptr = copy(rp, rows + 1, np.int64)
    indices = copy(ci, nnz, np.int32)
    data = copy(va, nnz, dt)
    return sp.csr_matrix((data, indices, indptr), shape=(rows, cols))


def generate(spec, dtype=np.float64):
    """A matrix from the library's generators (docs/generators.md), e.g.
    "stencil2d:n=256,points=5" or "erdos_renyi:n=10000,per_row=8,seed=3", as a
    scipy.sparse.csr_matrix; the same spec and dtype give the same matrix bit for bit."""
    if not isinstance(spec, str):
        raise TypeError(f"spec must be a string such as 'stencil2d:n=64', not {spec!r}")
    lib, m = _lib.lib(), ctypes.c_void_p()
    check(lib.zs_matrix_generate(ctypes.byref(m), spec.encode(), type_id(dtype), 0), "generate")
    try:
        return matrix_to_scipy(m)
    finally:
        lib.zs_matrix_destroy(ctypes.byref(m))


def _destroy_encoded(lib, handle):
    _lib.destroy(lib.zs_encoded_destroy, handle)


class Encoded(_lib.Owner):
    """A matrix encoded in one format: named typed arrays and parameters, held on the host.

    Made by zsparse.encode() or zsparse.load(); freed by close(), a `with` block, or garbage
    collection. Operators copy it when they are created."""

    def __init__(self, handle):
        lib = _lib.lib()
        self._lib, self._p = lib, handle
        self._finalizer = weakref.finalize(self, _destroy_encoded, lib, handle)

    _what = "encoded matrix"

    @property
    def format(self):
        return _format_name(self._lib.zs_encoded_format(self.handle()))

    @property
    def dtype(self):
        return dtype_of(self._lib.zs_encoded_type(self.handle()))

    @property
    def shape(self):
        p = self.handle()
        return (int(self._lib.zs_encoded_rows(p)), int(self._lib.zs_encoded_cols(p)))

    @property
    def nnz(self):
        return int(self._lib.zs_encoded_nnz(self.handle()))

    @property
    def note(self):
        """What chose the format when "auto" did: "format=F options=O op_options=P backend=B
        device=D workload=W reason=..." (kept in .zsm files); "" otherwise."""
        return self._lib.zs_encoded_note(self.handle()).decode("utf-8", "replace")

    @property
    def options(self):
        """The encoder options it was encoded with, as given ("" when none): kept in .zsm files,
        and used for Aᵀ by an Operator with transpose=stored."""
        return self._lib.zs_encoded_options(self.handle()).decode("utf-8", "replace")

    def choice(self):
        """The note as a dict (format, options, op_options, backend, device, workload, reason),
        or None when the format was not chosen by "auto"."""
        note = self.note
        if not note:
            return None
        head, _, reason = note.partition(" reason=")
        out = dict(item.partition("=")[::2] for item in head.split(" "))
        out["reason"] = reason
        return out

    @property
    def nbytes(self):
        """Bytes of all arrays together (what a kernel reads, not counting x and y)."""
        return int(self._lib.zs_encoded_bytes(self.handle()))

    def __repr__(self):
        if self.closed:
            return "<zsparse.Encoded (closed)>"
        r, c = self.shape
        return (
            f"<zsparse.Encoded {self.format} {r}x{c} nnz={self.nnz} dtype={self.dtype} "
            f"nbytes={self.nbytes}>"
        )

    def params(self):
        """{name: value} of the format's integer parameters."""
        p, out = self.handle(), {}
        for i in range(self._lib.zs_encoded_param_count(p)):
            name, value = ctypes.c_char_p(), ctypes.c_int64()
            check(self._lib.zs_encoded_param_info(p, i, ctypes.byref(name), ctypes.byref(value)))
            out[name.value.decode()] = int(value.value)
        return out

    def arrays(self):
        """[{name, elem_size, count, bytes}] of the encoded arrays."""
        p, out = self.handle(), []
        for i in range(self._lib.zs_encoded_array_count(p)):
            name, es, count = ctypes.c_char_p(), ctypes.c_size_t(), ctypes.c_uint64()
            check(
                self._lib.zs_encoded_array_info(
                    p, i, ctypes.byref(name), ctypes.byref(es), ctypes.byref(count)
                )
            )
            out.append(
                {
                    "name": name.value.decode(),
                    "elem_size": int(es.value),
                    "count": int(count.value),
                    "bytes": int(es.value) * int(count.value),
                }
            )
        return out

    def stats(self):
        """The format's own figures (zs_encoded_stats), e.g. dtANS's stream bytes."""
        figures = {}

        def add(_ctx, name, value):
            figures[name.decode()] = value

        check(self._lib.zs_encoded_stats(self.handle(), _lib.STAT_FN(add), None))
        return figures

    def info(self):
        """What `zsparse info --json` shows for a .zsm file, as a dict (without the file's name
        and kind): rows, cols, nnz, row lengths, symmetry, distinct values, entropies, type,
        format, the encoder options (None without any), params, arrays, bytes and bytes per
        nonzero, CSR's bytes, the format's figures."""
        A = self.to_scipy()
        out = structure_info(A)
        out["type"] = "f32" if self.dtype == np.float32 else "f64"
        out["format"] = self.format
        out["options"] = self.options or None
        out["params"] = self.params()
        out["arrays"] = self.arrays()
        nnz, nbytes = self.nnz, self.nbytes
        if self.format == "csr":
            csr_bytes = nbytes
        else:
            with encode(A, "csr", dtype=self.dtype) as C:
                csr_bytes = C.nbytes
        out["bytes"] = nbytes
        out["bytes_per_nnz"] = nbytes / nnz if nnz else 0.0
        out["csr_bytes"] = csr_bytes
        out["csr_bytes_per_nnz"] = csr_bytes / nnz if nnz else 0.0
        out["bytes_vs_csr"] = nbytes / csr_bytes if csr_bytes else 0.0
        out["stats"] = self.stats()
        return out

    def save(self, path):
        """Write a .zsm container (atomically: a failed save leaves no half file)."""
        check(self._lib.zs_encoded_save(self.handle(), os.fsencode(path)), "save")

    def decode(self):
        """Alias of to_scipy()."""
        return self.to_scipy()

    def to_scipy(self):
        """Decode (the reference decoder, bit for bit) to a scipy.sparse.csr_matrix."""
        lib, m = self._lib, ctypes.c_void_p()
        check(lib.zs_decode(ctypes.byref(m), self.handle()), "zs_decode")
        try:
            return matrix_to_scipy(m)
        finally:
            lib.zs_matrix_destroy(ctypes.byref(m))


def _entropy_bits(values):
    if values.size == 0:
        return 0.0
    _, counts = np.unique(values, return_counts=True)
    p = counts / values.size
    return float(-(p * np.log2(p)).sum())


def structure_info(A):
    """Row lengths, symmetry, distinct values and entropies of a canonical CSR matrix, with the
    keys and meaning of `zsparse info --json`."""
    rows, cols = A.shape
    lengths = np.diff(A.indptr)
    nnz = int(A.indptr[-1])
    out = {
        "rows": int(rows),
        "cols": int(cols),
        "nnz": nnz,
        "nnz_per_row_min": int(lengths.min()) if rows else 0,
        "nnz_per_row_mean": nnz / rows if rows else 0.0,
        "nnz_per_row_max": int(lengths.max()) if rows else 0,
        "empty_rows": int((lengths == 0).sum()),
    }
    if rows == cols:
        T = A.T.tocsr()
        T.sort_indices()
        structural = np.array_equal(T.indptr, A.indptr) and np.array_equal(T.indices, A.indices)
        numerical = structural and bool(np.all(T.data == A.data))
        skew = structural and bool(np.all(T.data == -A.data))
        out["symmetric_structural"] = structural
        out["symmetric_numerical"] = numerical
        out["skew_symmetric_numerical"] = skew
        if numerical:
            computed = "symmetric"
        elif skew and nnz:
            computed = "skew-symmetric"
        else:
            computed = "structurally-symmetric" if structural else "general"
    else:
        out["symmetric_structural"] = None
        out["symmetric_numerical"] = None
        out["skew_symmetric_numerical"] = None
        computed = "not-square"
    out["symmetry_computed"] = computed
    # Column deltas as CSR-dtANS codes them: a row's first column relative to the row index, then
    # the difference to the previous column.
    cols_ = A.indices[:nnz].astype(np.int64)
    delta = cols_.copy()
    delta[1:] -= cols_[:-1]
    nonempty = np.flatnonzero(lengths)
    starts = A.indptr[:-1][nonempty]
    delta[starts] = cols_[starts] - nonempty
    values = A.data[:nnz].astype(np.float64)
    out["distinct_values"] = int(np.unique(values).size)
    out["entropy_col_delta_bits"] = _entropy_bits(delta)
    out["entropy_value_bits"] = _entropy_bits(values)
    return out


def encode(A, format="auto", options=None, dtype=None):
    """Encode A (a scipy.sparse matrix or array, or a dense 2-D array) in `format`.

    format: "auto" (the default: the library chooses the format and its options for a backend
    and workload, docs/auto.md; Encoded.choice() says what and why) or a format name ("csr",
    "coo", "csb", "gcsb", "cci", "dtans"; see zsparse.formats()). options: the encoder's
    "key=value,..." string or a dict (docs/formats/); for "auto", the planner's (backend=,
    workload=, device=, ...: without backend= it plans for $ZS_BACKEND, else cpu). dtype: float32
    or float64; None keeps A's float32/float64 type (integer and boolean matrices become
    float64). A is converted to canonical CSR on the way (sorted, duplicates summed) and is not
    modified."""
    if format is None:
        format = "auto"
    fid = format_id(format)
    opts = options_string(options, "encoder options")
    lib = _lib.lib()
    m = matrix_from(A, dtype)
    e = ctypes.c_void_p()
    try:
        check(lib.zs_encode(ctypes.byref(e), m, fid, opts), f"encode as {format}")
    finally:
        lib.zs_matrix_destroy(ctypes.byref(m))
    return Encoded(e)


def load(path):
    """Load a .zsm container (validated: header, bounds, checksums, the format's own checks)."""
    lib = _lib.lib()
    e = ctypes.c_void_p()
    check(lib.zs_encoded_load(ctypes.byref(e), os.fsencode(path)), "load")
    return Encoded(e)
