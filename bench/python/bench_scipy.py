#!/usr/bin/env python3
"""bench_scipy.py — SciPy against zsparse from Python: per matrix A @ x, A.T @ x and BiCG, and
the cost of the Python layer per product.

For each matrix (a generator spec of docs/generators.md, or a .mtx/.mtx.gz file) and each
backend (cpu by default; cuda/hip where usable):
  scipy  A @ x, A.T @ x           scipy.sparse csr_matrix products (SciPy is single-threaded)
  host   op @ x, op.T @ x         zsparse with NumPy arrays: used in place on host backends
                                  (ref, cpu); copied in and out on device backends
  prod   op.matvec(xv, out=yv)    the product alone, on resident zsparse.Vector operands
  copy   upload x + download y    the host copies alone (what a device backend adds to prod)
  bicg   scipy.sparse.linalg.bicg on the SciPy matrix, on op.aslinearoperator(), and
         zsparse.solve(method="bicg", precond=None) (same tol; the matrix is made diagonally
         dominant first so that all three converge); times and iterations
Times are medians of --repeat runs after a warm-up; ratios are SciPy's time / zsparse's.

The Python layer's cost per product is measured on a 16 x 16 matrix, where the product itself
is negligible: time of op @ x minus time of zs_spmv on resident vectors made directly through
ctypes with prepared arguments (bench_overhead.py, which also times every other form).

  PYTHONPATH=python ZSPARSE_LIBRARY=build/libzsparse.so python3 bench/python/bench_scipy.py \\
      [--matrix stencil2d:n=512 --matrix path.mtx.gz] [--format csr --format dtans] \\
      [--backend cpu] [--dtype f64] [--repeat 20] [--json out.json] [--csv out.csv]

--csv writes the columns of bench/data/*-python-scipy.csv (bench_csv.py: also from --json).
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import zsparse

import bench_csv  # beside this script
import bench_overhead


def median_time(fn, repeat, sync=None):
    fn()  # warm-up (work vectors, caches, OpenMP threads)
    times = []
    for _ in range(repeat):
        if sync:
            sync()
        t0 = time.perf_counter()
        fn()
        if sync:
            sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def load_matrix(spec, dtype):
    if os.path.exists(spec):
        return sp.csr_matrix(scipy.io.mmread(spec), dtype=dtype)
    return zsparse.generate(spec, dtype)


def dominant(A):
    """a_ii = sum_{j != i} |a_ij| + 0.2 x the mean of those sums: BiCG converges on it."""
    off = A - sp.diags(A.diagonal())
    sums = np.asarray(abs(off).sum(axis=1)).ravel()
    return sp.csr_matrix(off + sp.diags(sums + 0.2 * max(float(sums.mean()), 1e-30)),
                         dtype=A.dtype)


def scipy_bicg(A, b, tol, maxiter):
    its = []
    kw = dict(maxiter=maxiter, callback=lambda xk: its.append(1))
    import inspect

    kw.update({"rtol": tol} if "rtol" in inspect.signature(sla.bicg).parameters else {"tol": tol})
    x, info = sla.bicg(A, b, atol=0.0, **kw)
    return x, info, len(its)


def bench_matrix(name, A, fmt, backend, args):
    rows, cols = A.shape
    dt = A.dtype
    rng = np.random.default_rng(1)
    x = rng.standard_normal(cols).astype(dt)
    w = rng.standard_normal(rows).astype(dt)
    r = {"matrix": name, "rows": rows, "cols": cols, "nnz": int(A.nnz), "dtype": str(dt),
         "format": fmt, "backend": backend}
    At = A.T.tocsr()  # SciPy's A.T @ x through the CSC view costs the same; CSR is its best
    r["scipy_Ax_s"] = median_time(lambda: A @ x, args.repeat)
    r["scipy_ATx_s"] = median_time(lambda: A.T @ w, args.repeat)
    r["scipy_ATx_csr_s"] = median_time(lambda: At @ w, args.repeat)
    with zsparse.Context(backend=backend) as ctx, zsparse.encode(A, fmt) as E, \
            zsparse.Operator(E, context=ctx) as op:
        r["bytes_per_nnz"] = E.nbytes / max(A.nnz, 1)
        r["host_Ax_s"] = median_time(lambda: op @ x, args.repeat)
        r["host_ATx_s"] = median_time(lambda: op.T @ w, args.repeat)
        xv, wv = zsparse.Vector(x, context=ctx), zsparse.Vector(w, context=ctx)
        yv, zv = zsparse.Vector(rows, context=ctx, dtype=dt), zsparse.Vector(cols, context=ctx,
                                                                              dtype=dt)
        r["prod_Ax_s"] = median_time(lambda: op.matvec(xv, out=yv), args.repeat, op.sync)
        r["prod_ATx_s"] = median_time(lambda: op.rmatvec(wv, out=zv), args.repeat, op.sync)
        ybuf = np.empty(rows, dt)
        r["copy_Ax_s"] = median_time(lambda: (xv.upload(x), yv.to_numpy(ybuf)), args.repeat,
                                     op.sync)
    # BiCG on the dominant version (square matrices only).
    if rows == cols and not args.no_bicg:
        D = dominant(A)
        b = np.cos(np.arange(rows) * 0.37).astype(dt)
        t0 = time.perf_counter()
        _, info_s, its_s = scipy_bicg(D, b, args.tol, args.maxiter)
        r["scipy_bicg_s"], r["scipy_bicg_its"] = time.perf_counter() - t0, its_s
        with zsparse.Context(backend=backend) as ctx, zsparse.Operator(
            zsparse.encode(D, fmt), context=ctx
        ) as op:
            L = op.aslinearoperator()
            t0 = time.perf_counter()
            _, info_l, its_l = scipy_bicg(L, b, args.tol, args.maxiter)
            r["scipy_bicg_on_op_s"], r["scipy_bicg_on_op_its"] = time.perf_counter() - t0, its_l
            zsparse.solve(op, b, method="bicg", tol=args.tol, maxiter=2, precond=None)  # warm
            t0 = time.perf_counter()
            _, info_z = zsparse.solve(op, b, method="bicg", tol=args.tol, maxiter=args.maxiter,
                                      precond=None)
            r["zs_solve_s"], r["zs_solve_its"] = time.perf_counter() - t0, info_z.iterations
            r["zs_solve_solver_s"] = info_z.time_s
        r["bicg_converged"] = [int(info_s), int(info_l), int(info_z)]
    return r


def python_overhead(backend, dtype):
    """Microseconds the Python layer adds to op @ x (bench_overhead.py has every form)."""
    rows, ref = bench_overhead.measure(backend, 16, dtype, number=200, repeat=100)
    r = next(r for r in rows if r["form"] == "op @ x")
    return {"backend": backend, "bare_spmv_s": ref["bare_spmv_s"],
            "upload_spmv_download_s": ref["upload_spmv_download_s"], "op_matmul_s": r["form_s"],
            "python_layer_s": r["layer_s"]}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--matrix", action="append",
                    help="generator spec or .mtx[.gz] file (repeatable; default: two generated)")
    ap.add_argument("--format", action="append", help="zsparse format (repeatable; default csr)")
    ap.add_argument("--backend", action="append",
                    help="backend (repeatable; default cpu, and cuda/hip where usable)")
    ap.add_argument("--dtype", default="f64", choices=["f32", "f64"])
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--tol", type=float, default=1e-8)
    ap.add_argument("--maxiter", type=int, default=1000)
    ap.add_argument("--no-bicg", action="store_true")
    ap.add_argument("--json", help="write all figures to this file")
    ap.add_argument("--csv", help="write the per-matrix figures as bench/data's CSV to this file")
    args = ap.parse_args()
    dt = np.float32 if args.dtype == "f32" else np.float64
    matrices = args.matrix or ["stencil2d:n=400", "erdos_renyi:rows=100000,per_row=16,seed=2"]
    formats = args.format or ["csr"]
    usable = [b["name"] for b in zsparse.devices()["backends"] if b["usable"]]
    backends = args.backend or [b for b in ("cpu", "cuda", "hip") if b in usable]

    print(f"# zsparse {zsparse.library_version()} ({zsparse.library_path()}), numpy "
          f"{np.__version__}, scipy {scipy.__version__}, {os.cpu_count()} CPUs, load average "
          f"{' '.join(f'{v:.1f}' for v in os.getloadavg())}, {args.dtype}, median of "
          f"{args.repeat}")
    results = {"overhead": [], "matrices": []}
    for be in backends:
        o = python_overhead(be, dt)
        results["overhead"].append(o)
        print(f"python layer ({be}, 16x16): op @ x {o['op_matmul_s'] * 1e6:.2f} us, zs_spmv "
              f"alone through ctypes {o['bare_spmv_s'] * 1e6:.2f} us -> "
              f"{o['python_layer_s'] * 1e6:.2f} us per product (bench_overhead.py: every form)")
    hdr = (f"{'matrix':<34} {'fmt':<6} {'be':<4} {'nnz':>9} | {'scipy Ax':>9} {'host Ax':>9} "
           f"{'prod Ax':>9} {'copy':>8} {'ratio':>6} | {'scipy ATx':>9} {'host ATx':>9} "
           f"{'prod ATx':>9} {'ratio':>6} | bicg scipy / on op / zs.solve (its)")
    print(hdr)
    ms = lambda s: f"{s * 1e3:8.3f}ms"  # noqa: E731
    for spec in matrices:
        A = load_matrix(spec, dt)
        for fmt in formats:
            for be in backends:
                r = bench_matrix(spec, A, fmt, be, args)
                results["matrices"].append(r)
                line = (f"{spec[:34]:<34} {fmt:<6} {be:<4} {r['nnz']:>9} | "
                        f"{ms(r['scipy_Ax_s'])} {ms(r['host_Ax_s'])} {ms(r['prod_Ax_s'])} "
                        f"{r['copy_Ax_s'] * 1e3:6.3f}ms {r['scipy_Ax_s'] / r['host_Ax_s']:5.2f}x | "
                        f"{ms(r['scipy_ATx_s'])} {ms(r['host_ATx_s'])} {ms(r['prod_ATx_s'])} "
                        f"{r['scipy_ATx_s'] / r['host_ATx_s']:5.2f}x |")
                if "scipy_bicg_s" in r:
                    line += (f" {r['scipy_bicg_s']:.3f}s ({r['scipy_bicg_its']}) / "
                             f"{r['scipy_bicg_on_op_s']:.3f}s ({r['scipy_bicg_on_op_its']}) / "
                             f"{r['zs_solve_s']:.3f}s ({r['zs_solve_its']}) "
                             f"{r['scipy_bicg_s'] / r['zs_solve_s']:.2f}x")
                print(line, flush=True)
    bench_overhead.write_json(args.json, results)
    bench_csv.write_csv(args.csv, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
