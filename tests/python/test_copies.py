"""test_copies.py — host arrays used in place: zsparse.solve and Vector(copy=False) on backends
whose vectors are host memory work in the NumPy arrays' memory (copies counted at the library's
zs_vector_upload and zs_vector_download calls), and device backends copy only what they must."""

import gc
import weakref

import numpy as np
import pytest
import scipy.sparse as sp

import zsparse
from conftest import DTYPES, all_backends, dominant, need_backend
from zsparse import _lib

HOST = ["ref", "cpu"]
DEVICE = [b for b in all_backends() if b not in HOST]


@pytest.fixture
def copies(monkeypatch):
    """Counts the library calls that copy between a host array and a vector."""
    lib = _lib.lib()
    count = {"upload": 0, "download": 0}

    def counted(name):
        fn = getattr(lib, "zs_vector_" + name)

        def call(*args):
            count[name] += 1
            return fn(*args)

        monkeypatch.setattr(lib, "zs_vector_" + name, call)

    counted("upload")
    counted("download")
    return count


def system(dtype, n=300):
    rng = np.random.default_rng(3)
    A = sp.csr_matrix(dominant(sp.random(n, n, density=0.03, random_state=rng)), dtype=dtype)
    b = np.cos(np.arange(n) * 0.37).astype(dtype)
    return A, b


def residual(A, x, b):
    return np.linalg.norm(A @ x.astype(np.float64) - b) / np.linalg.norm(b)


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("backend", HOST)
def test_solve_works_in_host_arrays(backend, dtype, copies):
    """No upload or download: b is read where it is, x is written where it is returned; x0 is
    copied once into x by NumPy and left as it was; a read-only b is copied once by NumPy."""
    need_backend(backend)
    A, b = system(dtype)
    tol = 1e-4 if dtype == np.float32 else 1e-9
    with zsparse.Context(backend=backend) as ctx:
        op = zsparse.Operator(zsparse.encode(A, "csr"), context=ctx)
        b_before = b.copy()
        x, info = zsparse.solve(op, b, tol=tol)
        assert info == 0 and residual(A, x, b) < 10 * tol
        assert copies == {"upload": 0, "download": 0}
        assert np.array_equal(b, b_before) and not np.shares_memory(x, b)

        x0 = np.full(A.shape[0], 0.5, dtype)
        x0_before = x0.copy()
        x2, info = zsparse.solve(op, b, tol=tol, x0=x0)
        assert info == 0 and residual(A, x2, b) < 10 * tol
        assert copies == {"upload": 0, "download": 0}
        assert np.array_equal(x0, x0_before) and not np.shares_memory(x2, x0)

        b.setflags(write=False)
        x3, info = zsparse.solve(op, b, tol=tol)
        assert info == 0 and np.array_equal(x3, x)
        assert copies == {"upload": 0, "download": 0}
        op.close()


@pytest.mark.parametrize("backend", DEVICE)
def test_solve_copies_to_a_device(backend, copies):
    """A device's vectors are its own memory: b and x0 go up once each, x comes down once."""
    need_backend(backend)
    A, b = system(np.float64)
    with zsparse.Context(backend=backend) as ctx:
        op = zsparse.Operator(zsparse.encode(A, "csr"), context=ctx)
        x, info = zsparse.solve(op, b, tol=1e-9, x0=np.zeros(A.shape[0]))
        assert info == 0 and residual(A, x, b) < 1e-8
        assert copies == {"upload": 2, "download": 1}
        op.close()


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("backend", HOST)
def test_vector_shares_memory(backend, dtype, copies):
    """Vector(a, copy=False) reads and writes a itself; Vector(a) owns a copy."""
    need_backend(backend)
    A, _ = system(dtype, 50)
    with zsparse.Context(backend=backend) as ctx:
        y = np.zeros(50, dtype)
        yv = zsparse.Vector(y, context=ctx, copy=False)
        assert yv.shares_memory and copies["upload"] == 0
        yv.fill(2.5)
        assert np.all(y == 2.5)
        y[:] = np.arange(50)
        assert np.array_equal(yv.to_numpy(), np.arange(50, dtype=dtype))
        x = np.linspace(-1, 1, 50).astype(dtype)
        xv = zsparse.Vector(x, context=ctx, copy=False)
        op = zsparse.Operator(zsparse.encode(A, "csr"), context=ctx)
        op.matvec(xv, out=yv)
        want = A.astype(np.float64) @ x.astype(np.float64)
        assert np.allclose(y, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)
        assert copies["upload"] == 0

        owned = zsparse.Vector(y, context=ctx)
        assert not owned.shares_memory and copies["upload"] == 1
        owned.fill(-1.0)
        assert np.allclose(y, want, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-6)
        op.close()


@pytest.mark.parametrize("backend", HOST)
def test_vector_keeps_its_array_alive(backend):
    need_backend(backend)
    with zsparse.Context(backend=backend) as ctx:
        a = np.arange(5.0)
        alive = weakref.ref(a)
        v = zsparse.Vector(a, context=ctx, copy=False)
        del a
        gc.collect()
        assert alive() is not None
        v.fill(1.0)
        assert np.array_equal(v.to_numpy(), np.ones(5))
        v.close()
        del v
        gc.collect()
        assert alive() is None


@pytest.mark.parametrize(
    "data, dtype, why",
    [
        (np.zeros(8, np.float32), np.float64, "dtype float32"),
        (np.zeros(16)[::2], None, "C-contiguous"),
        ([0.0, 1.0], None, "not a NumPy array"),
        (8, None, "needs an array"),
    ],
    ids=["dtype", "strided", "list", "length"],
)
def test_vector_copy_false_refuses(data, dtype, why):
    need_backend("cpu")
    with zsparse.Context(backend="cpu") as ctx:
        with pytest.raises(ValueError, match=why):
            zsparse.Vector(data, context=ctx, dtype=dtype, copy=False)
        ro = np.zeros(4)
        ro.setflags(write=False)
        with pytest.raises(ValueError, match="read-only"):
            zsparse.Vector(ro, context=ctx, copy=False)


@pytest.mark.parametrize("backend", DEVICE)
def test_vector_copy_false_on_a_device(backend):
    need_backend(backend)
    with zsparse.Context(backend=backend) as ctx:
        with pytest.raises(zsparse.UnsupportedError):
            zsparse.Vector(np.zeros(4), context=ctx, copy=False)
