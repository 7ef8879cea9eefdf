"""_solve.py — zsparse.solve: the library's CG, BiCG and BiCGSTAB with vectors on the backend."""

import ctypes
import math

import numpy as np

from . import _lib
from ._context import Vector, as_input, default_context
from ._encoded import encode
from ._lib import check
from ._operator import Operator, TransposedOperator

# Residual history entries kept at most (8 MB): SciPy's default maxiter is 10 n.
_HISTORY_CAP = 1_000_000


class SolveInfo(int):
    """SciPy's `info` (0: converged; > 0: not converged, the iterations made; < 0: breakdown)
    with what the solver reports: iterations, residual (||r|| / ||b|| of the recurrence at the
    last iterate), history (an array of ||r_k|| / ||b||, k = 0 .. iterations), stop_reason
    ("converged", "max_iter", or the quantity that broke down), message (the library's text when
    not converged), spmv_count, spmvt_count, precond_count and time_s (the solve on the backend,
    without the host copies)."""

    def __new__(cls, value, **fields):
        obj = super().__new__(cls, value)
        obj.__dict__.update(fields)
        return obj

    @property
    def converged(self):
        return int(self) == 0

    def __repr__(self):
        return (
            f"SolveInfo({int(self)}, iterations={self.iterations}, residual={self.residual:.3e}, "
            f"stop_reason={self.stop_reason!r})"
        )


def _method_id(lib, method):
    if not isinstance(method, str):
        raise TypeError(f"method must be 'bicg', 'bicgstab' or 'cg', not {method!r}")
    out = ctypes.c_int()
    check(lib.zs_solver_method_from_name(method.encode(), ctypes.byref(out)))
    return out.value


def _number(value, name, kind=float):
    try:
        v = kind(value)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a number, not {value!r}") from None
    if kind is float and not math.isfinite(v):
        raise ValueError(f"{name} = {value} is not finite")
    return v


def solve(
    A,
    b,
    method="bicg",
    tol=1e-5,
    maxiter=None,
    precond="jacobi",
    x0=None,
    *,
    rtol=None,
    format=None,
    dtype=None,
    options=None,
    context=None,
    backend=None,
    breakdown_tol=0.0,
):
    """Solve A x = b with the library's native solver; returns (x, info) like SciPy.

    A: a zsparse.Operator (square), or a matrix zsparse.encode accepts (encoded in `format` with
    `dtype`, put on `backend` of `context` with the operator `options`, freed afterwards).
    method: "bicg", "bicgstab" or "cg". tol (or rtol, SciPy's newer name): stop when the
    recurrence residual ||r|| / ||b|| <= tol. maxiter: default 10 n, as SciPy. precond: "jacobi"
    (diag(A)^-1, built once per operator), None, or an Operator on the same backend applied as
    M^-1. x0: the initial guess (default zero). b, x0 and the result have the operator's dtype.
    On ref and cpu nothing is copied to or from a vector: the solver reads b and writes the
    returned x in place (x0, which stays as it was, is copied into x); cuda and hip upload b and
    x0 and download x.

    info is a SolveInfo (an int): 0 converged, > 0 not converged after that many iterations, -1
    a breakdown (x holds the last sound iterate; info.stop_reason names the quantity). Other
    errors raise zsparse.Error subclasses carrying the library's message."""
    lib = _lib.lib()
    if rtol is not None:
        tol = rtol
    tol = _number(tol, "tol")
    breakdown_tol = _number(breakdown_tol, "breakdown_tol")
    mid = _method_id(lib, method)
    if isinstance(A, TransposedOperator):
        raise TypeError("solve needs an Operator; for A^T x = b encode A.T")
    if isinstance(A, Operator):
        if context is not None or backend is not None or options is not None:
            raise ValueError("context, backend and options apply only when A is a matrix")
        return _solve(lib, A, b, mid, tol, maxiter, precond, x0, breakdown_tol)
    ctx = context if context is not None else default_context()
    plan = None
    if format is None or format == "auto":
        # As `zsparse solve`: BiCG runs a pair per iteration, the others products; the encode
        # spread over the iterations allowed.
        n = A.shape[0]
        calls = max(1, 10 * n if maxiter is None else int(maxiter))
        work = {"bicg": f"solve:{calls}", "bicgstab": f"spmv:{2 * calls}"}.get(
            method, f"spmv:{calls}"
        )
        plan = {"backend": backend or ctx.backend, "workload": work}
    with encode(A, "auto" if plan else format, plan, dtype=dtype) as E, Operator(
        E, context=ctx, options=options, backend=backend
    ) as op:
        return _solve(lib, op, b, mid, tol, maxiter, precond, x0, breakdown_tol)


def _solve(lib, op, b, mid, tol, maxiter, precond, x0, breakdown_tol):
    n, cols = op.shape
    if n != cols:
        raise ValueError(f"solve needs a square matrix; A is {n} x {cols}")
    b = as_input(b, n, op.dtype, "b")
    maxiter = 10 * n if maxiter is None else _number(maxiter, "maxiter", int)
    if maxiter < 0:
        raise ValueError(f"maxiter = {maxiter} is negative")
    if isinstance(precond, str):
        if precond != "jacobi":
            raise ValueError(f"precond must be 'jacobi', None or an Operator, not {precond!r}")
        m = op._jacobi()
    elif precond is None:
        m = None
    elif isinstance(precond, Operator):
        m = precond.handle()
    else:
        raise TypeError(f"precond must be 'jacobi', None or an Operator, not {precond!r}")

    history = np.zeros(min(maxiter + 1, _HISTORY_CAP), np.float64)
    o = _lib.SolverOptions()
    lib.zs_solver_options_init(ctypes.byref(o))
    o.method, o.tol, o.max_iter, o.precond = mid, tol, maxiter, m
    o.breakdown_tol = breakdown_tol
    o.history = history.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    o.history_cap = history.shape[0]
    r = _lib.SolverResult()
    ctx = op.context
    x0_given = None if x0 is None else as_input(x0, n, op.dtype, "x0")
    # On a backend whose vectors are host memory (op._wrap) the solver works in the arrays
    # themselves: b as given (unless read-only: a vector may be written, so that b is copied once)
    # and x, the result, a new array that starts as a copy of x0 (the caller's x0 stays as it
    # was). A device backend needs b and x0 uploaded and x downloaded: its memory is its own.
    share = op._wrap
    if share:
        if x0 is None:
            x = np.zeros(n, op.dtype)
        else:  # a converted x0 is already a new array
            x = x0_given.copy() if x0_given is x0 else x0_given
        bvec = Vector(b if b.flags.writeable else b.copy(), ctx, op.backend, copy=False)
        xvec = Vector(x, ctx, op.backend, copy=False)
    else:
        bvec = Vector(b, ctx, op.backend)
        xvec = Vector(n if x0 is None else x0_given, ctx, op.backend, dtype=op.dtype)
    with bvec as bv, xvec as xv:
        o.x0_given = int(x0 is not None)
        s = lib.zs_solve(
            ctx.handle(), op.handle(), bv.handle(), xv.handle(), ctypes.byref(o), ctypes.byref(r)
        )
        message = lib.zs_last_error().decode("utf-8", "replace") if s != _lib.OK else ""
        if s < 0 and s != _lib.ERR_BREAKDOWN:
            raise _lib.error(s, "solve")
        if not share:
            x = xv.to_numpy()
    if s == _lib.OK:
        value = 0
    elif s == _lib.INFO_NOT_CONVERGED:
        value = max(int(r.iterations), 1)
    else:
        value = -1
    info = SolveInfo(
        value,
        iterations=int(r.iterations),
        residual=float(r.rel_residual),
        history=history[: int(r.history_len)].copy(),
        stop_reason=(r.stop_reason or b"").decode(),
        message=message,
        spmv_count=int(r.spmv_count),
        spmvt_count=int(r.spmvt_count),
        precond_count=int(r.precond_count),
        time_s=float(r.time_s),
    )
    return x, info
