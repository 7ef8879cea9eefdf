"""conftest.py — shared fixtures of the Python package's tests: the library, its formats and
backends, generated and real matrices, and the product tolerance of docs/cli.md."""

import functools
import glob
import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

import zsparse

DTYPES = [np.float32, np.float64]


@functools.lru_cache(maxsize=None)
def backend_table():
    return {b["name"]: b for b in zsparse.devices()["backends"]}


def all_backends():
    # Every backend the library registers (ref, cpu, cuda, hip): unusable ones skip with the
    # library's reason, so GPU cases show as skipped here, never as passed.
    return list(backend_table())


def need_backend(name):
    b = backend_table()[name]
    if not b["usable"]:
        pytest.skip(f"backend {name} not usable here: {b['detail']}")


@pytest.fixture(scope="session")
def context():
    with zsparse.Context() as ctx:
        yield ctx


@pytest.fixture(scope="session", params=["cpu", "cuda", "hip"])
def backend_context(request):
    """A context whose operators and vectors default to one backend: the cases written for "the"
    backend run on the cpu and on every GPU present (skipped, with the reason, elsewhere)."""
    need_backend(request.param)
    with zsparse.Context(backend=request.param) as ctx:
        yield ctx


def matrices_dir():
    """$ZS_TEST_MATRICES (a folder holding MANIFEST.tsv, else the run fails), else the folder
    the build names (shared/matrices beside the source tree); None when neither is there."""
    env = os.environ.get("ZS_TEST_MATRICES")
    if env:
        if not os.path.isfile(os.path.join(env, "MANIFEST.tsv")):
            pytest.exit(f"ZS_TEST_MATRICES={env}: no MANIFEST.tsv there", returncode=1)
        return env
    d = os.environ.get("ZS_TEST_MATRICES_DEFAULT") or os.path.join(
        os.path.dirname(__file__), "..", "..", "..", "shared", "matrices"
    )
    return d if os.path.isfile(os.path.join(d, "MANIFEST.tsv")) else None


def real_matrix_files():
    d = matrices_dir()
    if not d:
        return []
    files = sorted(glob.glob(os.path.join(d, "*.mtx")) + glob.glob(os.path.join(d, "*.mtx.gz")))
    return [os.path.basename(f) for f in files]


@functools.lru_cache(maxsize=None)
def read_real(name):
    """A real matrix as SciPy reads it (scipy.io.mmread mirrors symmetric files), in CSR."""
    return sp.csr_matrix(scipy.io.mmread(os.path.join(matrices_dir(), name)))


def rounded(A, dtype):
    """A with values rounded to dtype, then held in float64 (what the kernels multiply)."""
    return sp.csr_matrix(A, dtype=dtype).astype(np.float64)


def generated():
    """Small matrices that exercise the formats' corners: empty rows and columns, long rows,
    a dense block, rectangles both ways, a single entry, no entries."""
    rng = np.random.default_rng(7)
    out = {}
    out["random_300x200"] = sp.random(300, 200, density=0.04, format="csr", random_state=rng)
    out["random_150x400"] = sp.random(150, 400, density=0.02, format="csr", random_state=rng)
    long_rows = sp.random(500, 500, density=0.004, format="lil", random_state=rng)
    long_rows[3, :] = rng.standard_normal(500)  # one row far longer than the rest
    long_rows[:, 7] = rng.standard_normal((500, 1))  # and one long column
    out["long_row_and_col_500"] = long_rows.tocsr()
    out["dense_block_64"] = sp.csr_matrix(rng.standard_normal((64, 64)))
    out["stencil2d_24"] = zsparse.generate("stencil2d:n=24")
    out["single_1x1"] = sp.csr_matrix(np.array([[2.5]]))
    out["empty_40x30"] = sp.csr_matrix((40, 30))
    return out


GENERATED = generated()


def dominant(A, rel=0.2):
    """A with a_ii = sum_{j != i} |a_ij| + margin, margin = rel x the mean of those sums:
    strictly diagonally dominant and well conditioned (zs_matrix_make_dominant's construction
    with a margin that scales with A), so that Krylov solvers converge in tens of iterations."""
    A = sp.csr_matrix(A)
    off = A - sp.diags(A.diagonal())
    sums = np.asarray(abs(off).sum(axis=1)).ravel()
    margin = rel * float(sums.mean()) if sums.any() else 1.0
    return sp.csr_matrix(off + sp.diags(sums + margin))


def product_tolerance(dtype, len_max):
    """docs/cli.md (--check): 16 eps(type) min(len_max + 2, 1024), relative to the sum of the
    absolute terms of each output element."""
    return 16 * np.finfo(dtype).eps * min(len_max + 2, 1024)


def assert_product(got, A64, x, dtype, alpha=1.0, beta=0.0, y0=None, what="A x"):
    """got = alpha A x + beta y0 within the library's documented tolerance, against SciPy's
    product in float64 of the same (rounded) values."""
    x64 = np.asarray(x, dtype=dtype).astype(np.float64)
    ref = alpha * (A64 @ x64)
    scale = abs(alpha) * (abs(A64) @ np.abs(x64)) + 1e-300
    if y0 is not None and beta != 0:
        y64 = np.asarray(y0, dtype=dtype).astype(np.float64)
        ref = ref + beta * y64
        scale = scale + abs(beta) * np.abs(y64)
    lengths = np.diff(sp.csr_matrix(A64).indptr)
    tol = product_tolerance(dtype, int(lengths.max()) if lengths.size else 0)
    assert got.shape == ref.shape, f"{what}: shape {got.shape}, expected {ref.shape}"
    assert np.all(np.isfinite(got)), f"{what}: non-finite output"
    err = np.abs(got.astype(np.float64) - ref) / scale
    worst = int(np.argmax(err)) if err.size else 0
    assert err.size == 0 or err[worst] <= tol, (
        f"{what}: relative error {err[worst]:.3e} > tolerance {tol:.3e} at element {worst} "
        f"(got {got[worst]!r}, SciPy {ref[worst]!r})"
    )


def scipy_iterative(solver, A, b, tol, maxiter=None, M=None):
    """Run a scipy.sparse.linalg solver with ||r|| <= tol ||b|| whatever the SciPy version
    (`tol` + atol=0 before 1.12, `rtol` after), counting iterations through the callback."""
    import inspect

    its = []
    kw = {"maxiter": maxiter, "M": M, "callback": lambda xk: its.append(1)}
    params = inspect.signature(solver).parameters
    if "rtol" in params:
        kw.update(rtol=tol, atol=0.0)
    else:
        kw.update(tol=tol, atol=0.0)
    if "callback_type" in params:
        kw["callback_type"] = "pr_norm"  # gmres: once per inner iteration
    x, info = solver(A, b, **kw)
    return x, info, len(its)
