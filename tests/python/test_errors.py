"""test_errors.py — bad inputs raise clear exceptions (carrying the library's message), objects
free their handles deterministically and on collection, and nothing crashes the interpreter."""

import gc
import os
import subprocess
import sys
import weakref

import numpy as np
import pytest
import scipy.sparse as sp

import zsparse
from conftest import GENERATED


@pytest.fixture
def op(context):
    with zsparse.Operator(zsparse.encode(GENERATED["random_300x200"], "csr"), context=context) as o:
        yield o


def test_vector_shape_and_dtype(op):
    with pytest.raises(ValueError, match=r"x has shape \(199,\); expected \(200,\)"):
        op @ np.ones(199)
    with pytest.raises(ValueError, match="shape"):
        op.matvec(np.ones((200, 2)))
    with pytest.raises(ValueError, match="shape"):
        op.T @ np.ones(200)  # Aᵀ takes the row count
    with pytest.raises(TypeError, match="complex"):
        op @ np.ones(200, complex)
    with pytest.raises(TypeError, match="real"):
        op @ np.array(["a"] * 200)
    with pytest.raises(TypeError, match="real"):
        op @ np.array([object()] * 200)
    with pytest.raises(ValueError, match="shape"):
        op @ 3.0


def test_out_is_checked_not_converted(op):
    good = np.zeros(300)
    with pytest.raises(TypeError, match="dtype float32"):
        op.matvec(np.ones(200), out=np.zeros(300, np.float32))
    with pytest.raises(ValueError, match="shape"):
        op.matvec(np.ones(200), out=np.zeros(299))
    with pytest.raises(ValueError, match="C-contiguous"):
        op.matvec(np.ones(200), out=np.zeros(600)[::2])
    ro = np.zeros(300)
    ro.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        op.matvec(np.ones(200), out=ro)
    with pytest.raises(TypeError, match="NumPy array"):
        op.matvec(np.ones(200), out=[0.0] * 300)
    with pytest.raises(ValueError, match="beta != 0 needs out"):
        op.matvec(np.ones(200), beta=1.0)
    op.matvec(np.ones(200), out=good)  # and the good one works
    assert np.any(good != 0)
    y = np.zeros(300)
    with pytest.raises(ValueError, match="overlap"):
        sq = zsparse.Operator(zsparse.encode(GENERATED["dense_block_64"]))
        buf = np.zeros(64)
        sq.pair(np.ones(64), np.ones(64), y=buf, z=buf)
    del y


def test_library_errors_carry_its_message(context):
    A = GENERATED["random_300x200"]
    with pytest.raises(zsparse.InvalidArgumentError, match="unknown format 'nope'") as e:
        zsparse.encode(A, "nope")
    assert e.value.status == -1 and e.value.status_name == "ZS_ERR_INVALID_ARGUMENT"
    assert isinstance(e.value, ValueError) and "ZS_ERR_INVALID_ARGUMENT" in str(e.value)
    with pytest.raises(zsparse.InvalidArgumentError, match="bogus"):
        zsparse.encode(A, "csb", options="bogus=1")
    with pytest.raises(zsparse.InvalidArgumentError):
        zsparse.Operator(zsparse.encode(A), context=context, options="transpose=sideways")
    with pytest.raises(zsparse.InvalidArgumentError, match="generate"):
        zsparse.generate("no_such_kind")
    with pytest.raises(zsparse.InvalidArgumentError, match="unknown backend 'tpu'"):
        zsparse.Context(backend="tpu")


def test_nan_inputs(context):
    A = sp.csr_matrix(np.array([[1.0, np.nan], [0.0, 2.0]]))
    with pytest.raises(zsparse.OutOfRangeError, match="row 0"):
        zsparse.encode(A)
    with pytest.raises(ValueError, match="not finite"):
        zsparse.encode(GENERATED["random_300x200"], "csb", options={"beta": float("nan")})
    with pytest.raises(ValueError, match="not finite|tol"):
        zsparse.solve(GENERATED["dense_block_64"], np.ones(64), tol=float("nan"))
    with pytest.raises(ValueError, match="not finite"):
        zsparse.solve(GENERATED["dense_block_64"], np.ones(64), breakdown_tol=float("inf"))
    # NaN in x is data, not an error: it propagates like SciPy's.
    op = zsparse.Operator(zsparse.encode(GENERATED["dense_block_64"]), context=context)
    x = np.ones(64)
    x[5] = np.nan
    assert np.all(np.isnan(op @ x))


def test_bad_matrices():
    with pytest.raises(TypeError, match="complex"):
        zsparse.encode(sp.csr_matrix(np.eye(3) * 1j))
    with pytest.raises(TypeError, match="scipy.sparse"):
        zsparse.encode("matrix.mtx")
    with pytest.raises(ValueError, match="2 dimensions"):
        zsparse.encode(np.ones(4))
    with pytest.raises(TypeError, match="float32 or float64"):
        zsparse.encode(GENERATED["single_1x1"], dtype=np.int32)
    big = sp.csr_matrix((np.ones(1), np.array([2**31], np.int64), np.array([0, 1], np.int64)),
                        shape=(1, 2**31 + 1))
    with pytest.raises((ValueError, zsparse.Error)):
        zsparse.encode(big)
    # A malformed SciPy object (indptr past the arrays) is refused before the library reads it.
    bad = sp.csr_matrix(np.eye(3))
    bad.indptr = np.array([0, 1, 2, 9], dtype=bad.indptr.dtype)
    with pytest.raises(ValueError, match="indptr"):
        zsparse.encode(bad)
    bad.indptr = np.array([0, 1, 2], dtype=bad.indptr.dtype)
    with pytest.raises(ValueError, match="indptr"):
        zsparse.encode(bad)


def test_solve_bad_arguments(context):
    with pytest.raises(ValueError, match="square"):
        zsparse.solve(GENERATED["random_300x200"], np.ones(300))
    with pytest.raises(zsparse.InvalidArgumentError, match="jacobi|Jacobi|diagonal"):
        zsparse.solve(sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]])), np.ones(2))
    with pytest.raises(zsparse.InvalidArgumentError):
        zsparse.solve(GENERATED["dense_block_64"], np.ones(64), method="lsqr")
    with pytest.raises(ValueError, match="shape"):
        zsparse.solve(GENERATED["dense_block_64"], np.ones(63))
    with pytest.raises(ValueError, match="negative"):
        zsparse.solve(GENERATED["dense_block_64"], np.ones(64), maxiter=-1)
    with pytest.raises(ValueError, match="precond"):
        zsparse.solve(GENERATED["dense_block_64"], np.ones(64), precond="ilu")


def test_files(tmp_path):
    with pytest.raises(zsparse.FileError) as e:
        zsparse.load(tmp_path / "missing.zsm")
    assert isinstance(e.value, OSError) and "missing.zsm" in str(e.value)
    path = tmp_path / "t.zsm"
    zsparse.encode(GENERATED["random_300x200"], "dtans").save(path)
    data = path.read_bytes()
    (tmp_path / "short.zsm").write_bytes(data[: len(data) // 2])
    with pytest.raises(zsparse.CorruptError, match="short.zsm"):
        zsparse.load(tmp_path / "short.zsm")
    flipped = bytearray(data)
    flipped[len(data) - 9] ^= 0x40
    (tmp_path / "flip.zsm").write_bytes(bytes(flipped))
    with pytest.raises(zsparse.CorruptError, match="flip.zsm"):
        zsparse.load(tmp_path / "flip.zsm")
    with pytest.raises(zsparse.FileError):
        zsparse.encode(GENERATED["single_1x1"]).save(tmp_path / "no_dir" / "x.zsm")


def test_closed_objects():
    ctx = zsparse.Context()
    E = zsparse.encode(GENERATED["dense_block_64"])
    op = zsparse.Operator(E, context=ctx)
    v = zsparse.Vector(64, context=ctx)
    assert np.all(np.isfinite(op @ np.ones(64)))
    ctx.close()
    assert ctx.closed and op.closed and v.closed
    with pytest.raises(zsparse.ClosedError, match="context was closed"):
        op @ np.ones(64)
    with pytest.raises(zsparse.ClosedError):
        op.pair(np.ones(64), np.ones(64))
    with pytest.raises(zsparse.ClosedError):
        v.to_numpy()
    with pytest.raises(zsparse.ClosedError, match="context is closed"):
        zsparse.Operator(E, context=ctx)
    with pytest.raises(zsparse.ClosedError):
        ctx.backends
    with pytest.raises(zsparse.ClosedError):
        zsparse.solve(op, np.ones(64))
    op.close()
    ctx.close()  # closing twice is harmless
    E.close()
    with pytest.raises(zsparse.ClosedError, match="encoded matrix is closed"):
        E.nnz
    with pytest.raises(zsparse.ClosedError):
        zsparse.Operator(E)
    assert "closed" in repr(op) and "closed" in repr(E) and "closed" in repr(ctx)


def test_context_managers():
    with zsparse.Context(backend="cpu") as ctx:
        with zsparse.Operator(zsparse.encode(GENERATED["stencil2d_24"]), context=ctx) as op:
            assert op.backend == "cpu"
            y = op @ np.ones(op.shape[1])
        assert op.closed and not ctx.closed
    assert ctx.closed
    assert np.all(np.isfinite(y))


def test_garbage_collection_frees_handles():
    ctx = zsparse.Context()
    op = zsparse.Operator(zsparse.encode(GENERATED["stencil2d_24"]), context=ctx)
    op @ np.ones(op.shape[1])  # creates the work vectors too
    op_fin, ctx_fin = op._finalizer, ctx._finalizer
    ref = weakref.ref(ctx)
    del ctx  # the operator keeps its context alive
    gc.collect()
    assert ref() is not None and ctx_fin.alive
    assert np.all(np.isfinite(op @ np.ones(op.shape[1])))
    del op
    gc.collect()
    assert not op_fin.alive and not ctx_fin.alive and ref() is None
    # A LinearOperator keeps its operator (and context) alive.
    L = zsparse.Operator(zsparse.encode(GENERATED["stencil2d_24"])).aslinearoperator()
    gc.collect()
    assert np.all(np.isfinite(L.matvec(np.ones(L.shape[1]))))


def test_cycles_are_collected_in_order():
    """Objects in a reference cycle with their context: the collector frees them all, the
    operators before the context (a crash or a leak check would show otherwise)."""
    code = """
import gc, numpy as np, scipy.sparse as sp, zsparse
for i in range(50):
    ctx = zsparse.Context()
    op = zsparse.Operator(zsparse.encode(sp.eye(30, format="csr")), context=ctx)
    v = zsparse.Vector(30, context=ctx)
    op @ np.ones(30)
    holder = [ctx, op, v]
    holder.append(holder)  # a cycle
    ctx.cycle = holder
    del ctx, op, v, holder
gc.collect()
keep = zsparse.Operator(zsparse.encode(sp.eye(4, format="csr")))  # freed at exit
print("ok")
"""
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=dict(os.environ))
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_library_loading():
    path = zsparse.library_path()
    assert os.path.exists(path) or path.startswith("libzsparse")
    assert zsparse.library_version().count(".") == 2
    assert zsparse.load_library(path) == path  # the same library again: fine
    with pytest.raises(RuntimeError, match="already loaded"):
        zsparse.load_library("/nonexistent/libzsparse.so")
    r = subprocess.run(
        [sys.executable, "-c", "import zsparse; zsparse.devices()"],
        capture_output=True, text=True,
        env=dict(os.environ, ZSPARSE_LIBRARY="/nonexistent/libzsparse.so"),
    )
    assert r.returncode != 0 and "ZSPARSE_LIBRARY" in r.stderr


def test_struct_layouts_match_the_header():
    """zs_solver_options_init fills the Python mirror of the struct with the header's defaults,
    which only works if the field layout matches."""
    from zsparse import _lib

    o = _lib.SolverOptions()
    ctypes_ = __import__("ctypes")
    o.history_cap = 12345
    _lib.lib().zs_solver_options_init(ctypes_.byref(o))
    assert (o.method, o.tol, o.max_iter, o.precond, o.breakdown_tol, o.x0_given) == (
        3, 1e-8, 1000, None, 0.0, 0)
    assert not o.history and o.history_cap == 0
    topo = zsparse.devices()["topology"]
    assert topo["cores"] >= 1 and topo["threads"] >= 1 and topo["pus"] >= topo["cores"]
