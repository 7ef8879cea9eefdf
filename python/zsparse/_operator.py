"""_operator.py — an encoded matrix on a backend: A x, Aᵀ x, BiCG's pair, SciPy's LinearOperator."""

import ctypes
import threading
import weakref

import numpy as np
from scipy.sparse.linalg import LinearOperator

from . import _lib
from ._context import Vector, as_input, as_output, default_context, dtype_of
from ._encoded import Encoded, encode, options_string
from ._lib import check

# Host arrays reach the library in one of two ways. On a host backend (ref, cpu) the operator keeps
# vectors that wrap caller memory (zs_vector_wrap), pointed at each call's arrays (zs_vector_rewrap):
# the product reads x and writes y in place. On a device backend (cuda, hip) it keeps work vectors
# there and copies x in and y out. Either way one vector per role: the input and output of A x
# (x has A's column count, y its row count), and of Aᵀ w; the pair uses all four.
_X, _Y, _W, _Z = range(4)
_WHAT = ("spmv", "spmvt")

_ndarray, _empty = np.ndarray, np.empty
_address = _lib.address
_addressof, _from_buffer = ctypes.addressof, ctypes.c_char.from_buffer


def _destroy_operator(lib, handle, vectors, jacobi, ctx):
    # ctx is passed only to keep the context alive until the operator and its vectors are gone.
    for v in vectors:
        _lib.destroy(lib.zs_vector_destroy, v)
    _lib.destroy(lib.zs_operator_destroy, jacobi)
    _lib.destroy(lib.zs_operator_destroy, handle)


def _overlap(a, a_addr, b, b_addr):
    """Whether two C-contiguous arrays at these addresses share bytes (exact, unlike a NumPy
    bounds check, and cheap: the addresses are at hand)."""
    return a_addr < b_addr + b.nbytes and b_addr < a_addr + a.nbytes and a.size and b.size


class Operator(_lib.Owner):
    """An encoded matrix uploaded to one backend, applied as y = alpha op(A) x + beta y.

    Operator(A, context=None, options=None, backend=None): A is an Encoded (from zsparse.encode
    or zsparse.load) or anything zsparse.encode accepts (then encoded in the default format).
    context: a zsparse.Context (None: the process-wide default context); backend: a backend name
    overriding the context's; options: the backend's "key=value,..." string or a dict (e.g.
    {"transpose": "stored"}). The operator keeps its context and the Encoded alive (the latter
    for the Jacobi preconditioner of zsparse.solve).

    Products take NumPy arrays (converted to the operator's dtype and made contiguous when they
    are not already) and return new arrays, or write into `out`; they also take zsparse.Vector
    objects, which stay on the backend (no host copies)."""

    # NumPy defers `x @ op` to __rmatmul__ instead of treating op as a 0-d object array.
    __array_ufunc__ = None

    def __init__(self, A, context=None, options=None, backend=None):
        ctx = context if context is not None else default_context()
        lib = ctx._lib
        be = backend if backend is not None else ctx._backend
        if be is not None and not isinstance(be, str):
            raise TypeError(f"backend must be a name such as 'cpu', not {be!r}")
        if not isinstance(A, Encoded):  # planned for the backend it will run on
            A = encode(A, "auto", {"backend": be or ctx.backend})
        if options is None:
            # What "auto" chose to run it with, where it planned for this backend.
            choice = A.choice()
            if choice and choice.get("op_options") and choice.get("backend") == (be or ctx.backend):
                options = choice["op_options"]
        opts = options_string(options, "operator options")
        self._p = ctypes.c_void_p()
        check(
            lib.zs_operator_create(
                ctypes.byref(self._p), ctx.handle(), A.handle(), be.encode() if be else None, opts
            ),
            "zs_operator_create",
        )
        # Work vectors on the backend (copies) and vectors over caller memory, made on first use.
        self._work = [ctypes.c_void_p() for _ in range(4)]
        self._pairs = ((self._work[_X], self._work[_Y]), (self._work[_W], self._work[_Z]))
        self._wrapped = [ctypes.c_void_p() for _ in range(4)]
        self._wpairs = (
            (self._wrapped[_X], self._wrapped[_Y]), (self._wrapped[_W], self._wrapped[_Z])
        )
        self._jacobi_p = ctypes.c_void_p()  # diag(A)^-1 for zsparse.solve, made on first use
        self._finalizer = weakref.finalize(
            self, _destroy_operator, lib, self._p, self._work + self._wrapped, self._jacobi_p, ctx
        )
        self._lib, self._ctx, self._encoded = lib, ctx, A
        self._rows = int(lib.zs_operator_rows(self._p))
        self._cols = int(lib.zs_operator_cols(self._p))
        self._dtype = dtype_of(lib.zs_operator_type(self._p))
        self._type = int(lib.zs_operator_type(self._p))
        self._backend = lib.zs_operator_backend(self._p).decode()
        self._format = A.format
        self._nnz = A.nnz
        self._xshape, self._yshape = (self._cols,), (self._rows,)
        self._in_shape = (self._xshape, self._yshape)  # x of A x, of Aᵀ x
        self._lock = threading.Lock()
        self._out_len = (self._rows, self._cols)
        # Bound once: a product through the Python layer is a handful of attribute reads.
        self._upload, self._download = lib.zs_vector_upload, lib.zs_vector_download
        self._spmv, self._spmv_pair, self._rewrap = lib.zs_spmv, lib.zs_spmv_pair, lib.zs_vector_rewrap
        # Whether the backend's vectors are host memory: an empty wrap is refused otherwise.
        probe = ctypes.c_void_p()
        s = lib.zs_vector_wrap(ctypes.byref(probe), ctx.handle(), self._backend.encode(),
                               self._type, 0, None)
        lib.zs_vector_destroy(ctypes.byref(probe))
        self._wrap = s == 0
        ctx._adopt(self)

    _what = "operator"

    def _closed_message(self):
        return super()._closed_message() + (" (its context was closed)" if self._ctx.closed else "")

    def close(self):
        """Free the operator and its work vectors on the backend (also done on collection)."""
        with self._lock:
            self._finalizer()

    # -- what it is -------------------------------------------------------------------------
    @property
    def shape(self):
        return (self._rows, self._cols)

    @property
    def dtype(self):
        return self._dtype

    @property
    def backend(self):
        return self._backend

    @property
    def format(self):
        return self._format

    @property
    def nnz(self):
        return self._nnz

    @property
    def context(self):
        return self._ctx

    @property
    def encoded(self):
        return self._encoded

    @property
    def T(self):
        """Aᵀ as an operator view sharing this operator (no copy)."""
        return TransposedOperator(self)

    def __repr__(self):
        state = " (closed)" if self.closed else ""
        return (
            f"<zsparse.Operator {self._format} {self._rows}x{self._cols} dtype={self._dtype} "
            f"backend={self._backend}{state}>"
        )

    # -- products ---------------------------------------------------------------------------
    def _vec(self, v, n):
        """Create a work vector of length n in handle v unless it exists (the lock is held)."""
        if v.value is None:
            check(
                self._lib.zs_vector_create(
                    ctypes.byref(v), self._ctx.handle(), self._backend.encode(), self._type, n
                ),
                "zs_vector_create",
            )
        return v

    def _wrap_at(self, v, n, addr):
        """Point handle v (a vector over caller memory) at addr, making it on first use; a
        status, nonzero for memory the library cannot wrap (misaligned): copy instead."""
        if v.value is not None:
            return self._rewrap(v, addr)
        self.handle()  # ClosedError once closed: the vectors are gone with the operator
        return self._lib.zs_vector_wrap(
            ctypes.byref(v), self._ctx.handle(), self._backend.encode(), self._type, n, addr
        )

    def _product(self, which, x, out, alpha, beta):
        n_in, n_out = self._out_len[1 - which], self._out_len[which]
        if isinstance(x, Vector) or isinstance(out, Vector):
            return self._product_resident(which, x, out, alpha, beta, n_in, n_out)
        xin = as_input(x, n_in, self._dtype, "x")
        if out is None:
            if beta != 0:
                raise ValueError("beta != 0 needs out= (the y that beta scales)")
            y = _empty(n_out, self._dtype)
        else:
            y = as_output(out, n_out, self._dtype, "out")
        xaddr, yaddr = _address(xin), _address(y)
        if out is not None and _overlap(xin, xaddr, y, yaddr):
            xin = xin.copy()  # the product reads x while it writes y
            xaddr = _address(xin)
        s = self._run(which, xaddr, yaddr, alpha, beta)
        if s:
            raise _lib.error(s, _WHAT[which])
        return y

    def _fast(self, which, x):
        """op(A) x for an x already of the right type, dtype, length and layout: the common case
        inlined, since each Python step here costs about as much as a library call."""
        y = _empty(self._out_len[which], self._dtype)
        try:
            xaddr = _addressof(_from_buffer(x))
        except (TypeError, ValueError):  # read-only, or empty
            xaddr = x.ctypes.data
        yaddr = _addressof(_from_buffer(y)) if y.shape[0] else y.ctypes.data
        s = self._run(which, xaddr, yaddr, 1.0, 0.0)
        if s:
            raise _lib.error(s, _WHAT[which])
        return y

    def _run(self, which, xaddr, yaddr, alpha, beta):
        """y = alpha op(A) x + beta y on checked host arrays at xaddr and yaddr, which do not
        overlap: in place on a host backend, else through the work vectors (copy x in, and y
        when beta != 0; the product; copy y out). Returns the library's status. The hot path:
        every line here counts towards the Python layer's cost per product."""
        lock = self._lock
        lock.acquire()
        try:
            if self._wrap:
                xv, yv = self._wpairs[which]
                if xv.value is not None and yv.value is not None:
                    s = self._rewrap(xv, xaddr) or self._rewrap(yv, yaddr)
                else:
                    n_in, n_out = self._out_len[1 - which], self._out_len[which]
                    s = self._wrap_at(xv, n_in, xaddr) or self._wrap_at(yv, n_out, yaddr)
                if s == 0:
                    return self._spmv(self._p, which, alpha, xv, beta, yv)
            xv, yv = self._pairs[which]
            if xv.value is None or yv.value is None:
                self._prepare(which)
            s = self._upload(xv, xaddr)
            if s == 0 and beta != 0:
                s = self._upload(yv, yaddr)
            if s == 0:
                s = self._spmv(self._p, which, alpha, xv, beta, yv)
            if s == 0:
                s = self._download(yv, yaddr)
            return s
        finally:
            lock.release()

    def _prepare(self, which):
        """Check the operator is open and create the work vectors of op(A) (the lock is held)."""
        self.handle()
        xv, yv = self._pairs[which]
        self._vec(xv, self._cols if which == 0 else self._rows)
        self._vec(yv, self._rows if which == 0 else self._cols)

    def _product_resident(self, which, x, out, alpha, beta, n_in, n_out):
        if not isinstance(x, Vector):
            raise TypeError("x must be a zsparse.Vector when out is one")
        if out is None:
            out = Vector(n_out, context=self._ctx, backend=self._backend, dtype=self._dtype)
        elif not isinstance(out, Vector):
            raise TypeError("out must be a zsparse.Vector when x is one")
        for v, n, name in ((x, n_in, "x"), (out, n_out, "out")):
            if v.size != n or v.dtype != self._dtype:
                raise ValueError(
                    f"{name} is a {v.dtype} vector of {v.size}; this product needs {self._dtype} "
                    f"of {n}"
                )
        check(
            self._spmv(self.handle(), which, alpha, x.handle(), beta, out.handle()),
            "spmv" if which == _lib.OP_N else "spmvt",
        )
        return out

    def matvec(self, x, out=None, alpha=1.0, beta=0.0):
        """y = alpha A x + beta y: a new array, or `out` (overwritten; read first when beta != 0,
        so it must then hold y). out must be a writable C-contiguous array of the operator's
        dtype; x is converted when it is not one."""
        if (
            out is None
            and type(x) is _ndarray
            and x.dtype is self._dtype
            and x.shape == self._xshape
            and x.flags.c_contiguous
            and alpha == 1
            and beta == 0
        ):
            return self._fast(0, x)
        return self._product(_lib.OP_N, x, out, alpha, beta)

    def rmatvec(self, x, out=None, alpha=1.0, beta=0.0):
        """y = alpha Aᵀ x + beta y (see matvec)."""
        if (
            out is None
            and type(x) is _ndarray
            and x.dtype is self._dtype
            and x.shape == self._yshape
            and x.flags.c_contiguous
            and alpha == 1
            and beta == 0
        ):
            return self._fast(1, x)
        return self._product(_lib.OP_T, x, out, alpha, beta)

    def _columns(self, which, X):
        n_in, n_out = (self._cols, self._rows) if which == _lib.OP_N else (self._rows, self._cols)
        X = np.asarray(X)
        if X.ndim != 2 or X.shape[0] != n_in:
            raise ValueError(f"X has shape {X.shape}; expected ({n_in}, k)")
        # Columns as contiguous rows of Xᵀ, results as rows of Yᵀ: one conversion, no copies per
        # column.
        Xt = np.ascontiguousarray(X.T, dtype=self._dtype) if X.dtype.kind in "fiub" else None
        if Xt is None:
            raise TypeError(f"X is {X.dtype}; zsparse operators are real (float32/float64)")
        Yt = np.empty((X.shape[1], n_out), self._dtype)
        for j in range(X.shape[1]):
            self._product(which, Xt[j], Yt[j], 1.0, 0.0)
        return Yt.T

    def matmat(self, X):
        """A X for a 2-D X, column by column."""
        return self._columns(_lib.OP_N, X)

    def rmatmat(self, X):
        """Aᵀ X for a 2-D X, column by column."""
        return self._columns(_lib.OP_T, X)

    def __matmul__(self, x):
        return self._matmul(0, x)

    def _matmul(self, which, x):
        """op(A) @ x: A x (which 0) or Aᵀ x (which 1), columns for a 2-D x."""
        if (
            type(x) is _ndarray
            and x.dtype is self._dtype
            and x.shape == self._in_shape[which]
            and x.flags.c_contiguous
        ):
            return self._fast(which, x)
        if isinstance(x, Vector):
            return self._product(which, x, None, 1.0, 0.0)
        a = x if isinstance(x, np.ndarray) else np.asarray(x)
        if a.ndim == 2:
            return self._columns(which, a)
        return self._product(which, a, None, 1.0, 0.0)

    def __rmatmul__(self, x):
        a = np.asarray(x)
        if a.ndim != 1:
            raise ValueError(f"x @ op takes a 1-D x, not shape {a.shape}")
        return self.rmatvec(a)

    def pair(self, x, w, alpha=1.0, beta=0.0, alpha_t=1.0, beta_t=0.0, y=None, z=None):
        """BiCG's two products in one call: (y, z) = (alpha A x + beta y, alpha_t Aᵀ w + beta_t z),
        one pass over the matrix where the backend fuses them (docs/backends.md)."""
        rows, cols, dt = self._rows, self._cols, self._dtype
        if (
            y is None
            and z is None
            and type(x) is _ndarray
            and type(w) is _ndarray
            and x.dtype is dt
            and w.dtype is dt
            and x.shape == self._xshape
            and w.shape == self._yshape
            and x.flags.c_contiguous
            and w.flags.c_contiguous
            and beta == 0
            and beta_t == 0
        ):  # arrays as they should be, new outputs: nothing to convert or to keep apart
            yout, zout = _empty(rows, dt), _empty(cols, dt)
            a = (_address(x), _address(w), _address(yout), _address(zout))
            s = self._run_pair(a[0], a[1], a[2], a[3], alpha, 0.0, alpha_t, 0.0)
            if s:
                raise _lib.error(s, "spmv_pair")
            return yout, zout
        if (
            isinstance(x, Vector) or isinstance(w, Vector) or isinstance(y, Vector)
            or isinstance(z, Vector)
        ):
            return self._pair_resident(x, w, alpha, beta, alpha_t, beta_t, y, z)
        xin, win = as_input(x, cols, dt, "x"), as_input(w, rows, dt, "w")
        yout = _empty(rows, dt) if y is None else as_output(y, rows, dt, "y")
        zout = _empty(cols, dt) if z is None else as_output(z, cols, dt, "z")
        if (beta != 0 and y is None) or (beta_t != 0 and z is None):
            raise ValueError("beta != 0 needs y= and beta_t != 0 needs z= (what they scale)")
        a = [_address(xin), _address(win), _address(yout), _address(zout)]
        if y is not None or z is not None:
            if _overlap(yout, a[2], zout, a[3]):
                raise ValueError("y and z overlap; the pair writes both")
            # The pair reads x and w while it writes y and z.
            if _overlap(xin, a[0], yout, a[2]) or _overlap(xin, a[0], zout, a[3]):
                xin = xin.copy()
                a[0] = _address(xin)
            if _overlap(win, a[1], yout, a[2]) or _overlap(win, a[1], zout, a[3]):
                win = win.copy()
                a[1] = _address(win)
        s = self._run_pair(a[0], a[1], a[2], a[3], alpha, beta, alpha_t, beta_t)
        if s:
            raise _lib.error(s, "spmv_pair")
        return yout, zout

    def _run_pair(self, xa, wa, ya, za, alpha, beta, alpha_t, beta_t):
        """The pair on checked host arrays at xa, wa, ya, za (see _run); a status."""
        rows, cols = self._rows, self._cols
        with self._lock:
            if self._wrap:
                xv, yv, wv, zv = self._wrapped
                if xv.value and yv.value and wv.value and zv.value:
                    rewrap = self._rewrap
                    s = rewrap(xv, xa) or rewrap(yv, ya) or rewrap(wv, wa) or rewrap(zv, za)
                else:
                    s = (
                        self._wrap_at(xv, cols, xa) or self._wrap_at(yv, rows, ya)
                        or self._wrap_at(wv, rows, wa) or self._wrap_at(zv, cols, za)
                    )
                if s == 0:
                    return self._spmv_pair(self._p, alpha, xv, beta, yv, alpha_t, wv, beta_t, zv)
            p = self.handle()
            xv, yv, wv, zv = self._work
            for v, n in ((xv, cols), (yv, rows), (wv, rows), (zv, cols)):
                self._vec(v, n)
            s = self._upload(xv, xa) or self._upload(wv, wa)
            if s == 0 and beta != 0:
                s = self._upload(yv, ya)
            if s == 0 and beta_t != 0:
                s = self._upload(zv, za)
            if s == 0:
                s = self._spmv_pair(p, alpha, xv, beta, yv, alpha_t, wv, beta_t, zv)
            if s == 0:
                s = self._download(yv, ya) or self._download(zv, za)
            return s

    def _pair_resident(self, x, w, alpha, beta, alpha_t, beta_t, y, z):
        if not all(isinstance(v, Vector) for v in (x, w)):
            raise TypeError("x and w must both be zsparse.Vector objects (or both arrays)")
        def new(n):
            return Vector(n, context=self._ctx, backend=self._backend, dtype=self._dtype)

        y = new(self._rows) if y is None else y
        z = new(self._cols) if z is None else z
        if not all(isinstance(v, Vector) for v in (y, z)):
            raise TypeError("y and z must be zsparse.Vector objects when x and w are")
        check(
            self._lib.zs_spmv_pair(
                self.handle(), alpha, x.handle(), beta, y.handle(), alpha_t, w.handle(), beta_t,
                z.handle(),
            ),
            "spmv_pair",
        )
        return y, z

    def sync(self):
        """Wait for the backend to finish queued work (for timing)."""
        check(self._lib.zs_operator_sync(self.handle()), "zs_operator_sync")

    def aslinearoperator(self):
        """A scipy.sparse.linalg.LinearOperator (matvec, rmatvec, matmat, adjoint) running on
        this operator, for SciPy's iterative solvers; it keeps the operator alive."""
        return ZsLinearOperator(self)

    # -- for zsparse.solve ------------------------------------------------------------------
    def _jacobi(self):
        """diag(A)^-1 as an operator on this backend (built once, freed with the operator)."""
        with self._lock:
            j = self._jacobi_p
            if j.value is None:
                p = self.handle()
                m = ctypes.c_void_p()
                check(
                    self._lib.zs_decode(ctypes.byref(m), self._encoded.handle()),
                    "Jacobi: decoding the operator's matrix",
                )
                try:
                    check(
                        self._lib.zs_solver_jacobi(
                            ctypes.byref(j), self._ctx.handle(), m, self._lib.zs_operator_backend(p)
                        ),
                        "Jacobi preconditioner",
                    )
                finally:
                    self._lib.zs_matrix_destroy(ctypes.byref(m))
            return j


class TransposedOperator:
    """Aᵀ of an Operator: its products are the operator's transposed ones (op.T @ x = Aᵀ x)."""

    __array_ufunc__ = None
    __slots__ = ("_op",)

    def __init__(self, op):
        self._op = op

    @property
    def T(self):
        return self._op

    @property
    def shape(self):
        return self._op.shape[::-1]

    @property
    def dtype(self):
        return self._op.dtype

    @property
    def backend(self):
        return self._op.backend

    @property
    def context(self):
        return self._op.context

    def __repr__(self):
        return f"<transpose of {self._op!r}>"

    def matvec(self, x, out=None, alpha=1.0, beta=0.0):
        return self._op.rmatvec(x, out, alpha, beta)

    def rmatvec(self, x, out=None, alpha=1.0, beta=0.0):
        return self._op.matvec(x, out, alpha, beta)

    def matmat(self, X):
        return self._op.rmatmat(X)

    def rmatmat(self, X):
        return self._op.matmat(X)

    def __matmul__(self, x):
        return self._op._matmul(1, x)

    def __rmatmul__(self, x):
        return self._op.__matmul__(x) if np.ndim(x) == 1 else NotImplemented

    def pair(self, x, w, alpha=1.0, beta=0.0, alpha_t=1.0, beta_t=0.0, y=None, z=None):
        """(Aᵀ x, A w) through the operator's fused pair."""
        z2, y2 = self._op.pair(w, x, alpha_t, beta_t, alpha, beta, y=z, z=y)
        return y2, z2

    def aslinearoperator(self):
        return _TransposedLinearOperator(self._op)


class ZsLinearOperator(LinearOperator):
    """scipy.sparse.linalg.LinearOperator over a zsparse Operator (real: adjoint = transpose)."""

    def __init__(self, op):
        super().__init__(dtype=op.dtype, shape=op.shape)
        self.operator = op

    def _matvec(self, x):
        return self.operator.matvec(x.reshape(-1))

    def _rmatvec(self, x):
        return self.operator.rmatvec(x.reshape(-1))

    def _matmat(self, X):
        return self.operator.matmat(X)

    def _rmatmat(self, X):
        return self.operator.rmatmat(X)

    def _adjoint(self):
        return _TransposedLinearOperator(self.operator)

    _transpose = _adjoint


class _TransposedLinearOperator(LinearOperator):
    def __init__(self, op):
        super().__init__(dtype=op.dtype, shape=op.shape[::-1])
        self.operator = op

    def _matvec(self, x):
        return self.operator.rmatvec(x.reshape(-1))

    def _rmatvec(self, x):
        return self.operator.matvec(x.reshape(-1))

    def _matmat(self, X):
        return self.operator.rmatmat(X)

    def _rmatmat(self, X):
        return self.operator.matmat(X)

    def _adjoint(self):
        return ZsLinearOperator(self.operator)

    _transpose = _adjoint
