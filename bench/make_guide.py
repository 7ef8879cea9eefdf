#!/usr/bin/env python3
"""Write docs/performance.md from bench/guide.md.in and the CSV files of bench/data/.

    python3 bench/make_guide.py                       # rewrites docs/performance.md
    python3 bench/make_guide.py -o OUT --compare REF  # writes OUT, exit 1 if it differs from REF

The template is Markdown with tokens @@NAME@@ or @@NAME ARG@@; each token is replaced by what
the function NAME below returns (a table or a figure), computed from the CSV files. So every
figure in a table of the guide comes from committed data, and a new device run changes the guide
only through its data file (bench/data/README.md says where each came from).

Every ratio is computed inside one file, that is one run on one device: an H100 time is never
divided by an H200 time. Speed-up = baseline time / zsparse time (> 1: zsparse is faster).
Plain Python 3 (no NumPy).
"""
import argparse
import csv
import difflib
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")

VENDOR = {"csr-alg1": "CSR ALG1", "csr-alg2": "CSR ALG2", "coo-alg1": "COO", "sell32": "SELL-32"}
ONE_COPY_T = ("csr-alg1", "coo-alg1", "sell32")  # cuSPARSE transposed products on one copy of A
SUITE = ("lap2d", "st27", "er", "rmat", "band")
LAYERS = ("er16k-1%", "er16k-5%", "er8k-5%")
# The lookup-floor probe's device (its first output line): SMs and the SM clock it ran at.
PROBE_SMS, PROBE_GHZ = 132, 1.98


class Bench:
    """One zs-bench-gpu CSV: rows keyed by (matrix, type, library, kernel, op)."""

    def __init__(self, name):
        self.name = name
        with open(os.path.join(DATA, name), newline="") as f:
            self.rows = list(csv.DictReader(f))
        self.key = {(r["matrix"], r["type"], r["library"], r["kernel"], r["op"]): r for r in self.rows}

    def row(self, m, t, lib, kernel, op):
        return self.key.get((m, t, lib, kernel, op))

    def us(self, m, t, lib, kernel, op, cold=False):
        r = self.row(m, t, lib, kernel, op)
        v = r and r["time_cold_us" if cold else "time_warm_us"]
        return float(v) if v else None

    def zs(self, m, t, kernel, op="N", cold=False):
        return self.us(m, t, "zsparse", kernel, op, cold)

    def best(self, m, t, op="N", kernels=tuple(VENDOR), cold=False):
        """(time, name) of the fastest cuSPARSE kernel of the cell."""
        found = [(self.us(m, t, "cusparse", k, op, cold), VENDOR[k]) for k in kernels]
        found = [x for x in found if x[0] is not None]
        return min(found) if found else (None, "")

    def cells(self, matrices):
        types = sorted({r["type"] for r in self.rows}, reverse=True)  # f64 first
        return [(m, t) for m in matrices for t in types if any(r["matrix"] == m and r["type"] == t for r in self.rows)]

    def ceiling(self):
        """The run's read ceiling in GB/s, from bytes / time / frac of its rows (median)."""
        c = sorted(float(r["bytes"]) / float(r["time_warm_us"]) / 1e3 / float(r["frac_ceiling"])
                   for r in self.rows if r["frac_ceiling"] and float(r["frac_ceiling"]) > 0)
        return c[len(c) // 2]

    def nnz(self, m):
        return next(int(r["nnz"]) for r in self.rows if r["matrix"] == m)

    def by_size(self):
        """The file's matrices, fewest nonzeros first (equal sizes by name)."""
        return sorted({r["matrix"] for r in self.rows}, key=lambda m: (self.nnz(m), m))


def rows_of(name):
    with open(os.path.join(DATA, name), newline="") as f:
        return list(csv.DictReader(f))


def x(a, b):
    """Speed-up a / b as text."""
    return "–" if a is None or b is None else f"{a / b:.2f}×"


def f1(v):
    return "–" if v is None else f"{v:.1f}"


NUMERIC = re.compile(r"^(–|-?[0-9][0-9.,e+-]*( ?[×%M]|\.)?)( \(.*\))?$")


def table(head, rows):
    """A Markdown table; columns whose cells are all numbers are aligned right."""
    right = [all(NUMERIC.match(str(r[i])) for r in rows) for i in range(len(head))]
    out = ["| " + " | ".join(head) + " |", "|" + "|".join("---:" if r else "---" for r in right) + "|"]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def best_of(cands):
    """The largest speed-up of [(ratio, where)], as 'R× (where)'."""
    cands = [c for c in cands if c[0] is not None]
    r, where = max(cands)
    return f"{r:.2f}× ({where})"


def ratio(a, b):
    return None if a is None or b is None else a / b


# ---- figures used in the text ----

def ceiling(arg):
    return f"{Bench(arg).ceiling():.0f}"


def floor_us(arg):
    """Bytes of one zsparse row at the run's read ceiling: FILE MATRIX TYPE KERNEL OP."""
    name, m, t, k, op = arg.split()
    b = Bench(name)
    return f"{float(b.row(m, t, 'zsparse', k, op)['bytes']) / b.ceiling() / 1e3:.1f}"


# ---- the headline ----

def headline(_):
    rnd, few, gc, gp = (Bench(n) for n in ("h100-suite-random.csv", "h100-suite-few-valued.csv",
                                           "h100-gcsb.csv", "h100-gcsb-pair.csv"))
    cci = Bench("h100-cci.csv")
    rows = []

    def spmv(b, kernel, matrices, base):
        out = []
        for m, t in b.cells(matrices):
            ref = b.us(m, t, "cusparse", base, "N") if base else b.best(m, t)[0]
            out.append((ratio(ref, b.zs(m, t, kernel)), f"{m} {t}"))
        return best_of(out)

    rows.append(["CSR", "cuda", "H100", "SpMV", "cuSPARSE CSR ALG1", spmv(rnd, "csr", SUITE, "csr-alg1")])
    rows.append(["CSR", "cuda", "H100", "SpMVT, one copy (atomic)", "cuSPARSE CSR transposed",
                 best_of([(ratio(rnd.us(m, t, "cusparse", "csr-alg1", "T"), rnd.zs(m, t, "csr-atomic", "T")), f"{m} {t}")
                          for m, t in rnd.cells(SUITE)])])
    rows.append(["COO", "cuda", "H100", "SpMV", "cuSPARSE COO", spmv(rnd, "coo", SUITE, "coo-alg1")])
    rows.append(["CSR-dtANS", "cuda", "H100", "SpMV, 64 values", "best cuSPARSE format", spmv(few, "dtans", SUITE[1:], None)])
    rows.append(["CSR-dtANS", "cuda", "H100", "SpMV, random values", "best cuSPARSE format", spmv(rnd, "dtans", SUITE, None)])
    rows.append(["GCSB", "cuda", "H100", "SpMV + SpMVT, deterministic", "cuSPARSE CSR ALG1 + transposed",
                 best_of([(ratio(gc.us(m, t, "cusparse", "csr-alg1", "N") + gc.us(m, t, "cusparse", "csr-alg1", "T"),
                                 gc.zs(m, t, "gcsb") + gc.zs(m, t, "gcsb-det", "T")), f"{m} {t}")
                          for m, t in gc.cells(SUITE + LAYERS)])])
    rows.append(["GCSB", "cuda", "H100", "pair in one call (`zs_spmv_pair`)", "cuSPARSE CSR ALG1 + transposed",
                 best_of([(ratio(gp.us(m, t, "cusparse", "csr-alg1", "N") + gp.us(m, t, "cusparse", "csr-alg1", "T"),
                                 gp.zs(m, t, "gcsb-pair", "P")), f"{m} {t}") for m, t in gp.cells(SUITE)])])
    cci_best = []
    for m, t in cci.cells(("st27", "elast77")):
        mine = min(cci.zs(m, t, k) for k in ("cci", "cci:slices=4,opcodes=auto", "cci:slices=2,opcodes=auto"))
        cci_best.append((ratio(cci.best(m, t)[0], mine), f"{m} {t}"))
    rows.append(["CCI", "cuda", "H100", "SpMV", "best cuSPARSE format", best_of(cci_best)])
    vans = rows_of("h100-vans.csv")
    rows.append(["MAT-VANS", "cuda", "H100", "one layer, no upload", "cuBLAS int8 GemmEx",
                 best_of([(float(v["int8_ms"]) / float(v["pairs_ms"]), f"N = {v['n']}") for v in vans])])
    bicg = rows_of("h100-bicg.csv")
    vendor = {r["matrix"]: float(r["time_per_iter_s"]) for r in bicg if r["library"] == "cusparse"}
    rows.append(["BiCG solver", "cuda", "H100", "time per iteration", "cuSPARSE BiCG (same vectors)",
                 best_of([(vendor[r["matrix"]] / float(r["time_per_iter_s"]), f"{r['matrix']}, {r['format']}")
                          for r in bicg if r["library"] == "zsparse"])])
    cpu = cpu_index("cpu-lap2d.csv")
    for fmt in ("csr", "coo"):
        rows.append([fmt.upper(), "cpu", "2-core CPU", "SpMV", "librsb",
                     best_of([(ratio(cpu[("lap2d-2048", "librsb", t, "N")], cpu[("lap2d-2048", "zsparse cpu " + fmt, t, "N")]),
                               f"lap2d-2048 {t}") for t in ("f64", "f32")])])
    for fmt in ("gcsb", "csb"):
        rows.append([fmt.upper(), "cpu", "2-core CPU", "pair (`transpose=atomic`)", "librsb N + T",
                     best_of([(ratio(cpu[("lap2d-2048", "librsb", t, "N")] + cpu[("lap2d-2048", "librsb", t, "T")],
                                     cpu[("lap2d-2048", f"zsparse cpu {fmt}, transpose=atomic", t, "P")]), f"lap2d-2048 {t}")
                              for t in ("f64", "f32")])])
    dt = cpu_index("cpu-dtans.csv")
    mats = sorted({k[0] for k in dt})
    rows.append(["CSR-dtANS", "cpu", "2-core CPU", "SpMV", "librsb",
                 best_of([(ratio(dt[(m, "librsb", t, "N")], dt[(m, "zsparse cpu dtans", t, "N")]), f"{m} {t}")
                          for m in mats for t in ("f64", "f32")])])
    return table(["format", "backend", "device", "operation", "baseline", "best speed-up (matrix, type)"], rows)


# ---- CSR and COO on the GPU ----

def csr_spmv(name):
    b = Bench(name)
    ceil = b.ceiling()
    rows = []
    for m, t in b.cells(SUITE):
        mine = b.zs(m, t, "csr")
        alg1 = b.us(m, t, "cusparse", "csr-alg1", "N")
        best, which = b.best(m, t)
        floor = float(b.row(m, t, "zsparse", "csr", "N")["bytes"]) / ceil / 1e3
        rows.append([m, t, f1(mine), f1(floor), f1(alg1), x(alg1, mine), f"{f1(best)} ({which})", x(best, mine)])
    return table(["matrix", "type", "CSR µs", "byte floor µs", "ALG1 µs", "vs ALG1 ×", "best cuSPARSE µs", "vs best ×"], rows)


def csr_spmvt(name):
    b = Bench(name)
    rows = []
    for m, t in b.cells(SUITE):
        at, det = b.zs(m, t, "csr-atomic", "T"), b.zs(m, t, "csr-det", "T")
        vt = b.us(m, t, "cusparse", "csr-alg1", "T")
        best, which = b.best(m, t, "T", ONE_COPY_T)
        stored = b.us(m, t, "cusparse", "csr-alg1-stored-At", "T")
        rows.append([m, t, f1(at), f1(det), f1(vt), x(vt, at), x(vt, det), f"{f1(best)} ({which})", f1(stored)])
    return table(["matrix", "type", "atomic µs", "deterministic µs", "cuSPARSE CSR Aᵀx µs", "atomic ×", "deterministic ×",
                  "best one-copy cuSPARSE Aᵀx µs", "cuSPARSE stored Aᵀ µs"], rows)


def coo(name):
    b = Bench(name)
    rows = []
    for m, t in b.cells(SUITE):
        n, vn = b.zs(m, t, "coo"), b.us(m, t, "cusparse", "coo-alg1", "N")
        tt, vt = b.zs(m, t, "coo-atomic", "T"), b.us(m, t, "cusparse", "coo-alg1", "T")
        rows.append([m, t, f1(n), f1(vn), x(vn, n), f1(tt), f1(vt), x(vt, tt)])
    return table(["matrix", "type", "COO Ax µs", "cuSPARSE COO Ax µs", "×", "COO Aᵀx atomic µs", "cuSPARSE COO Aᵀx µs", "×"], rows)


def split(name):
    """CSR's nonzero-split kernel beside the row blocks, our COO and cuSPARSE (device-split.sh)."""
    b = Bench(name)
    rows = []
    for m, t in b.cells(list(dict.fromkeys(r["matrix"] for r in b.rows))):
        splits = sorted({r["kernel"] for r in b.rows if r["matrix"] == m and r["type"] == t
                         and r["library"] == "zsparse" and r["op"] == "N" and "kernel=split" in r["kernel"]})
        found = [(b.zs(m, t, k), k.split("@", 1)[1]) for k in splits]
        found = [f for f in found if f[0] is not None]
        sp, which = min(found) if found else (None, "")
        which = which.replace("kernel=split", "").replace("experimental.", "").strip(",") or "default tile"
        best, vendor = b.best(m, t)
        rows.append([m, t, f1(b.zs(m, t, "csr")), f"{f1(sp)} ({which})", f1(b.zs(m, t, "coo")),
                     f"{f1(best)} ({vendor})", x(b.zs(m, t, "csr"), sp), x(best, sp)])
    return table(["matrix", "type", "CSR µs", "split µs (options)", "COO µs", "best cuSPARSE µs",
                  "split vs CSR ×", "split vs best cuSPARSE ×"], rows)


def split_kernel(opts):
    """The split kernel's candidate with the experimental options opts ("a=b,c=d"; "" for none)."""
    return "csr@kernel=split" + "".join(",experimental." + o for o in opts.split(",") if o)


def timed_cell(measured, v, p):
    """A measured time with its prediction in parentheses, or before the run the prediction alone."""
    if measured:
        return "–" if v is None else f1(v) + (f" ({p:.1f})" if p is not None else "")
    return "–" if p is None else f"({p:.1f})"


def predicted_only(tbl, name):
    """A table of predictions whose run (`SET=stage bench/gpu/device-split.sh`) has not come."""
    return tbl + f"\n\nPredicted only (in parentheses): `SET=stage bench/gpu/device-split.sh` writes `{name}`."


SPLIT_STAGES = (("plain", ""), ("vector", "split_stage=vector"), ("early", "split_stage=early"),
                ("vector + early", "split_stage=vector_early"), ("pipelined", "split_stage=pipelined"),
                ("fused", "long_rows=fused"), ("v + e, fused", "split_stage=vector_early,long_rows=fused"),
                ("pipelined, fused", "split_stage=pipelined,long_rows=fused"))


def split_stage(arg):
    """The split kernel's tile staging variants beside cuSPARSE: DATA PREDICTION. Measured (predicted)
    where DATA exists; until then the predictions alone, with the vendor's best of the last split run."""
    name, pred_name = arg.split()
    pred = {(r["matrix"], r["type"], r["kernel"]): float(r["predicted_us"]) for r in rows_of(pred_name)}
    measured = os.path.exists(os.path.join(DATA, name))
    b = Bench(name if measured else "h100-split.csv")
    cases = list(dict.fromkeys((r["matrix"], r["type"]) for r in rows_of(pred_name)))
    rows = []
    for m, t in cases:
        cells, ours = [], []
        for _, opts in SPLIT_STAGES:
            k = split_kernel(opts)
            v, p = (b.zs(m, t, k) if measured else None), pred.get((m, t, k))
            cells.append(timed_cell(measured, v, p))
            if v is not None:
                ours.append(v)
        best, vendor = b.best(m, t)
        rows.append([m, t] + cells + [f"{f1(best)} ({vendor})"] + ([x(best, min(ours, default=None))] if measured else []))
    head = ["matrix", "type"] + [label + " µs" for label, _ in SPLIT_STAGES]
    if not measured:
        return predicted_only(table(head + ["best cuSPARSE µs (h100-split.csv)"], rows), name)
    return table(head + ["best cuSPARSE µs", "best of ours vs cuSPARSE ×"], rows)


# The staging columns of the run after the choice: plain, each forced variant, then the default
# (csr@kernel=split: the variant its value type gets).
SPLIT_DEFAULT = (("plain", "split_stage=plain"), ("vector", "split_stage=vector"),
                 ("early", "split_stage=early"), ("vector + early", "split_stage=vector_early"),
                 ("split default", ""))


def split_default(arg):
    """The split kernel's staging by value type against plain and the forced variants, with CSR's
    default and cuSPARSE's best of the same run: DATA PREDICTION. Measured (predicted) where DATA
    exists, the predictions only beside a run on their device (the files' first word: h100, h200);
    until then the predictions alone, with the vendor's best of h100-split-stage.csv."""
    name, pred_name = arg.split()
    pred = {(r["matrix"], r["type"], r["kernel"]): float(r["predicted_us"]) for r in rows_of(pred_name)}
    measured = os.path.exists(os.path.join(DATA, name))
    if measured and name.split("-")[0] != pred_name.split("-")[0]:
        pred = {}
    b = Bench(name if measured else "h100-split-stage.csv")
    rows = []
    for m, t in dict.fromkeys((r["matrix"], r["type"]) for r in rows_of(pred_name)):
        kernels = [split_kernel(opts) for _, opts in SPLIT_DEFAULT] + ["csr"]
        cells = [timed_cell(measured, b.zs(m, t, k) if measured else None, pred.get((m, t, k)))
                 for k in kernels]
        best, vendor = b.best(m, t)
        row = [m, t] + cells + [f"{f1(best)} ({vendor})"]
        if measured:
            plain, mine = b.zs(m, t, kernels[0]), b.zs(m, t, kernels[-2])
            row += [x(plain, mine), x(best, min(v for v in (mine, b.zs(m, t, "csr")) if v is not None))]
        rows.append(row)
    head = ["matrix", "type"] + [label + " µs" for label, _ in SPLIT_DEFAULT] + ["CSR default µs"]
    if not measured:
        return predicted_only(table(head + ["best cuSPARSE µs (h100-split-stage.csv)"], rows), name)
    return table(head + ["best cuSPARSE µs", "split default vs plain ×", "CSR default vs cuSPARSE ×"], rows)


def split_spans(arg):
    """The split kernel's spanning rows by a second kernel (its default) and by the tile that ends
    each (split_spans=wait), with CSR's default and cuSPARSE's best of the same run: DATA
    PREDICTION. Measured (predicted) where DATA exists, the predictions only beside a run on their
    device; until then the predictions alone."""
    name, pred_name = arg.split()
    pred = {(r["matrix"], r["type"], r["kernel"]): float(r["predicted_us"]) for r in rows_of(pred_name)}
    measured = os.path.exists(os.path.join(DATA, name))
    if measured and name.split("-")[0] != pred_name.split("-")[0]:
        pred = {}
    b = Bench(name) if measured else None
    rows = []
    for m, t in dict.fromkeys((r["matrix"], r["type"]) for r in rows_of(pred_name)):
        kernels = [split_kernel(""), split_kernel("split_spans=wait"), "csr"]
        cells = [timed_cell(measured, b.zs(m, t, k) if measured else None, pred.get((m, t, k)))
                 for k in kernels]
        row = [m, t] + cells
        if measured:
            best, vendor = b.best(m, t)
            second, wait = b.zs(m, t, kernels[0]), b.zs(m, t, kernels[1])
            row += [f"{f1(best)} ({vendor})", x(second, wait), x(best, wait)]
        rows.append(row)
    head = ["matrix", "type", "second kernel µs", "wait µs", "CSR default µs"]
    if not measured:
        return predicted_only(table(head, rows), name).replace("SET=stage", "SET=spans")
    return table(head + ["best cuSPARSE µs", "wait vs second kernel ×", "wait vs cuSPARSE ×"], rows)


def kern_defaults(arg):
    """The plain kernels' defaults of two device-kern.sh runs, each beside cuSPARSE's best of its run."""
    old, new = (Bench(n) for n in arg.split())
    rows = []
    for m, t in new.cells(list(dict.fromkeys(r["matrix"] for r in new.rows))):
        ours = {k: (old.zs(m, t, k), new.zs(m, t, k)) for k in ("csr", "sell")}
        (ob, _), (nb, which) = old.best(m, t), new.best(m, t)
        mine = min(v for v in (ours["csr"][1], ours["sell"][1]) if v is not None)
        omine = min((v for v in (ours["csr"][0], ours["sell"][0]) if v is not None), default=None)
        rows.append([m, t, f1(ours["csr"][0]), f1(ours["csr"][1]), f1(ours["sell"][0]), f1(ours["sell"][1]),
                     f"{f1(nb)} ({which})", x(ob, omine), x(nb, mine)])
    return table(["matrix", "type", "CSR before µs", "CSR now µs", "SELL before µs", "SELL now µs",
                  "best cuSPARSE now µs", "speed-up of our faster one, before ×", "now ×"], rows)


# ---- SELL-C-sigma ----

def sell(name):
    """SELL SpMV beside our CSR and cuSPARSE (bench/gpu/device-sell.sh); a line until measured."""
    if not os.path.exists(os.path.join(DATA, name)):
        return f"Not yet measured on a GPU: `bench/gpu/device-sell.sh` writes `{name}`."
    b = Bench(name)
    rows = []
    for m, t in b.cells(SUITE):
        mine, csr, sell32 = b.zs(m, t, "sell"), b.zs(m, t, "csr"), b.us(m, t, "cusparse", "sell32", "N")
        best, which = b.best(m, t)
        r, c = b.row(m, t, "zsparse", "sell", "N"), b.row(m, t, "zsparse", "csr", "N")
        size = f"{int(r['bytes']) / int(c['bytes']):.2f}" if r and c else "–"
        rows.append([m, t, f1(mine), f1(csr), x(csr, mine), f1(sell32), x(sell32, mine), f"{f1(best)} ({which})",
                     x(best, mine), size])
    return table(["matrix", "type", "SELL µs", "our CSR µs", "vs CSR ×", "cuSPARSE SELL-32 µs", "vs SELL-32 ×",
                  "best cuSPARSE µs", "vs best ×", "bytes / CSR's"], rows)


def sell_lanes(name):
    """SELL SpMV by threads a row (experimental.sell_lanes; natural order and sorted windows)
    beside cuSPARSE's SELL-32, one zs-bench-gpu process per matrix (.ab/callL: FILE)."""
    b = Bench(name)
    nat, srt = "sell", "sell:sigma=4096"
    rows = []
    for m, t in b.cells(b.by_size()):
        one = b.zs(m, t, nat)
        cells = [b.zs(m, t, nat if k == 1 else f"{nat}@experimental.sell_lanes={k}") for k in (1, 2, 4)]
        sorted1, sorted2 = b.zs(m, t, srt), b.zs(m, t, f"{srt}@experimental.sell_lanes=2")
        sell32 = b.us(m, t, "cusparse", "sell32", "N")
        best = min(v for v in cells if v is not None)
        rows.append([m, t, f"{b.nnz(m) / 1e6:.2f}"] + [f1(v) for v in cells] + [x(one, cells[2]), f1(sorted1),
                    f1(sorted2), f1(b.zs(m, t, "csr")), f1(sell32), x(sell32, best)])
    return table(["matrix", "type", "nnz M", "1 thread µs", "2 µs", "4 µs", "4 vs 1 ×", "sorted, 1 µs",
                  "sorted, 2 µs", "our CSR µs", "cuSPARSE SELL-32 µs", "best of 1/2/4: speed-up over SELL-32"], rows)


def sell_lanes_default(name):
    """SELL SpMV with the default threads a row against one thread forced, natural order and
    sorted windows, beside our CSR and cuSPARSE's SELL-32 (one process per matrix)."""
    b = Bench(name)
    nat, srt = "sell", "sell:sigma=4096"
    rows = []
    for m, t in b.cells(b.by_size()):
        n1, nd = b.zs(m, t, f"{nat}@experimental.sell_lanes=1"), b.zs(m, t, nat)
        s1, sd = b.zs(m, t, f"{srt}@experimental.sell_lanes=1"), b.zs(m, t, srt)
        sell32 = b.us(m, t, "cusparse", "sell32", "N")
        rows.append([m, t, f1(n1), f1(nd), x(n1, nd), f1(s1), f1(sd), x(s1, sd), f1(b.zs(m, t, "csr")), f1(sell32),
                     x(sell32, min(nd, sd))])
    return table(["matrix", "type", "natural, 1 thread µs", "natural, default µs", "default vs 1 ×", "sorted, 1 µs",
                  "sorted, default µs", "default vs 1 ×", "our CSR µs", "cuSPARSE SELL-32 µs",
                  "our best SELL: speed-up over SELL-32"], rows)


def evict_l2(name):
    """Evict-first against plain matrix loads (experimental.evict_first) for CSR and SELL, timed
    by zs-bench-auto beside the others of each line's set (rows: case, the set after the dash)."""
    rows_in = rows_of(name)
    t = {(r["case"], r["candidate"]): float(r["time_us"]) for r in rows_in if r["op"] == "N" and r["ok"] == "1"}
    nnz = {r["case"]: int(r["nnz"]) for r in rows_in}
    byte = {(r["case"], r["candidate"]): int(r["bytes"]) for r in rows_in}
    off = "@experimental.evict_first=off"
    rows = []
    for case in dict.fromkeys(k[0] for k in t):
        m, _, which = case.partition("-")
        cells = []
        for c in ("csr", "sell", "sell:sigma=4096"):
            on_, off_ = t.get((case, c)), t.get((case, c + off))
            cells += [f1(on_), f1(off_), x(on_, off_)]
        rows.append([m, "6 candidates" if which == "six" else "6 + the device list", f"{nnz[case] / 1e6:.1f}",
                     f"{byte.get((case, 'csr'), 0) / 1e6:.0f}"] + cells)
    return table(["matrix", "operators in the process", "nnz M", "CSR MB", "CSR evict-first µs", "CSR plain µs",
                  "plain ×", "SELL evict-first µs", "SELL plain µs", "plain ×", "sorted SELL evict-first µs",
                  "sorted plain µs", "plain ×"], rows)


def dtans5_evict(name):
    """CSR-dtANS version 5's words read evict-first (main's module) or plainly (the same module
    with DTANS5_WORD a plain load), zs-bench-gpu, best of the rounds in the `round` column."""
    t = {}
    for r in rows_of(name):
        if r["op"] == "N" and r["ok"] == "1" and r["kernel"].startswith("dtans"):
            k = (r["matrix"], r["type"], r["kernel"], r["module"])
            t[k] = min(t.get(k, float("inf")), float(r["time_warm_us"]))
    rows = []
    for m, ty, kern in dict.fromkeys(k[:3] for k in t):
        ef, plain = t.get((m, ty, kern, "ef")), t.get((m, ty, kern, "dt5plain"))
        if kern != "dtans:row_kind=packed" and m != "st7":  # st7's default: version 5 templates
            continue
        rows.append([m, ty, kern, f1(ef), f1(plain), x(ef, plain)])
    return table(["matrix", "type", "format", "evict-first µs", "plain µs", "plain ×"], rows)


def module_ab(name, first, second, first_label, second_label):
    """Two modules timed by zs-bench-auto (cases NAME-MODULE-ROUND), best of the rounds, op N:
    CSR-dtANS's version 5 lines (versions 2-4, over 100 µs here, left out), SELL beside as the
    control (its code the same in both modules)."""
    t = {}
    for r in rows_of(name):
        if r["op"] == "N" and r["ok"] == "1":
            m, module, _ = r["case"].rsplit("-", 2)
            k = (m, r["type"], r["candidate"], module)
            t[k] = min(t.get(k, float("inf")), float(r["time_us"]))
    rows = []
    for m, ty in dict.fromkeys(k[:2] for k in t):
        for kern in ("dtans", "dtans:row_kind=packed"):
            a, b = t.get((m, ty, kern, first)), t.get((m, ty, kern, second))
            if a is None or a > 100:
                continue
            s_a, s_b = t.get((m, ty, "sell", first)), t.get((m, ty, "sell", second))
            rows.append([m, ty, kern, f1(a), f1(b), x(a, b), f1(s_a), f1(s_b), x(s_a, s_b)])
    return table(["matrix", "type", "format", f"{first_label} µs", f"{second_label} µs", f"{second_label} ×",
                  f"SELL µs (module {first})", f"SELL µs (module {second})", "×"], rows)


def dtans5_evict_auto(name):
    """Version 5's words evict-first (module ef) or plain (dt5plain), beside the device list."""
    return module_ab(name, "ef", "dt5plain", "evict-first", "plain")


def occupancy_memo(name):
    """CSR-dtANS asking its occupancy every call (module before) or once per operator (memo)."""
    return module_ab(name, "before", "memo", "asked every call", "asked once")


def small_calls(name):
    """Products of a few µs in one zs-bench-gpu process (--batch 16): each kernel's time between
    events and the host's wall time a call (host_mean_us), against the run's launch floor."""
    b = Bench(name)
    floor = next((float(r["launch_floor_us"]) for r in b.rows if r.get("launch_floor_us")), None)
    rows = []
    for m in b.by_size():
        for t in ("f64", "f32"):
            vt, vk = b.best(m, t)
            if vt is None:
                continue
            vh = float(b.row(m, t, "cusparse", next(k for k in VENDOR if VENDOR[k] == vk), "N")["host_mean_us"])
            cells = [m.split(",seed")[0], t, f"{b.nnz(m):,}"]
            for k in ("csr", "sell", "dtans"):
                r = b.row(m, t, "zsparse", k, "N")
                cells.append(f"{float(r['time_warm_us']):.2f} / {float(r['host_mean_us']):.2f}" if r else "–")
            cells += [f"{vt:.2f} / {vh:.2f} ({vk})", x(vt, min(b.zs(m, t, k) or 1e30 for k in ("csr", "sell", "dtans")))]
            rows.append(cells)
    head = ["matrix", "type", "nnz", "CSR µs / host", "SELL µs / host", "CSR-dtANS µs / host",
            "cuSPARSE's best µs / host", "its time ÷ our best"]
    note = f"Launch floor of the run: {floor:.2f} µs a call.\n\n" if floor else ""
    return note + table(head, rows)


def small_ncu(name):
    """Nsight Compute's device time (gpu__time_duration, each launch profiled alone, median) of
    the SpMV kernels of small matrices: ours and cuSPARSE's, from one zs-bench-gpu process each."""
    want = [("zsparse", "zs_csr_rows_kernel", "our CSR"), ("zsparse", "zs_sell", "our SELL"),
            ("cusparse", "cusparse::sellmv_v1", "cuSPARSE SELL-32"),
            ("cusparse", "cusparse::coomv_kernel", "cuSPARSE COO"),
            ("cusparse", "cusparse::csrmv_v3_kernel", "cuSPARSE CSR (its main kernel)")]
    t = {}
    for r in rows_of(name):
        for lib, prefix, label in want:
            if r["library"] == lib and r["kernel"].startswith(prefix) and (r["matrix"], label) not in t:
                t[(r["matrix"], label)] = float(r["ncu_duration_us_median"])
    rows = [[m] + [f"{t[(m, w[2])]:.2f}" if (m, w[2]) in t else "–" for w in want]
            for m in dict.fromkeys(k[0] for k in t)]
    return table(["matrix"] + [w[2] + " µs" for w in want], rows)


def launch_probe(name):
    """zs-launch-probe: µs a call to issue one kernel by each path, and cuSPARSE's SpMV on 32 rows,
    in one process per module-loading mode, two passes each."""
    t, cols = {}, []
    for r in rows_of(name):
        col = f"{r['loading']} loading, pass {r['pass']}"
        cols += [col] if col not in cols else []
        t[(r["call"], col)] = r["us"]
    calls = list(dict.fromkeys(k[0] for k in t))
    return table(["call"] + [c + " µs" for c in cols],
                 [[c] + [t.get((c, col), "–") for col in cols] for c in calls])


def split_carveout(name):
    """The split kernel's carve-out hint (experimental.split_carveout, a trial option) on R-MAT, best
    of the rounds; the default only where it ran before any hint was set (the hint is the
    kernel's, process-wide)."""
    t = {}
    for r in rows_of(name):
        if r["op"] == "N" and r["ok"] == "1":
            k = (r["matrix"], r["type"], r["library"], r["kernel"])
            t[k] = min(t.get(k, float("inf")), float(r["time_warm_us"]))
    carve = ("0", "25", "50", "75", "100")
    rows = []
    for m, ty in dict.fromkeys(k[:2] for k in t):
        vt, vk = min((t[k], VENDOR[k[3]]) for k in t if k[:3] == (m, ty, "cusparse") and k[3] in VENDOR)
        cells = [m.split(",values")[0], ty, f1(t.get((m, ty, "zsparse", "csr")))]
        cells += [f1(t.get((m, ty, "zsparse", f"csr@experimental.split_carveout={c}"))) for c in carve]
        rows.append(cells + [f"{vt:.1f} ({vk})"])
    return table(["matrix", "type", "default µs"] + [f"{c} % µs" for c in carve] + ["cuSPARSE's best µs"], rows)


def gaps_vendor(b, m, t, op):
    """cuSPARSE's best of the run for op N, T (one copy of A or a stored Aᵀ) or the pair (both)."""
    n = b.best(m, t, "N")[0]
    ts = [v for v in (b.best(m, t, "T", ONE_COPY_T)[0], b.us(m, t, "cusparse", "csr-alg1-stored-At", "T"))
          if v is not None]
    t_best = min(ts, default=None)
    if op == "N":
        return n
    if op == "T":
        return t_best
    return None if n is None or t_best is None else n + t_best


def gaps_ours(b, m, t, kernel, op):
    """Our time of a prediction row: SpMV (N), the deterministic SpMVT (T) or the two (P(det))."""
    if op == "P(det)":
        a, tr = kernel.split(" + ")
        n, d = b.zs(m, t, a), b.zs(m, t, tr + "-det", "T")
        return None if n is None or d is None else n + d
    return b.zs(m, t, kernel + ("-det" if op == "T" else ""), "N" if op == "N" else "T")


def gaps(arg):
    """The kernels of device-gaps.sh: DATA PREDICTION. Measured (predicted) beside cuSPARSE's best of
    the same run where DATA exists; until then the predictions, with cuSPARSE's best of h100-auto.csv.
    The device is the one DATA's name gives; the prediction's, the one its name gives."""
    name, pred_name = arg.split()
    measured = os.path.exists(os.path.join(DATA, name))
    b = Bench(name) if measured else None
    auto = {(r["case"], r["type"], r["op"]): float(r["vendor_us"]) for r in rows_of("h100-auto.csv")
            if r["vendor_us"]}
    dev, pdev = name.split("-")[0].upper(), pred_name.split("-")[0].upper()
    rows = []
    for r in rows_of(pred_name):
        m, t, k, op, p = r["matrix"], r["type"], r["kernel"], r["op"], float(r["predicted_us"])
        if measured:
            v, vendor = gaps_ours(b, m, t, k, op), gaps_vendor(b, m, t, op)
            cell = f"{f1(v)} ({p:.1f})"
        else:
            case = "band" if m == "band64" else m
            v, vendor = None, auto.get((case, t, "P" if op == "P(det)" else op))
            cell = f"({p:.1f})"
        rows.append([m, t, op, "`" + k.replace("experimental.", "") + "`", r["floor_us"], cell, f1(vendor), x(vendor, v)])
    head = ["matrix", "type", "op", "kernel (experimental. left out)", f"{pdev} floor µs",
            f"{dev} µs ({pdev} predicted)" if measured else f"{pdev} µs (predicted)",
            f"best cuSPARSE {dev} µs" if measured else f"best cuSPARSE {pdev} µs", "speed-up over cuSPARSE ×"]
    if not measured:
        return (table(head[:-1], [r[:-1] for r in rows]) +
                f"\n\nPredicted only (in parentheses; cuSPARSE from `h100-auto.csv`): "
                f"`bench/gpu/device-gaps.sh` writes `{name}`.")
    return table(head, rows)


# ---- CSR-dtANS ----

def dtans(name):
    b = Bench(name)
    rows = []
    for m, t in b.cells(SUITE):
        mine, cold = b.zs(m, t, "dtans"), b.zs(m, t, "dtans", cold=True)
        best, which = b.best(m, t)
        bestc, _ = b.best(m, t, cold=True)
        r = b.row(m, t, "zsparse", "dtans", "N")
        csr = b.row(m, t, "zsparse", "csr", "N")
        rows.append([m, t, f1(mine), f"{f1(best)} ({which})", x(best, mine), x(bestc, cold), f"{float(r['frac_ceiling']):.2f}",
                     f"{int(r['bytes']) / int(csr['bytes']):.2f}"])
    return table(["matrix", "type", "dtANS µs", "best cuSPARSE µs", "warm ×", "cold ×", "frac of ceiling", "bytes / CSR's"], rows)


def dtans5(name):
    """Version 5 (template rows) beside version 4 and cuSPARSE's best, with the prediction written
    before the run (h100-dtans5-prediction.csv)."""
    b = Bench(name)
    pred = {(r["matrix"], r["type"]): r for r in rows_of("h100-dtans5-prediction.csv")}
    matrices = list(dict.fromkeys(r["matrix"] for r in b.rows))
    # version 5 as the run encoded it: template rows, or packed rows
    k5 = next((r["kernel"] for r in b.rows if r["kernel"] == "dtans:row_kind=packed"), "dtans:templates=on")
    rows = []
    for m, t in b.cells(matrices):
        v5, v5c = b.zs(m, t, k5), b.zs(m, t, k5, cold=True)
        v4 = b.zs(m, t, "dtans:templates=off") or b.zs(m, t, "dtans")
        best, which = b.best(m, t)
        bestc, _ = b.best(m, t, cold=True)
        r5 = b.row(m, t, "zsparse", k5, "N")
        r4 = b.row(m, t, "zsparse", "dtans:templates=off", "N") or b.row(m, t, "zsparse", "dtans", "N")
        p = pred.get((m, t))
        rows.append([m, t, f"{f1(v5)} ({p['predicted_us']})" if p and v5 else f1(v5), f1(v4),
                     f"{f1(best)} ({which})", x(best, v5), x(bestc, v5c), x(best, v4),
                     f"{int(r5['bytes']) / int(r4['bytes']):.2f}" if r5 and r4 else "–",
                     f"{float(r5['frac_ceiling']):.2f}" if r5 else "–"])
    return table(["matrix", "type", "v5 µs (predicted)", "v4 µs", "best cuSPARSE µs", "v5 warm ×",
                  "v5 cold ×", "v4 ×", "bytes v5 / v4", "v5 frac of ceiling"], rows)


def dtans5_kernels(arg):
    """Every zsparse SpMV kernel of a version 5 run (v4, packed rows and their experimental
    variants) with its warm time, the prediction written before the run in brackets (the second
    file named, default h100-dtans5-packed2-prediction.csv), and against the best cuSPARSE format
    of the cell. A second argument of - names no prediction."""
    name, *rest = arg.split()
    b = Bench(name)
    pfile = rest[0] if rest else "h100-dtans5-packed2-prediction.csv"
    # "-": a run of kernels already measured, with no prediction of its own
    pred = {} if pfile == "-" else {(r["matrix"], r["type"], r["kernel"]): r["predicted_us"] for r in rows_of(pfile)}
    matrices = list(dict.fromkeys(r["matrix"] for r in b.rows))
    rows = []
    for m, t in b.cells(matrices):
        best, which = b.best(m, t)
        bestc, _ = b.best(m, t, cold=True)
        for r in b.rows:
            if r["matrix"] != m or r["type"] != t or r["library"] != "zsparse" or r["op"] != "N" or not r["kernel"].startswith("dtans"):
                continue
            k, warm = r["kernel"], float(r["time_warm_us"])
            cold = float(r["time_cold_us"]) if r["time_cold_us"] else None  # a run without cold calls
            p = pred.get((m, t, k))
            label = (k.replace("dtans:", "").replace("row_kind=packed", "packed")
                     .replace(",row_order=length", ", rows by length").replace(",col_order=frequency", ", cols by count")
                     .replace("@experimental.packed_", " "))
            rows.append([m, t, label, f"{f1(warm)} ({p})" if p else f1(warm), f1(cold), f"{f1(best)} ({which})" if best else "–",
                         x(best, warm), x(bestc, cold), r["ok"]])
    return table(["matrix", "type", "kernel", "warm µs (predicted)", "cold µs", "best cuSPARSE µs", "warm ×", "cold ×", "ok"], rows)


def dtans_transpose(name):
    b = Bench(name)
    rows = []
    for m, t in b.cells(SUITE):
        n, det, at, pair = (b.zs(m, t, k, op) for k, op in (("dtans", "N"), ("dtans-det", "T"), ("dtans-atomic", "T"), ("dtans-pair", "P")))
        vendor = b.us(m, t, "cusparse", "csr-alg1", "N") + b.us(m, t, "cusparse", "csr-alg1", "T")
        rows.append([m, t, f1(det), f1(at), f1(pair), x(n + at, pair), x(vendor, n + det), x(vendor, pair)])
    return table(["matrix", "type", "det Aᵀx µs", "atomic Aᵀx µs", "pair µs", "pair vs N + atomic T ×",
                  "N + det T vs cuSPARSE ×", "pair vs cuSPARSE ×"], rows)


LOOKUP_OLD = ("linear", "slot", "joint", "inline", "joint+x", "coded", "coded+x", "coded+rx", "coded+rx2", "coded+rmat")
# Stream version 5 candidates: (row label, variant per gather: bare, +x, +rx2, +rmat; None: not measured)
LOOKUP_NEW = [(v, (v, v + "+x", v + "+rx2", v + "+rmat")) for v in (
    "slot4+shfl", "slot4+shfl64", "slot4+dict", "rep-10", "rep-11", "lane-8", "lane-9", "slot4x2+dict", "lane-8x2")]
LOOKUP_NEW += [("pair2", ("pair2", "pair2+x", None, None)),
               ("template+ids (27 / 5 points)", (None, "template+ids", None, None)),
               ("template+raw (27 / 5 points)", (None, "template+raw", None, None))]


def lookup_probe(_):
    rows = [[r["variant"], r["us_per_1e8_nnz"], r["sm_cycles_per_warp_nnz"]] for r in rows_of("h100-lookup-floor.csv")
            if r["blocks_per_sm"] == "3" and r["variant"] in LOOKUP_OLD]
    return table(["probe variant", "µs per 10⁸ nonzeros", "SM-cycles per warp-nonzero"], rows)


def lookup_floor(_):
    """What any decoder of the format needs on the H100, per matrix of the few-valued set."""
    probe = {r["variant"]: float(r["us_per_1e8_nnz"]) for r in rows_of("h100-lookup-floor.csv") if r["blocks_per_sm"] == "3"}
    b = Bench("h100-suite-few-valued.csv")
    rows = []
    for m in ("st27", "band", "er", "rmat"):
        nnz = b.nnz(m)
        best, which = b.best(m, "f64")
        if m in ("st27", "band"):  # inline lookups + coalesced gathers at 2 wavefronts a warp-nonzero
            floor = probe["inline"] * nnz / 1e8 + 2 * nnz / 32 / (PROBE_SMS * PROBE_GHZ * 1e3)
            how = "inline lookups + coalesced x"
        else:  # the random gathers alone: (coded + gathers) − coded
            gathers = "coded+rx2" if m == "er" else "coded+rmat"
            floor = (probe[gathers] - probe["coded"]) * nnz / 1e8
            how = "x gathers alone (" + ("16 MB slab" if m == "er" else "R-MAT marginal, natural order") + ")"
        mine = b.zs(m, "f64", "dtans")
        rows.append([m, f"{nnz / 1e6:.1f} M", f"{f1(best)} ({which})", f1(floor), how, x(best, floor), x(best, mine)])
    return table(["matrix (64 values, f64)", "nonzeros", "best cuSPARSE µs", "floor µs", "floor from", "best possible ×", "measured ×"], rows)


def predicted():
    """The predictions written before the run: SM-cycles per warp-nonzero, by variant."""
    return {r["variant"]: float(r["predicted_sm_cycles_per_warp_nnz"]) for r in rows_of("h100-lookup-floor-prediction.csv")}


def probe3():
    """The probe's rows at the kernel's occupancy (3 blocks a SM), by variant."""
    return {r["variant"]: r for r in rows_of("h100-lookup-floor.csv") if r["blocks_per_sm"] == "3"}


def lookup_candidates(_):
    """Every candidate layout's floor: measured SM-cycles per warp-nonzero, the prediction beside."""
    probe = probe3()
    pred = predicted()

    def cell(v):
        if v is None:
            return "–"
        both = [v] + ([v + "5"] if v.startswith("template") else [])  # 27-point, then 5-point rows
        got = " / ".join(f"{float(probe[w]['sm_cycles_per_warp_nnz']):.2f}" if w in probe else "not run" for w in both)
        return got + " (" + " / ".join(f"{pred[w]:g}" for w in both) + ")"

    rows = []
    for label, vs in LOOKUP_NEW:
        us = [probe[v]["us_per_1e8_nnz"] for v in vs if v in probe][:2]
        rows.append([label] + [cell(v) for v in vs] + [us[-1] if us else "–"])
    return table(["layout", "bare", "+x", "+rx2", "+rmat", "µs per 10⁸ nonzeros, with x"], rows)


def lookup_caps(_):
    """Per matrix of the 64-value suite (f64): best cuSPARSE time / each layout's floor scaled to its nonzeros."""
    probe = probe3()
    pred = predicted()
    b = Bench("h100-suite-few-valued.csv")
    mats = ("st27", "lap2d", "band", "er", "rmat")
    best = {m: b.best(m, "f64") for m in mats}
    gather = {"st27": 1, "lap2d": 1, "band": 1, "er": 2, "rmat": 3}  # which probe x applies (lockstep, slab, R-MAT)
    rows = [["best cuSPARSE µs"] + [f"{f1(best[m][0])} ({best[m][1]})" for m in mats],
            ["CSR-dtANS v4, measured"] + [x(best[m][0], b.zs(m, "f64", "dtans")) for m in mats]]
    for label, vs in LOOKUP_NEW:
        cells = []
        for m in mats:
            v = vs[gather[m]]
            if v and v.startswith("template"):  # stencils only: 27-point rows for st27, 5-point for lap2d
                v = {"st27": v, "lap2d": v + "5"}.get(m)
            if v is None:
                cells.append("n/a")
                continue
            got = float(probe[v]["us_per_1e8_nnz"]) if v in probe else None
            guess = pred[v] * 1e8 / 32 / (PROBE_SMS * PROBE_GHZ * 1e3)  # predicted cycles as µs per 10⁸
            cells.append(x(best[m][0], got and got * b.nnz(m) / 1e8) + f" ({x(best[m][0], guess * b.nnz(m) / 1e8)})")
        rows.append([label] + cells)
    return table(["cap (best cuSPARSE / floor), measured (predicted)"] + list(mats), rows)


PACKED_PROBE = [  # variant, rows it decodes, matrix of the suite it stands for, data file
    ("packed-band", "banded, no x", "band", "h100-suite-few-valued.csv"),
    ("packed-band+x", "banded", "band", "h100-suite-few-valued.csv"),
    ("packed-band+raw+x", "banded, raw f64 values", "band", "h100-suite-random.csv"),
    ("packed-er", "Erdős–Rényi, no x", "er", "h100-suite-few-valued.csv"),
    ("packed-er+x", "Erdős–Rényi", "er", "h100-suite-few-valued.csv"),
    ("packed-er+shfl+x", "Erdős–Rényi, values by shuffles", "er", "h100-suite-few-valued.csv"),
    ("packed-rmat+x", "R-MAT marginal, 16 a row", "rmat", "h100-suite-few-valued.csv"),
    ("packed-rmat+shfl+x", "the same, values by shuffles", "rmat", "h100-suite-few-valued.csv"),
]


def lookup_packed(_):
    """Packed rows' floors at 3 and 6 blocks a SM (prediction for 3 in brackets), and the cap they
    give against the best cuSPARSE format of the matrix they stand for (f64; the better occupancy)."""
    runs = {(r["variant"], r["blocks_per_sm"]): r for r in rows_of("h100-lookup-floor-packed.csv")}
    pred = predicted()
    rows = []
    for v, what, m, data in PACKED_PROBE:
        r3, r6 = runs.get((v, "3")), runs.get((v, "6"))
        if not r3:
            continue
        b = Bench(data)
        best, which = b.best(m, "f64")
        us = min(float(r["us_per_1e8_nnz"]) for r in (r3, r6) if r)
        floor = us * b.nnz(m) / 1e8 if "+x" in v else None
        rows.append([v, what, f"{float(r3['sm_cycles_per_warp_nnz']):.2f} ({pred.get(v, 0):g})",
                     f"{float(r6['sm_cycles_per_warp_nnz']):.2f}" if r6 else "–", f1(floor),
                     f"{f1(best)} ({which})" if floor else "–", x(best, floor) if floor else "–"])
    return table(["variant", "rows", "3 blocks/SM (predicted)", "6 blocks/SM", "floor µs (matrix)",
                  "best cuSPARSE µs", "cap ×"], rows)


# ---- GCSB ----

def gcsb(_):
    b = Bench("h100-gcsb.csv")
    rows = []
    for m, t in b.cells(SUITE + LAYERS):
        n, det = b.zs(m, t, "gcsb"), b.zs(m, t, "gcsb-det", "T")
        vn, vt = b.us(m, t, "cusparse", "csr-alg1", "N"), b.us(m, t, "cusparse", "csr-alg1", "T")
        best_t, which = b.best(m, t, "T", ONE_COPY_T)
        csr = b.row(m, t, "zsparse", "csr", "N")
        mem = int(b.row(m, t, "zsparse", "gcsb", "N")["bytes"]) / int(csr["bytes"])
        rows.append([m, t, f1(n), f1(det), f1(vn + vt), x(vn + vt, n + det), x(best_t, det) + f" ({which})", f"{mem:.2f}"])
    return table(["matrix", "type", "det Ax µs", "det Aᵀx µs", "cuSPARSE ALG1 Ax + CSR Aᵀx µs", "two products ×",
                  "Aᵀx vs best one-copy cuSPARSE ×", "bytes / CSR's"], rows)


def gcsb_pair(_):
    b = Bench("h100-gcsb-pair.csv")
    rows = []
    for m, t in b.cells(SUITE):
        n, det, pair = b.zs(m, t, "gcsb"), b.zs(m, t, "gcsb-det", "T"), b.zs(m, t, "gcsb-pair", "P")
        vendor = b.us(m, t, "cusparse", "csr-alg1", "N") + b.us(m, t, "cusparse", "csr-alg1", "T")
        rows.append([m, t, f1(n + det), f1(pair), f1(vendor), x(vendor, n + det), x(vendor, pair)])
    return table(["matrix", "type", "det Ax + Aᵀx µs", "pair µs", "cuSPARSE µs", "two products ×", "pair ×"], rows)


# ---- CCI ----

def cci(_):
    b = Bench("h100-cci.csv")
    rows = []
    for m, t in b.cells(("st27", "elast77")):
        s8, s4, s2 = (b.zs(m, t, k) for k in ("cci", "cci:slices=4,opcodes=auto", "cci:slices=2,opcodes=auto"))
        mine = min(s8, s4, s2)
        csr_alg = min(b.us(m, t, "cusparse", k, "N") for k in ("csr-alg1", "csr-alg2"))
        best, which = b.best(m, t)
        rows.append([m, t, f1(s8), f1(s4), f1(s2), f1(b.zs(m, t, "csr")), f1(csr_alg), x(csr_alg, mine), f"{x(best, mine)} ({which})"])
    return table(["matrix", "type", "S=8 µs", "S=4 auto µs", "S=2 auto µs", "our CSR µs", "best cuSPARSE CSR µs",
                  "best CCI vs CSR ALG ×", "vs best cuSPARSE ×"], rows)


# ---- MAT-VANS, solvers ----

def vans(_):
    rows = []
    for v in rows_of("h100-vans.csv"):
        rows.append([v["n"], v["bits_per_weight"], v["pairs_ms"], v["int8_ms"], v["sgemv_ms"],
                     x(float(v["int8_ms"]), float(v["pairs_ms"])), x(float(v["int8_upload_ms"]), float(v["pairs_upload_ms"])), v["same_output"]])
    return table(["N", "bits/weight", "ms zsparse", "ms cuBLAS int8", "ms Sgemv", "× int8", "× int8, uploads included", "same output"], rows)


def bicg(_):
    rows = []
    data = rows_of("h100-bicg.csv")
    data.sort(key=lambda r: (r["matrix"] != "lap2d", r["library"] != "cusparse"))  # baseline first
    vendor = {r["matrix"]: float(r["time_per_iter_s"]) for r in data if r["library"] == "cusparse"}
    for r in data:
        ms = float(r["time_per_iter_s"]) * 1e3
        rows.append([r["matrix"], r["library"] + " " + r["format"], r["iterations"], r["true_rel_residual"], f"{ms:.3f}",
                     f"{float(r['setup_s']):.1f}", x(vendor[r["matrix"]] * 1e3, ms)])
    return table(["system", "solver, format [operator]", "iterations", "true residual", "ms / iteration", "setup s", "× cuSPARSE"], rows)


# ---- the cpu backend ----

def cpu_index(name):
    return {(r["matrix"], r["kernel"], r["type"], r["op"]): float(r["median_ms"]) for r in rows_of(name)}


def cpu_lap2d(_):
    data = rows_of("cpu-lap2d.csv")
    ms = cpu_index("cpu-lap2d.csv")
    rows = []
    for r in data:
        if r["kernel"].startswith("read probe"):
            continue
        rsb = ms.get(("lap2d-2048", "librsb", r["type"], r["op"] if r["op"] != "P" else "N"))
        if r["op"] == "P":
            rsb = ms[("lap2d-2048", "librsb", r["type"], "N")] + ms[("lap2d-2048", "librsb", r["type"], "T")]
        rows.append([r["kernel"], r["type"], r["op"], f"{float(r['median_ms']):.2f}", f"{float(r['ratio_to_probe']) * 100:.0f} %",
                     "–" if r["kernel"] == "librsb" else x(rsb, float(r["median_ms"]))])
    return table(["kernel", "type", "op", "ms", "of read probe", "× librsb"], rows)


def cpu_dtans(_):
    ms = cpu_index("cpu-dtans.csv")
    probe = {(r["matrix"], r["type"], r["op"]): float(r["ratio_to_probe"]) for r in rows_of("cpu-dtans.csv") if r["kernel"] == "zsparse cpu dtans"}
    rows = []
    for m in sorted({k[0] for k in ms}):
        for t in ("f64", "f32"):
            n, tt, p = (ms[(m, "zsparse cpu dtans", t, op)] for op in ("N", "T", "P"))
            rn, rt = ms[(m, "librsb", t, "N")], ms[(m, "librsb", t, "T")]
            rows.append([m, t, f"{n:.1f}", f"{tt:.1f}", f"{p:.1f}", f"{rn:.1f}", x(rn, n), x(rn + rt, p), f"{probe[(m, t, 'N')] * 100:.0f} %"])
    return table(["matrix", "type", "N ms", "T ms", "pair ms", "librsb N ms", "N × librsb", "pair × librsb N + T", "N of read probe"], rows)


def cpu_encode(_):
    rows = [[r["matrix"], r["type"], r["median_s"], r["mnnz_per_s"], f"{float(r['mnnz_per_s']) / 2:.1f}", r["first_s"]]
            for r in rows_of("cpu-encode.csv")]
    return table(["matrix", "type", "median s", "M nonzeros/s (2 threads)", "M nonzeros/s per core", "first encode s"], rows)


# ---- auto against exhaustive search (bench/auto/) ----

def auto_files():
    """The *-auto.csv files of bench/data, GPU devices first, each one run on one device."""
    names = sorted(n for n in os.listdir(DATA) if n.endswith("-auto.csv"))
    return sorted(names, key=lambda n: n.startswith("cpu"))


def auto_lines(rows):
    """The lines where auto's choice and the best candidate were both timed."""
    return [r for r in rows if r.get("auto_over_best")]


def median(v):
    v = sorted(v)
    return (v[len(v) // 2] + v[(len(v) - 1) // 2]) / 2 if v else None


def auto_where(r):
    return f"{r['case']} {r['type']} {r['op']}"


def auto_row(label, rows):
    """One summary row: lines, chooser, median and worst auto / best, share within 10 %, worst
    auto / vendor best, median plan time."""
    ok = auto_lines(rows)
    ratios = [float(r["auto_over_best"]) for r in ok]
    worst = max(ok, key=lambda r: float(r["auto_over_best"]), default=None)
    vend = [r for r in ok if r.get("auto_over_vendor")]
    wv = max(vend, key=lambda r: float(r["auto_over_vendor"]), default=None)
    same = [r for r in ok if r.get("auto_over_vendor_run")]
    ws = max(same, key=lambda r: float(r["auto_over_vendor_run"]), default=None)
    plans = [float(r["plan_s"]) for r in rows if r.get("plan_s")]
    choosers = "/".join(sorted({r["chooser"] for r in rows if r.get("chooser")}))
    within = sum(1 for x in ratios if x <= 1.10)
    return [label, choosers or "–", f"{len(ok)} of {len(rows)}",
            "–" if not ratios else f"{median(ratios):.2f}×",
            "–" if not worst else f"{float(worst['auto_over_best']):.2f}× ({auto_where(worst)})",
            "–" if not ratios else f"{100 * within / len(ratios):.0f} %",
            "–" if not wv else f"{float(wv['auto_over_vendor']):.2f}× ({auto_where(wv)}, {wv['vendor_best']})",
            "–" if not ws else f"{float(ws['auto_over_vendor_run']):.2f}× ({auto_where(ws)}, {ws['vendor_best']})",
            "–" if not plans else f"{median(plans):.2f}"]


AUTO_HEAD = ["run", "chooser", "lines timed", "median auto / best", "worst auto / best", "within 10 %",
             "worst auto / vendor best", "worst auto / vendor best, one process (N)", "median plan s"]


def auto_summary(_):
    rows = [auto_row(n[:-len("-auto.csv")], rows_of(n)) for n in auto_files()]
    return table(AUTO_HEAD, rows) if rows else "No run of `bench/auto/` is in bench/data yet."


def auto_worst(arg):
    """The N lines of one run where auto lost most to the best candidate: FILE N."""
    name, n = arg.split()
    if not os.path.exists(os.path.join(DATA, name)):
        return f"No `{name}` in bench/data yet."
    ok = sorted(auto_lines(rows_of(name)), key=lambda r: -float(r["auto_over_best"]))[:int(n)]
    return table(["case", "type", "op", "nonzeros", "auto's choice", "auto µs", "best candidate", "best µs", "auto / best",
                  "vendor best", "auto / vendor", "load"],
                 [[r["case"], r["type"], r["op"], r["nnz"], f"`{r['auto_choice']}`", r["auto_us"], f"`{r['best_candidate']}`",
                   r["best_us"], f"{float(r['auto_over_best']):.2f}×", r["vendor_best"] or "–",
                   f"{float(r['auto_over_vendor']):.2f}×" if r["auto_over_vendor"] else "–", r["load1"]] for r in ok])


def auto_plan_time(_):
    names = sorted(n for n in os.listdir(DATA) if n.endswith("-auto-plan-time.csv"))
    rows = [[n[:-len("-auto-plan-time.csv")], r["source"], r["type"], r["nnz"], r["plan_s"] or "–", r["plan_wall_s"],
             r["load_wall_s"], r.get("cpu_minus_load_s") or "–", f"`{r['choice']}`", r["load1"]]
            for n in names for r in rows_of(n)]
    if not rows:
        return "Not measured yet: `zsparse plan` is not on main (see the command below)."
    return table(["run", "matrix", "type", "nonzeros", "plan_s (plan's clock)", "plan wall s", "generation alone, wall s",
                  "CPU s, plan − generation", "choice", "load"], rows)


# ---- bindings: PETSc's aijzsparse (bench/petsc/) and the Python package (bench/python/) ----

def petsc_rows(name, cols, ranks=None):
    """zs-petsc-bench's CSV as table rows: aij's rows before and after the formats merged into
    one ("before / after"); `cols` are (column, decimals) pairs; `ranks` keeps one rank count."""
    data = [r for r in rows_of(name) if ranks is None or r["ranks"] == ranks]
    again = {r["ranks"]: r for r in data if r["type"] == "aij-again"}
    types = {r["type"] for r in data}

    def cell(r, c, d):
        v = r[c]
        if v in ("", "-"):
            return "–"
        s = f"{float(v):.{d}f}"
        a = again.get(r["ranks"]) if r["type"] == "aij" and c.endswith(("_us", "_ratio")) else None
        return s if a is None else f"{s} / {float(a[c]):.{d}f}"

    out = []
    for r in data:
        if r["type"] == "aij-again":
            continue
        label = r["type"] + (" (in place)" if r["type"] + "/copy" in types else "")
        out.append([label] + [cell(r, c, d) for c, d in cols])
    return out


PETSC_TIMES = [("mult_us", 0), ("mult_ratio", 2), ("multt_us", 0), ("multt_ratio", 2)]


def petsc_ranks(name):
    rows = [[n] + r for n in sorted({r["ranks"] for r in rows_of(name)})
            for r in petsc_rows(name, [("bytes_per_nnz", 2), ("encode_ms", 0)] + PETSC_TIMES +
                                [("iter_us", 0), ("iter_ratio", 2)], n)]
    return table(["ranks", "type", "B/nnz", "encode ms", "mult µs", "ratio", "multT µs", "ratio",
                  "BiCG iter µs", "ratio"], rows)


def petsc_copies(name):
    cols = [("mult_us", 0), ("mult_ratio", 2), ("copy_in_mult_us", 0), ("multt_us", 0), ("multt_ratio", 2)]
    return table(["type", "mult µs", "ratio to aij", "copies inside µs", "multT µs", "ratio"],
                 petsc_rows(name, cols))


def petsc_device(name):
    cols = [("bytes_per_nnz", 2)] + PETSC_TIMES + [("iter_us", 0), ("iter_ratio", 2), ("copy_in_mult_us", 0)]
    return table(["type", "bytes/nnz", "MatMult µs", "ratio", "MatMultTranspose µs", "ratio",
                  "KSP iteration µs", "ratio", "copies in MatMult µs"], petsc_rows(name, cols))


def petsc_copy_alone(arg):
    """The per-product copies measured alone (the bench's header), µs: FILE [RANKS]."""
    name, *ranks = arg.split()
    return f"{float(next(r for r in rows_of(name) if not ranks or r['ranks'] == ranks[0])['copy_alone_us']):.0f}"


def python_overhead(name):
    """bench_overhead.py's CSV: per form and backend the layer's µs, beside the form's and the bare
    call's, or beside a compared package's layer where the run had one (then the bare calls'
    times are not all kept: `python_spmv_alone` gives zs_spmv's)."""
    data = rows_of(name)
    backends = list(dict.fromkeys(r["backend"] for r in data))
    compared = any(r["compared_layer_us"] for r in data)
    keys = ["compared_layer_us", "layer_us"] if compared else ["form_us", "bare_us", "layer_us"]
    label = {"compared_layer_us": "compared", "layer_us": "layer", "form_us": "form", "bare_us": "bare"}
    cell = {(r["backend"], r["form"], k): r[k] for r in data for k in keys}
    us = lambda v: f"{float(v):.2f}" if v else "–"  # noqa: E731
    rows = [[f"`{f}`"] + [us(cell.get((b, f, k))) for b in backends for k in keys]
            for f in dict.fromkeys(r["form"] for r in data)]
    if not compared:
        alone = {r["backend"]: r["spmv_alone_us"] for r in data}
        rows.append(["`zs_spmv` alone (resident vectors)"] +
                    [us(alone[b]) if k == "bare_us" else "–" for b in backends for k in keys])
    return table(["form"] + [f"{b}: {label[k]} µs" for b in backends for k in keys], rows)


def python_spmv_alone(arg):
    """zs_spmv on resident vectors through ctypes, µs: FILE BACKEND."""
    name, backend = arg.split()
    return f"{float(next(r for r in rows_of(name) if r['backend'] == backend)['spmv_alone_us']):.2f}"


def python_scipy(name):
    ms = ("scipy_ax_ms", "host_ax_ms", "prod_ax_ms", "copy_ax_ms", "ax_speedup", "scipy_atx_ms", "host_atx_ms",
          "prod_atx_ms", "atx_speedup")
    rows = [[f"`{r['matrix']}`", r["format"], r["backend"]] +
            [f"{float(r[k]):.2f}×" if k.endswith("speedup") else f"{float(r[k]):.3f}" for k in ms] for r in rows_of(name)]
    return table(["matrix", "format", "backend", "SciPy Ax ms", "host Ax ms", "product alone ms", "copies ms",
                  "× SciPy", "SciPy Aᵀx ms", "host Aᵀx ms", "product Aᵀx ms", "× SciPy"], rows)


def python_bicg(name):
    its = lambda r, k: f"{float(r[k + '_s']):.3f} ({r[k + '_its']})"  # noqa: E731
    rows = [[f"`{r['matrix']}`", r["format"], r["backend"], its(r, "scipy_bicg"), its(r, "scipy_bicg_on_op"),
             its(r, "zs_solve"), f"{float(r['bicg_speedup']):.2f}×"] for r in rows_of(name) if r["zs_solve_s"]]
    return table(["matrix", "format", "backend", "SciPy bicg s (its)", "SciPy bicg on `op` s (its)",
                  "`zsparse.solve` s (its)", "× SciPy bicg"], rows)


TOKEN = re.compile(r"@@([a-z_0-9]+)(?: ([^@]*))?@@")


def render(template):
    def one(m):
        fn = globals().get(m.group(1))
        if not callable(fn):
            sys.exit(f"make_guide.py: unknown token @@{m.group(1)}@@")
        return fn(m.group(2))
    return TOKEN.sub(one, template)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("-t", "--template", default=os.path.join(HERE, "guide.md.in"))
    p.add_argument("-o", "--output", default=os.path.join(HERE, "..", "docs", "performance.md"))
    p.add_argument("--compare", help="exit 1 when the output differs from this file")
    p.add_argument("--auto-summary", metavar="CSV", help="only print the auto summary of one *-auto.csv")
    a = p.parse_args()
    if a.auto_summary:
        with open(a.auto_summary, newline="", encoding="utf-8") as f:
            print(table(AUTO_HEAD, [auto_row(os.path.basename(a.auto_summary), list(csv.DictReader(f)))]))
        return 0
    with open(a.template, encoding="utf-8") as f:
        text = render(f.read())
    with open(a.output, "w", encoding="utf-8") as f:
        f.write(text)
    if a.compare:
        with open(a.compare, encoding="utf-8") as f:
            ref = f.read()
        if ref != text:
            sys.stdout.writelines(difflib.unified_diff(ref.splitlines(True), text.splitlines(True), a.compare, a.output))
            print(f"make_guide.py: {a.compare} is not what bench/make_guide.py makes of its data; "
                  "run `python3 bench/make_guide.py` and commit the result", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
