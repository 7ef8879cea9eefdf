"""test_readme.py — the README's Python example runs as it stands and computes what it says."""

import os

import numpy as np
import pytest

README = os.path.join(os.path.dirname(__file__), "..", "..", "README.md")


def python_block():
    lines = open(README, encoding="utf-8").read().split("\n")
    if "```python" not in lines:
        pytest.skip("README.md has no Python example")
    start = lines.index("```python") + 1
    return "\n".join(lines[start:lines.index("```", start)])


def test_readme_example():
    scope = {}
    exec(compile(python_block(), "README.md (Python example)", "exec"), scope)
    A, y, z = (scope[k] for k in ("A", "y", "z"))
    x = np.ones(A.shape[1])
    assert np.allclose(y, A @ x) and np.allclose(z, A.T @ x)
    for name in ("x1", "x2"):
        assert np.linalg.norm(A @ scope[name] - y) <= 1e-4 * np.linalg.norm(y), name
