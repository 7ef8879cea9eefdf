#!/usr/bin/env python3
"""bench_csv.py — the Python benches' figures as the CSV files of bench/data.

bench_overhead.py and bench_scipy.py write these with `--csv FILE`; this script turns a JSON file
one of them wrote with `--json` into the same CSV, so an earlier run drops into bench/data too:

  python3 bench/python/bench_csv.py overhead.json bench/data/DEVICE-python-overhead.csv
  python3 bench/python/bench_csv.py scipy.json bench/data/DEVICE-python-scipy.csv

The kind of file is told by its keys ("rows": bench_overhead.py, "matrices": bench_scipy.py).
Times are written in µs (overhead) and ms or s (scipy); the columns are OVERHEAD and SCIPY below
(bench/data/README.md says what each means). Plain Python 3: no NumPy needed.
"""
import csv
import json
import sys

OVERHEAD = ["backend", "form", "bare", "form_us", "bare_us", "layer_us", "spmv_alone_us",
            "compared_us", "compared_layer_us"]
SCIPY = ["matrix", "nnz", "dtype", "format", "backend",
         "scipy_ax_ms", "host_ax_ms", "prod_ax_ms", "copy_ax_ms", "ax_speedup",
         "scipy_atx_ms", "host_atx_ms", "prod_atx_ms", "atx_speedup",
         "scipy_bicg_s", "scipy_bicg_its", "scipy_bicg_on_op_s", "scipy_bicg_on_op_its",
         "zs_solve_s", "zs_solve_its", "bicg_speedup"]


def num(v, scale, digits):
    """v * scale with `digits` decimals; '' when the figure is missing."""
    return "" if v is None else f"{v * scale:.{digits}f}"


def overhead_rows(figures):
    """bench_overhead.py's {"rows", "reference"} as OVERHEAD rows (µs)."""
    alone = {r["backend"]: r["bare_spmv_s"] for r in figures.get("reference", [])}
    us = lambda v: num(v, 1e6, 3)  # noqa: E731
    return [{"backend": r["backend"], "form": r["form"], "bare": r["bare"],
             "form_us": us(r["form_s"]), "bare_us": us(r["bare_s"]), "layer_us": us(r["layer_s"]),
             "spmv_alone_us": us(alone.get(r["backend"])), "compared_us": us(r.get("other_s")),
             "compared_layer_us": us(r.get("other_layer_s"))} for r in figures["rows"]]


def ratio(a, b):
    return "" if a is None or not b else f"{a / b:.3f}"


def scipy_rows(results):
    """bench_scipy.py's {"matrices"} as SCIPY rows (products in ms, solves in s)."""
    out = []
    for r in results["matrices"]:
        ms = lambda k: num(r.get(k), 1e3, 4)  # noqa: E731
        s = lambda k: num(r.get(k), 1, 5)  # noqa: E731
        out.append({
            "matrix": r["matrix"], "nnz": r["nnz"], "dtype": r["dtype"].replace("float", "f"),
            "format": r["format"], "backend": r["backend"],
            "scipy_ax_ms": ms("scipy_Ax_s"), "host_ax_ms": ms("host_Ax_s"),
            "prod_ax_ms": ms("prod_Ax_s"), "copy_ax_ms": ms("copy_Ax_s"),
            "ax_speedup": ratio(r["scipy_Ax_s"], r["host_Ax_s"]),
            "scipy_atx_ms": ms("scipy_ATx_s"), "host_atx_ms": ms("host_ATx_s"),
            "prod_atx_ms": ms("prod_ATx_s"), "atx_speedup": ratio(r["scipy_ATx_s"], r["host_ATx_s"]),
            "scipy_bicg_s": s("scipy_bicg_s"), "scipy_bicg_its": r.get("scipy_bicg_its", ""),
            "scipy_bicg_on_op_s": s("scipy_bicg_on_op_s"),
            "scipy_bicg_on_op_its": r.get("scipy_bicg_on_op_its", ""),
            "zs_solve_s": s("zs_solve_s"), "zs_solve_its": r.get("zs_solve_its", ""),
            "bicg_speedup": ratio(r.get("scipy_bicg_s"), r.get("zs_solve_s"))})
    return out


def write_csv(path, figures):
    """Write the CSV of either bench's figures to `path` (nothing when path is None)."""
    if not path:
        return
    if "rows" in figures:
        cols, rows = OVERHEAD, overhead_rows(figures)
    elif "matrices" in figures:
        cols, rows = SCIPY, scipy_rows(figures)
    else:
        raise ValueError("neither bench_overhead.py's figures (\"rows\") nor bench_scipy.py's "
                         "(\"matrices\")")
    with open(path, "w", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def main(argv):
    if len(argv) != 3 or argv[1].startswith("-"):
        print("usage: bench_csv.py FIGURES.json OUT.csv", file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as fh:
            figures = json.load(fh)
        write_csv(argv[2], figures)
    except (OSError, ValueError, KeyError, TypeError) as e:
        print(f"bench_csv.py: {argv[1]}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
