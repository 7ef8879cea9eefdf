"""test_products.py — op @ x, op.T @ x, the alpha/beta forms, the pair, matmat and SciPy's
LinearOperator against SciPy's products, for every format, backend and value type."""

import threading

import numpy as np
import pytest
import scipy.sparse as sp

import zsparse
from conftest import (
    DTYPES,
    GENERATED,
    all_backends,
    assert_product,
    need_backend,
    read_real,
    real_matrix_files,
    rounded,
)

FORMATS = zsparse.formats()


def test_formats_are_listed():
    # The baselines are always built; every listed format must round-trip through the library.
    assert "csr" in FORMATS and "coo" in FORMATS
    assert "vans" not in FORMATS  # dense int8 layers, not a sparse-matrix format


def check_all_products(A, fmt, backend, dtype, context, seed=1):
    """Every product form of one operator against SciPy."""
    need_backend(backend)
    A64 = rounded(A, dtype)
    rng = np.random.default_rng(seed)
    rows, cols = A.shape
    with zsparse.encode(A, fmt, dtype=dtype) as E, zsparse.Operator(
        E, context=context, backend=backend
    ) as op:
        assert op.shape == A.shape and op.dtype == np.dtype(dtype) and op.backend == backend
        x = rng.standard_normal(cols).astype(dtype)
        w = rng.standard_normal(rows).astype(dtype)
        assert_product(op @ x, A64, x, dtype, what=f"{fmt}/{backend} A x")
        assert_product(op.T @ w, A64.T, w, dtype, what=f"{fmt}/{backend} A^T x")
        # alpha/beta into a caller's array; out is poisoned where beta = 0 ignores it.
        y0 = rng.standard_normal(rows).astype(dtype)
        out = y0.copy()
        r = op.matvec(x, out=out, alpha=0.75, beta=-1.25)
        assert r is out
        assert_product(out, A64, x, dtype, 0.75, -1.25, y0, what=f"{fmt}/{backend} alpha/beta")
        out = np.full(cols, np.nan, dtype)
        op.rmatvec(w, out=out, alpha=-2.0)
        assert_product(out, A64.T, w, dtype, -2.0, what=f"{fmt}/{backend} A^T x into NaN out")
        # BiCG's pair.
        y, z = op.pair(x, w)
        assert_product(y, A64, x, dtype, what=f"{fmt}/{backend} pair y")
        assert_product(z, A64.T, w, dtype, what=f"{fmt}/{backend} pair z")
        # Several columns.
        X = rng.standard_normal((cols, 3)).astype(dtype)
        Y = op @ X
        assert Y.shape == (rows, 3)
        for j in range(3):
            assert_product(Y[:, j], A64, X[:, j], dtype, what=f"{fmt}/{backend} A X[:, {j}]")


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("backend", all_backends())
@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("name", list(GENERATED))
def test_generated(name, fmt, backend, dtype, context):
    check_all_products(GENERATED[name], fmt, backend, dtype, context)


REAL = real_matrix_files()


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("backend", all_backends())
@pytest.mark.parametrize("name", REAL or ["(none)"])
def test_real(name, backend, dtype, context):
    """op @ x and op.T @ x of every format on the real matrices (one encode per format)."""
    if not REAL:
        pytest.skip("no real matrices: set ZS_TEST_MATRICES or provide ../shared/matrices")
    need_backend(backend)
    A = read_real(name)
    if A.dtype.kind == "c":
        with pytest.raises(TypeError, match="complex"):
            zsparse.encode(A)
        pytest.skip(f"{name} is complex (refused, as checked)")
    A64 = rounded(A, dtype)
    rng = np.random.default_rng(3)
    x = rng.standard_normal(A.shape[1]).astype(dtype)
    w = rng.standard_normal(A.shape[0]).astype(dtype)
    for fmt in FORMATS:
        with zsparse.encode(A, fmt, dtype=dtype) as E, zsparse.Operator(
            E, context=context, backend=backend
        ) as op:
            assert E.nnz == A.nnz
            assert_product(op @ x, A64, x, dtype, what=f"{name} {fmt}/{backend} A x")
            assert_product(op.T @ w, A64.T, w, dtype, what=f"{name} {fmt}/{backend} A^T x")


@pytest.mark.parametrize("backend", all_backends())
def test_stored_transpose_and_pair_options(backend, context):
    need_backend(backend)
    A = GENERATED["random_300x200"]
    A64 = rounded(A, np.float64)
    x, w = np.linspace(-1, 1, 200), np.linspace(2, -1, 300)
    with zsparse.Operator(
        zsparse.encode(A, "csr"), context=context, backend=backend,
        options={"transpose": "stored"},
    ) as op:
        assert_product(op.T @ w, A64.T, w, np.float64, what="transpose=stored")
        y, z = op.pair(x, w, alpha=2.0, alpha_t=-0.5)
        assert_product(y, A64, x, np.float64, 2.0, what="pair y")
        assert_product(z, A64.T, w, np.float64, -0.5, what="pair z")


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
def test_linear_operator(dtype, backend_context):
    A = GENERATED["random_150x400"]
    A64 = rounded(A, dtype)
    rng = np.random.default_rng(5)
    op = zsparse.Operator(zsparse.encode(A, "dtans", dtype=dtype), context=backend_context)
    L = op.aslinearoperator()
    assert L.shape == A.shape and L.dtype == np.dtype(dtype)
    x, w = rng.standard_normal(400), rng.standard_normal(150)
    assert_product(L.matvec(x), A64, x, dtype, what="L.matvec")
    assert_product(L.matvec(x.reshape(-1, 1)).ravel(), A64, x, dtype, what="L.matvec (N,1)")
    assert_product(L.rmatvec(w), A64.T, w, dtype, what="L.rmatvec")
    assert_product(L.H.matvec(w), A64.T, w, dtype, what="L.H.matvec")
    assert_product(L.T.matvec(w), A64.T, w, dtype, what="L.T.matvec")
    assert_product((L @ x), A64, x, dtype, what="L @ x")
    X = rng.standard_normal((400, 2))
    Y = L.matmat(X)
    for j in range(2):
        assert_product(Y[:, j], A64, X[:, j], dtype, what="L.matmat")
    # The view keeps the operator (and so its context) alive.
    del op
    assert_product(L.matvec(x), A64, x, dtype, what="L after del op")


def test_transposed_view(backend_context):
    A = GENERATED["random_300x200"]
    A64 = rounded(A, np.float64)
    fmt = "gcsb" if "gcsb" in FORMATS else "csr"
    op = zsparse.Operator(zsparse.encode(A, fmt), context=backend_context)
    T = op.T
    assert T.shape == (200, 300) and T.T is op
    w, x = np.arange(300.0) / 300, np.arange(200.0) / 200
    assert_product(T @ w, A64.T, w, np.float64, what="op.T @ w")
    assert_product(T.rmatvec(x), A64, x, np.float64, what="op.T.rmatvec")
    z, y = T.pair(w, x)
    assert_product(z, A64.T, w, np.float64, what="op.T.pair z")
    assert_product(y, A64, x, np.float64, what="op.T.pair y")
    assert_product(w @ op, A64.T, w, np.float64, what="w @ op")
    assert_product(x @ T, A64, x, np.float64, what="x @ op.T")


def test_converted_inputs(backend_context):
    """Inputs that are not C-contiguous arrays of the operator's dtype are converted (a copy);
    the result is the same as with the converted array."""
    A = GENERATED["random_300x200"]
    A64 = rounded(A, np.float32)
    op = zsparse.Operator(zsparse.encode(A, "csr", dtype=np.float32), context=backend_context)
    base = np.random.default_rng(2).standard_normal(400)
    strided = base[::2]  # float64, not contiguous
    assert not strided.flags.c_contiguous
    assert_product(op @ strided, A64, strided, np.float32, what="strided f64 x")
    assert (op @ strided).dtype == np.float32
    as_list = [float(v) for v in strided]
    assert np.array_equal(op @ as_list, op @ strided)
    ints = np.arange(200)
    assert_product(op @ ints, A64, ints, np.float32, what="integer x")
    ro = strided.astype(np.float32)
    ro.flags.writeable = False
    assert np.array_equal(op @ ro, op @ strided)


@pytest.mark.parametrize("backend", all_backends())
def test_resident_vectors(backend, context):
    """zsparse.Vector operands stay on the backend: the products write into them."""
    need_backend(backend)
    A = GENERATED["stencil2d_24"]
    A64 = rounded(A, np.float64)
    n = A.shape[0]
    x = np.cos(np.arange(n))
    op = zsparse.Operator(zsparse.encode(A, "csr"), context=context, backend=backend)
    xv = zsparse.Vector(x, context=context, backend=backend)
    yv = op.matvec(xv)
    assert isinstance(yv, zsparse.Vector)
    assert_product(yv.to_numpy(), A64, x, np.float64, what="resident A x")
    op.rmatvec(xv, out=yv, alpha=2.0)
    assert_product(yv.to_numpy(), A64.T, x, np.float64, 2.0, what="resident A^T x")
    yv2, zv2 = op.pair(xv, xv)
    assert_product(yv2.to_numpy(), A64, x, np.float64, what="resident pair y")
    assert_product(zv2.to_numpy(), A64.T, x, np.float64, what="resident pair z")


def test_threads_share_an_operator(backend_context):
    """Products from several threads on one operator do not mix their vectors."""
    A = GENERATED["random_300x200"]
    A64 = rounded(A, np.float64)
    op = zsparse.Operator(zsparse.encode(A, "csr"), context=backend_context)
    errors = []

    def work(seed):
        rng = np.random.default_rng(seed)
        try:
            for _ in range(200):
                x = rng.standard_normal(200)
                assert_product(op @ x, A64, x, np.float64, what=f"thread {seed}")
        except AssertionError as e:
            errors.append(e)

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[0]


def test_empty_and_tiny(backend_context):
    E = zsparse.encode(sp.csr_matrix((0, 0)), "csr")
    assert E.shape == (0, 0) and E.nnz == 0
    op = zsparse.Operator(zsparse.encode(sp.csr_matrix((5, 0)), "csr"), context=backend_context)
    assert np.array_equal(op @ np.zeros(0), np.zeros(5))
    assert (op.T @ np.ones(5)).shape == (0,)


@pytest.mark.parametrize("backend", all_backends())
def test_host_arrays_in_place(backend, context):
    """On host backends the products read and write the caller's arrays in place (no work
    vectors, so no copies); device backends copy through work vectors. Both give the bits the
    other path gives on the same backend."""
    need_backend(backend)
    A = GENERATED["random_300x200"]
    A64 = rounded(A, np.float64)
    rng = np.random.default_rng(9)
    x, w = rng.standard_normal(200), rng.standard_normal(300)
    with zsparse.Operator(zsparse.encode(A, "csr"), context=context, backend=backend) as op:
        y, z = op @ x, op.T @ w
        yp, zp = op.pair(x, w)
        out = np.full(300, np.nan)
        op.matvec(x, out=out, alpha=2.0)
        assert_product(y, A64, x, np.float64, what="A x")
        assert_product(z, A64.T, w, np.float64, what="A^T w")
        host = backend in ("ref", "cpu")
        assert op._wrap == host
        made = [v.value is not None for v in op._work]
        assert not any(made) if host else all(made), f"work vectors made: {made}"
        # The other path, forced, gives the same bits.
        op._wrap = not op._wrap
        assert np.array_equal(op @ x, y) and np.array_equal(op.T @ w, z)
        y2, z2 = op.pair(x, w)
        assert np.array_equal(y2, yp) and np.array_equal(z2, zp)
        out2 = np.full(300, np.nan)
        op.matvec(x, out=out2, alpha=2.0)
        assert np.array_equal(out2, out)


@pytest.mark.parametrize("backend", all_backends())
def test_awkward_arrays(backend, context):
    """Misaligned, read-only and overlapping arrays: converted or copied as needed, never a
    wrong product or an error from the library."""
    need_backend(backend)
    A = GENERATED["dense_block_64"]
    A64 = rounded(A, np.float64)
    x = np.cos(np.arange(64.0))
    with zsparse.Operator(zsparse.encode(A, "csr"), context=context, backend=backend) as op:
        want = op @ x
        assert_product(want, A64, x, np.float64)
        # Misaligned views (float64 at an odd byte address) as x and as out.
        raw = np.zeros(64 * 8 + 1, np.uint8)
        xm = raw[1:].view(np.float64)
        xm[:] = x
        assert not xm.flags.aligned
        assert np.array_equal(op @ xm, want)
        raw2 = np.zeros(64 * 8 + 1, np.uint8)
        out = raw2[1:].view(np.float64)
        assert op.matvec(x, out=out) is out and np.array_equal(out, want)
        yp, zp = op.pair(xm, xm)
        assert np.array_equal(yp, want)
        # Read-only x.
        ro = x.copy()
        ro.flags.writeable = False
        assert np.array_equal(op @ ro, want)
        # out over x itself, and over part of it: x is read as it was.
        buf = np.concatenate([x, np.zeros(8)])
        op.matvec(buf[:64], out=buf[:64])
        assert np.array_equal(buf[:64], want)
        buf = np.concatenate([x, np.zeros(8)])
        op.matvec(buf[:64], out=buf[8:72])
        assert np.array_equal(buf[8:72], want)
        # The pair writing into its own inputs.
        xs, ws = x.copy(), x[::-1].copy()
        y_want, z_want = op.pair(xs, ws)
        y, z = op.pair(xs, ws, y=xs, z=ws)
        assert y is xs and z is ws
        assert np.array_equal(y, y_want) and np.array_equal(z, z_want)
        with pytest.raises(ValueError, match="y and z overlap"):
            op.pair(x, x, y=buf[:64], z=buf[4:68])


def test_the_check_catches_wrong_products():
    """The comparison used above fails on a product 1e-3 off, or with one element unwritten."""
    A = GENERATED["random_300x200"]
    A64 = rounded(A, np.float64)
    x = np.linspace(-1, 1, 200)
    y = zsparse.Operator(zsparse.encode(A)) @ x
    assert_product(y, A64, x, np.float64)
    bad = y.copy()
    bad[17] *= 1.001
    with pytest.raises(AssertionError, match="element 17"):
        assert_product(bad, A64, x, np.float64)
    bad = y.copy()
    bad[3] = np.nan
    with pytest.raises(AssertionError, match="non-finite"):
        assert_product(bad, A64, x, np.float64)
