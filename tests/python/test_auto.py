"""test_auto.py — "auto", zsparse.encode's default format: the choice is recorded and explained,
planned for the operator's backend and the solver's workload, kept in .zsm files, and refused
with the planner's message for options it does not know."""

import numpy as np
import pytest
import scipy.sparse as sp

import zsparse
from conftest import GENERATED, assert_product, need_backend, rounded

FORMATS = zsparse.formats()


def test_default_is_auto_and_explained():
    A = GENERATED["random_300x200"]
    E = zsparse.encode(A)
    c = E.choice()
    assert c is not None, "encode's default did not go through auto"
    assert c["format"] == E.format and E.format in FORMATS
    assert E.note.startswith(f"format={E.format} ") and c["reason"]
    assert c["workload"] == "spmv"
    # A named format records no choice.
    assert zsparse.encode(A, "csr").note == "" and zsparse.encode(A, "csr").choice() is None


def test_planner_options_and_errors():
    A = zsparse.generate("stencil2d:n=40")
    E = zsparse.encode(A, "auto", {"backend": "ref", "workload": "pair:100"})
    c = E.choice()
    assert c["backend"] == "ref" and c["workload"] == "pair:100"
    with pytest.raises(zsparse.InvalidArgumentError):
        zsparse.encode(A, "auto", {"no_such_key": 1})
    with pytest.raises(zsparse.InvalidArgumentError):
        zsparse.encode(A, "auto", "workload=sideways")


def test_choice_survives_the_container(tmp_path):
    E = zsparse.encode(GENERATED["long_row_and_col_500"])
    path = tmp_path / "a.zsm"
    E.save(path)
    F = zsparse.load(path)
    assert F.note == E.note and F.format == E.format
    assert (F.to_scipy() != E.to_scipy()).nnz == 0


@pytest.mark.parametrize("backend", ["ref", "cpu", "cuda", "hip"])
def test_operator_plans_for_its_backend(backend, context):
    """A matrix given to Operator is planned for the backend it lands on, and its products are
    right whatever was chosen."""
    need_backend(backend)
    A = GENERATED["random_300x200"]
    A64 = rounded(A, np.float64)
    with zsparse.Operator(A, context=context, backend=backend) as op:
        c = op.encoded.choice()
        assert c["backend"] == backend and op.format == c["format"]
        x, w = np.linspace(-1, 1, 200), np.linspace(1, -2, 300)
        assert_product(op @ x, A64, x, np.float64, what=f"auto {c['format']} A x")
        assert_product(op.T @ w, A64.T, w, np.float64, what=f"auto {c['format']} A^T w")


def test_solve_plans_its_workload(monkeypatch):
    """zsparse.solve on a matrix plans for its backend and its solver's calls, as the command
    line's solve does: BiCG a pair per iteration, BiCGSTAB two products, CG one."""
    import zsparse._solve as solve_module

    seen = []
    real = solve_module.encode

    def spy(A, format, options=None, dtype=None):
        E = real(A, format, options, dtype=dtype)
        seen.append(E.choice())
        return E

    monkeypatch.setattr(solve_module, "encode", spy)
    A = sp.csr_matrix(sp.random(200, 200, density=0.05, random_state=4) + 8 * sp.eye(200))
    A = sp.csr_matrix(A + A.T)  # symmetric positive definite, for CG too
    b = np.ones(200)
    for method, work in (("bicg", "solve:50"), ("bicgstab", "spmv:100"), ("cg", "spmv:50")):
        x, info = zsparse.solve(A, b, method=method, tol=1e-10, maxiter=50)
        assert info == 0 and np.linalg.norm(A @ x - b) <= 1e-8 * np.linalg.norm(b)
        assert seen[-1]["workload"] == work, (method, seen[-1])
        assert seen[-1]["backend"] == zsparse.default_context().backend
    zsparse.solve(A, b, method="cg", tol=1e-10, format="csr")
    assert len(seen) == 4 and seen[-1] is None  # a named format: no plan
