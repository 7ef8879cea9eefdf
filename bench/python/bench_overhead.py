#!/usr/bin/env python3
"""bench_overhead.py — what the Python layer adds to one product, form by form, against the
library call it wraps made directly through ctypes.

On a small matrix (16 x 16 by default, where the product itself is cheap) each form of the
package's products is timed beside the bare library work it stands for, made through ctypes
with every argument prepared beforehand (resident zs_vector handles, no checks):

  form                         bare library work it is compared with
  op @ x, op.matvec(x)         zs_spmv(N) on resident vectors
  op.T @ w, op.rmatvec(w)      zs_spmv(T) on resident vectors
  op.matvec(x, out=y[, a, b])  zs_spmv(N) (with alpha, beta)
  op.pair(x, w[, y=, z=])      zs_spmv_pair
on host backends (ref, cpu), where the package uses the arrays in place; on device backends
(cuda, hip) the bare work also copies the inputs in and the outputs out (zs_vector_upload,
zs_vector_download), as the package must.

The two are measured alternately, `--repeat` rounds of `--number` calls each, and the best
round of each is kept, so that a shared machine's load hits both alike. "layer" is the form's
time minus the bare call's. `--compare-package DIR` measures another copy of the package (for
example the one on main: `git archive main python/zsparse | tar -x -C /tmp/before`, then
`--compare-package /tmp/before/python/zsparse`) in the same run, on the same library.

  PYTHONPATH=python ZSPARSE_LIBRARY=build/libzsparse.so python3 bench/python/bench_overhead.py \\
      [--backend ref --backend cpu] [--n 16] [--dtype f64] [--compare-package DIR] [--json F]
      [--csv F]

--csv writes the columns of bench/data/*-python-overhead.csv (bench_csv.py: also from --json).
"""

import argparse
import ctypes
import importlib.util
import json
import os
import sys
import timeit

import numpy as np
import scipy.sparse as sp

import zsparse
from zsparse import _lib

import bench_csv  # beside this script


def load_other_package(path, name="zsparse_compared"):
    """Import the package folder `path` under another name (it loads the same library)."""
    init = os.path.join(path, "__init__.py")
    if not os.path.isfile(init):
        sys.exit(f"--compare-package {path}: no __init__.py there")
    spec = importlib.util.spec_from_file_location(name, init, submodule_search_locations=[path])
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def best_of(pairs, number, repeat):
    """{name: best seconds per call} for [(name, fn)], the functions taking turns each round."""
    best = {name: float("inf") for name, _ in pairs}
    for _ in range(repeat):
        for name, fn in pairs:
            best[name] = min(best[name], timeit.timeit(fn, number=number) / number)
    return best


def forms(pkg, op, x, w, y, z):
    """The package's product forms on operator `op` of package `pkg`: {name: fn}."""
    return {
        "op @ x": lambda: op @ x,
        "op.matvec(x)": lambda: op.matvec(x),
        "op.T @ w": lambda: op.T @ w,
        "op.rmatvec(w)": lambda: op.rmatvec(w),
        "op.matvec(x, out=y)": lambda: op.matvec(x, out=y),
        "op.matvec(x, out=y, alpha, beta)": lambda: op.matvec(x, out=y, alpha=0.5, beta=0.25),
        "op.pair(x, w)": lambda: op.pair(x, w),
        "op.pair(x, w, y=, z=)": lambda: op.pair(x, w, y=y, z=z),
    }


def bare_calls(ctx, op_p, lib, n, dt, x, y):
    """The library work of each form, through ctypes with prepared arguments: {name: fn}."""
    t = 1 if dt == np.float32 else 2
    vs = []
    for _ in range(4):
        v = ctypes.c_void_p()
        _lib.check(lib.zs_vector_create(ctypes.byref(v), ctx.handle(), None, t, n))
        lib.zs_vector_fill(v, 0.5)
        vs.append(v)
    xv, yv, wv, zv = vs
    spmv, pair = lib.zs_spmv, lib.zs_spmv_pair
    up, down = lib.zs_vector_upload, lib.zs_vector_download
    xa, ya = x.ctypes.data, y.ctypes.data  # (square matrix: every vector has one length)
    calls = {
        "zs_spmv N": lambda: spmv(op_p, 0, 1.0, xv, 0.0, yv),
        "zs_spmv T": lambda: spmv(op_p, 1, 1.0, wv, 0.0, zv),
        "zs_spmv N alpha, beta": lambda: spmv(op_p, 0, 0.5, xv, 0.25, yv),
        "zs_spmv_pair": lambda: pair(op_p, 1.0, xv, 0.0, yv, 1.0, wv, 0.0, zv),
        # What a device backend does for host arrays: copies in, the product, copies out.
        "upload + zs_spmv + download": lambda: (up(xv, xa), spmv(op_p, 0, 1.0, xv, 0.0, yv),
                                                down(yv, ya)),
        "upload + zs_spmv T + download": lambda: (up(wv, xa), spmv(op_p, 1, 1.0, wv, 0.0, zv),
                                                  down(zv, ya)),
        "upload 2 + zs_spmv + download": lambda: (up(xv, xa), up(yv, ya),
                                                  spmv(op_p, 0, 0.5, xv, 0.25, yv), down(yv, ya)),
        "upload 2 + pair + download 2": lambda: (up(xv, xa), up(wv, xa),
                                                 pair(op_p, 1.0, xv, 0.0, yv, 1.0, wv, 0.0, zv),
                                                 down(yv, ya), down(zv, ya)),
    }

    def free():
        for v in vs:
            lib.zs_vector_destroy(ctypes.byref(v))

    return calls, free


# Which bare call each form is compared with: on a host backend the product alone (the layer
# uses the arrays in place); on a device backend the product with the copies it needs for host
# arrays, so that "layer" is the Python layer's part alone there too.
BASE_COPIES = {
    "op @ x": "upload + zs_spmv + download",
    "op.matvec(x)": "upload + zs_spmv + download",
    "op.T @ w": "upload + zs_spmv T + download",
    "op.rmatvec(w)": "upload + zs_spmv T + download",
    "op.matvec(x, out=y)": "upload + zs_spmv + download",
    "op.matvec(x, out=y, alpha, beta)": "upload 2 + zs_spmv + download",
    "op.pair(x, w)": "upload 2 + pair + download 2",
    "op.pair(x, w, y=, z=)": "upload 2 + pair + download 2",
}
BASE = {
    "op @ x": "zs_spmv N",
    "op.matvec(x)": "zs_spmv N",
    "op.T @ w": "zs_spmv T",
    "op.rmatvec(w)": "zs_spmv T",
    "op.matvec(x, out=y)": "zs_spmv N",
    "op.matvec(x, out=y, alpha, beta)": "zs_spmv N alpha, beta",
    "op.pair(x, w)": "zs_spmv_pair",
    "op.pair(x, w, y=, z=)": "zs_spmv_pair",
}


def measure(backend, n, dt, number, repeat, other=None):
    """Rows {form, bare, form_s, bare_s, layer_s[, other_s, other_layer_s]} for one backend."""
    if n <= 256:
        A = sp.random(n, n, density=0.3, format="csr", random_state=2, dtype=dt)
    else:  # 5 entries a row
        A = zsparse.generate(f"erdos_renyi:rows={n},per_row=5,seed=2", dt)
    rng = np.random.default_rng(3)
    x, w = rng.random(n).astype(dt), rng.random(n).astype(dt)
    y, z = np.empty(n, dt), np.empty(n, dt)
    lib = _lib.lib()
    with zsparse.Context(backend=backend) as ctx, zsparse.encode(A, "csr") as E, \
            zsparse.Operator(E, context=ctx) as op:
        bare, free = bare_calls(ctx, op.handle(), lib, n, dt, x, y)
        in_place = getattr(op, "_wrap", False)  # host arrays used in place on this backend
        pairs = [(k, f) for k, f in bare.items()]
        pairs += [(k, f) for k, f in forms(zsparse, op, x, w, y, z).items()]
        keep = []
        if other is not None:
            octx = other.Context(backend=backend)
            oop = other.Operator(other.encode(A, "csr"), context=octx)
            keep = [oop, octx]
            pairs += [("other " + k, f) for k, f in forms(other, oop, x, w, y, z).items()]
        for _, f in pairs:
            f()  # warm up: work vectors, OpenMP threads
        try:
            best = best_of(pairs, number, repeat)
        finally:
            free()
            for o in keep:
                o.close()
    rows = []
    for form, base in (BASE if in_place else BASE_COPIES).items():
        r = {"backend": backend, "form": form, "bare": base, "form_s": best[form],
             "bare_s": best[base], "layer_s": best[form] - best[base]}
        if other is not None:
            r["other_s"] = best["other " + form]
            r["other_layer_s"] = best["other " + form] - best[base]
        rows.append(r)
    copies = best["upload + zs_spmv + download"]
    return rows, {"backend": backend, "bare_spmv_s": best["zs_spmv N"],
                  "upload_spmv_download_s": copies}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backend", action="append",
                    help="backend (repeatable; default ref and cpu, and cuda/hip where usable)")
    ap.add_argument("--n", type=int, default=16,
                    help="matrix size (default 16; a large n shows what copies cost)")
    ap.add_argument("--dtype", default="f64", choices=["f32", "f64"])
    ap.add_argument("--number", type=int, default=20000, help="calls per round")
    ap.add_argument("--repeat", type=int, default=7, help="rounds; the best is kept")
    ap.add_argument("--compare-package", help="another zsparse package folder, measured too")
    ap.add_argument("--json", help="write the figures to this file")
    ap.add_argument("--csv", help="write the figures as bench/data's CSV (µs) to this file")
    args = ap.parse_args()
    dt = np.float32 if args.dtype == "f32" else np.float64
    other = load_other_package(args.compare_package) if args.compare_package else None
    usable = [b["name"] for b in zsparse.devices()["backends"] if b["usable"]]
    backends = args.backend or [b for b in ("ref", "cpu", "cuda", "hip") if b in usable]
    print(f"# zsparse {zsparse.library_version()} ({zsparse.library_path()}), numpy "
          f"{np.__version__}, python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load "
          f"average {' '.join(f'{v:.1f}' for v in os.getloadavg())}, {args.n} x {args.n} "
          f"{args.dtype}, best of {args.repeat} rounds of {args.number} calls")
    if other is not None:
        print(f"# compared: the package in {args.compare_package} (columns 'compared')")
    out = {"rows": [], "reference": []}
    for be in backends:
        rows, ref = measure(be, args.n, dt, args.number, args.repeat, other)
        out["rows"] += rows
        out["reference"].append(ref)
        print(f"\n{be}: zs_spmv alone {ref['bare_spmv_s'] * 1e6:.2f} us; upload + zs_spmv + "
              f"download {ref['upload_spmv_download_s'] * 1e6:.2f} us")
        head = f"  {'form':<34} {'bare call':<30} {'form':>8} {'bare':>8} {'layer':>8}"
        if other is not None:
            head += f" {'compared':>9} {'layer':>8}"
        print(head + "   (us per call)")
        for r in rows:
            line = (f"  {r['form']:<34} {r['bare']:<30} {r['form_s'] * 1e6:8.2f} "
                    f"{r['bare_s'] * 1e6:8.2f} {r['layer_s'] * 1e6:8.2f}")
            if other is not None:
                line += f" {r['other_s'] * 1e6:9.2f} {r['other_layer_s'] * 1e6:8.2f}"
            print(line, flush=True)
    write_json(args.json, out)
    bench_csv.write_csv(args.csv, out)
    return 0


def write_json(path, figures):
    """--json: every figure, for scripts (nothing when path is None)."""
    if path:
        with open(path, "w") as fh:
            json.dump(figures, fh, indent=1)


if __name__ == "__main__":
    sys.exit(main())
