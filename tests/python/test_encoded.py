"""test_encoded.py — encode, decode, .zsm round trips, info() against `zsparse info --json`."""

import json
import os
import subprocess

import numpy as np
import pytest
import scipy.sparse as sp

import zsparse
from conftest import DTYPES, GENERATED, read_real, real_matrix_files

FORMATS = zsparse.formats()


def same_csr(A, B):
    """Equal bit for bit as canonical CSR (sorted, duplicates summed)."""
    A, B = sp.csr_matrix(A), sp.csr_matrix(B)
    A.sum_duplicates()
    B.sum_duplicates()
    return (
        A.shape == B.shape
        and A.dtype == B.dtype
        and np.array_equal(A.indptr, B.indptr)
        and np.array_equal(A.indices, B.indices)
        and np.array_equal(A.data.view(np.uint8), B.data.view(np.uint8))
    )


@pytest.mark.parametrize("dtype", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("fmt", FORMATS)
def test_roundtrip_through_zsm(fmt, dtype, tmp_path):
    A = sp.csr_matrix(GENERATED["long_row_and_col_500"], dtype=dtype)
    with zsparse.encode(A, fmt) as E:
        assert E.format == fmt and E.dtype == np.dtype(dtype)
        assert E.shape == A.shape and E.nnz == A.nnz and E.nbytes > 0
        assert same_csr(E.to_scipy(), A), "decode differs from the input"
        path = tmp_path / f"a_{fmt}.zsm"
        E.save(path)
        arrays, params = E.arrays(), E.params()
    with zsparse.load(str(path)) as L:
        assert (L.format, L.dtype, L.shape, L.nnz) == (fmt, np.dtype(dtype), A.shape, A.nnz)
        assert L.arrays() == arrays and L.params() == params
        assert same_csr(L.to_scipy(), A), "the loaded file decodes differently"
        # Products of the loaded file equal those of SciPy.
        x = np.linspace(-1, 1, A.shape[1])
        got = zsparse.Operator(L) @ x
        ref = A.astype(np.float64) @ x.astype(dtype).astype(np.float64)
        assert np.allclose(got, ref, rtol=1e-4 if dtype == np.float32 else 1e-12, atol=1e-5)


def test_options_kept_in_zsm(tmp_path):
    """The encoder options travel with the blob and through a .zsm file (docs/container.md);
    an Operator with transpose=stored on the loaded file gives Aᵀ w."""
    A = sp.csr_matrix(GENERATED["long_row_and_col_500"])
    with zsparse.encode(A, "sell", {"c": 4, "sigma": 8}) as E, zsparse.encode(A, "sell") as P:
        assert E.options == "c=4,sigma=8" and P.options == ""
        E.save(tmp_path / "opts.zsm")
        P.save(tmp_path / "plain.zsm")
    with zsparse.load(str(tmp_path / "opts.zsm")) as L, zsparse.load(
        str(tmp_path / "plain.zsm")
    ) as Q:
        assert L.options == "c=4,sigma=8" and Q.options == ""
        assert L.params() == {"c": 4, "sigma": 8}
        w = np.cos(np.arange(A.shape[0]))
        with zsparse.Operator(L, options="transpose=stored") as op:
            assert np.allclose(op.T @ w, A.T @ w, rtol=1e-12, atol=1e-12)


def test_canonicalises_input():
    """Unsorted columns and duplicates (legal in SciPy) are sorted and summed; other sparse
    formats and dense arrays are accepted; the input is left as it was."""
    indptr = np.array([0, 3, 4])
    indices = np.array([2, 0, 2, 1])
    data = np.array([1.0, 2.0, 3.0, 4.0])
    A = sp.csr_matrix((data, indices, indptr), shape=(2, 3))
    before = (A.indices.copy(), A.data.copy())
    D = zsparse.encode(A, "csr").to_scipy()
    assert np.array_equal(D.toarray(), [[2.0, 0.0, 4.0], [0.0, 4.0, 0.0]])
    assert np.array_equal(A.indices, before[0]) and np.array_equal(A.data, before[1])
    for other in (A.tocoo(), A.tocsc(), sp.csr_array(A), A.toarray(), A.todok()):
        assert same_csr(zsparse.encode(other, "coo").to_scipy(), D)


def test_dtypes():
    A = sp.csr_matrix(np.array([[1, 0], [0, 3]], dtype=np.int32))
    assert zsparse.encode(A).dtype == np.float64  # integers become float64
    assert zsparse.encode(A, dtype="float32").dtype == np.float32
    assert zsparse.encode(A.astype(np.float32)).dtype == np.float32
    assert zsparse.encode(A.astype(bool)).to_scipy().toarray().tolist() == [[1, 0], [0, 1]]


def test_generate_matches_cli(tmp_path):
    """zsparse.generate gives what `zsparse gen` writes (the same library generator)."""
    tool = os.environ.get("ZSPARSE_TOOL")
    if not tool:
        pytest.skip("ZSPARSE_TOOL not set (run through meson test)")
    spec = "erdos_renyi:rows=300,cols=200,per_row=5,seed=4"
    A = zsparse.generate(spec)
    out = tmp_path / "g.mtx"
    subprocess.run([tool, "gen", spec, "-o", str(out)], check=True, capture_output=True)
    import scipy.io

    assert same_csr(A, sp.csr_matrix(scipy.io.mmread(str(out))))


@pytest.mark.parametrize("fmt", FORMATS)
def test_info_matches_cli(fmt, tmp_path):
    """Encoded.info() holds what `zsparse info --json` prints for the saved .zsm."""
    tool = os.environ.get("ZSPARSE_TOOL")
    if not tool:
        pytest.skip("ZSPARSE_TOOL not set (run through meson test)")
    names = real_matrix_files()
    A = read_real("west0067.mtx") if "west0067.mtx" in names else GENERATED["random_300x200"]
    path = tmp_path / "m.zsm"
    with zsparse.encode(A, fmt, dtype=np.float32) as E:
        info = E.info()
        E.save(path)
    cli = json.loads(
        subprocess.run([tool, "info", "--json", str(path)], check=True, capture_output=True,
                       text=True).stdout
    )
    for key, want in cli.items():
        if key in ("file", "kind", "symmetry", "field"):
            continue  # facts of a file, not of a matrix
        assert key in info, f"info() lacks {key}"
        got = info[key]
        if isinstance(want, float):
            assert got == pytest.approx(want, rel=1e-9, abs=1e-12), key
        elif isinstance(want, dict):
            assert got.keys() == want.keys(), key
            for k in want:
                assert got[k] == pytest.approx(want[k], rel=1e-9, abs=1e-12), f"{key}.{k}"
        else:
            assert got == want, key


def test_real_roundtrip(tmp_path):
    """Every real matrix through every format and a .zsm file, bit for bit (f64)."""
    names = real_matrix_files()
    if not names:
        pytest.skip("no real matrices: set ZS_TEST_MATRICES or provide ../shared/matrices")
    for name in names:
        A = read_real(name)
        if A.dtype.kind == "c":
            continue
        A = sp.csr_matrix(A, dtype=np.float64)
        for fmt in FORMATS:
            path = tmp_path / "r.zsm"
            with zsparse.encode(A, fmt) as E:
                E.save(path)
            with zsparse.load(path) as L:
                assert same_csr(L.to_scipy(), A), f"{name} through {fmt}"
