#!/usr/bin/env python3
"""make_report.py — bench CSVs (GPU kernels, CPU kernels, solvers) to report.md and PNG plots."""
import argparse
import csv
import math
import os
import sys
from collections import defaultdict

USAGE = """Reads any of:
  --gpu FILE     zs-bench-gpu CSV (matrix,rows,cols,nnz,type,library,kernel,op,bytes,
                 time_warm_us,time_cold_us,gbps,frac_ceiling,...): zsparse and cuSPARSE kernels
  --cpu FILE     zs-bench-cpu CSV (kernel,type,op,threads,median_ms,gbps,...,rows,nnz); the
                 matrix label comes from --cpu-matrix (the CPU bench runs one matrix per file);
                 repeatable, paired in order with --cpu-matrix
  --solve FILE   zs-bench-solve and bicg-cusparse CSV (repeatable)
and writes OUT/report.md with OUT/*.png (matplotlib, Agg backend). For each matrix, type and
op the vendor reference is the fastest vendor kernel (cuSPARSE on GPU, librsb on CPU) by warm
time; every zsparse kernel is shown as bytes / vendor bytes and time / vendor time. Cold
times (caches flushed) sit beside warm ones where the input has them."""


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows:
        return []
    head = rows[0]
    out = []
    for r in rows[1:]:
        if not r or r[0].startswith("```"):
            continue
        # zs-bench-cpu writes kernel names such as "zsparse cpu csr, atomic T" unquoted: join
        # the leading fields until the row has the header's width.
        while len(r) > len(head):
            r = [r[0] + "," + r[1]] + r[2:]
        out.append(dict(zip(head, r)))
    return out


def num(v, default=float("nan")):
    try:
        return float(v)
    except (TypeError, ValueError):
        return default


def gmean(xs):
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def plt_module():
    """pyplot on the Agg backend, or None without matplotlib (report.md is written without plots)."""
    try:
        import matplotlib
    except ImportError:
        print("make_report.py: no matplotlib: report.md without plots", file=sys.stderr)
        return None

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


# ---- kernels: GPU and CPU rows to one shape ----
def kernels_from_gpu(rows):
    out = []
    for r in rows:
        if r.get("ok", "1") not in ("1", "true", "True"):
            continue
        out.append(dict(matrix=r["matrix"], type=r["type"], op=r["op"], device="gpu",
                        vendor=r["library"] != "zsparse", name=f'{r["library"]} {r["kernel"]}',
                        bytes=num(r["bytes"]), warm=num(r["time_warm_us"]) * 1e-6,
                        cold=num(r["time_cold_us"]) * 1e-6, gbps=num(r["gbps"]),
                        frac=num(r["frac_ceiling"]), nnz=num(r["nnz"])))
    return out


def kernels_from_cpu(rows, matrix):
    out, probe = [], float("nan")
    for r in rows:
        if r["kernel"].startswith("read probe"):
            probe = max(num(r["gbps"], 0), probe if math.isfinite(probe) else 0)
    for r in rows:
        k = r["kernel"]
        if k.startswith("read probe"):
            continue
        t = num(r["median_ms"]) * 1e-3
        gbps = num(r["gbps"])
        out.append(dict(matrix=matrix, type=r["type"], op=r["op"], device="cpu",
                        vendor=k.startswith("librsb"), name=k, bytes=gbps * 1e9 * t, warm=t,
                        cold=float("nan"), gbps=gbps, frac=num(r.get("ratio_to_probe")),
                        nnz=num(r["nnz"]), ceiling=probe))
    return out


def relative(kernels):
    """(matrix, type, op, device) -> vendor best, and zsparse rows with ratios."""
    groups = defaultdict(list)
    for k in kernels:
        groups[(k["matrix"], k["type"], k["op"], k["device"])].append(k)
    rel = []
    for key, ks in sorted(groups.items()):
        vendors = [k for k in ks if k["vendor"] and math.isfinite(k["warm"])]
        if not vendors:
            continue
        best = min(vendors, key=lambda k: k["warm"])
        for k in ks:
            if k["vendor"]:
                continue
            rel.append(dict(k, vendor_name=best["name"], size_ratio=k["bytes"] / best["bytes"],
                            time_ratio=k["warm"] / best["warm"],
                            cold_ratio=(k["cold"] / best["cold"]) if math.isfinite(k["cold"])
                            and math.isfinite(best["cold"]) else float("nan")))
    return rel


def save(plt, fig, out_dir, name):
    """Writes the figure to OUT/name and returns name."""
    fig.tight_layout()
    fig.savefig(os.path.join(out_dir, name), dpi=120)
    plt.close(fig)
    return name


def plot_per_matrix(plt, rel, device, out_dir):
    rows = [r for r in rel if r["device"] == device and r["type"] == "f64" and r["op"] == "N"]
    if not rows:
        return None
    names = sorted({r["name"] for r in rows})
    mats = sorted({r["matrix"] for r in rows}, key=lambda m: -max(r["nnz"] for r in rows
                                                                    if r["matrix"] == m))
    fig, axes = plt.subplots(2, 1, figsize=(max(8, 0.45 * len(mats) * len(names) / 2), 8),
                             sharex=True)
    width = 0.8 / len(names)
    for i, name in enumerate(names):
        for ax, key in zip(axes, ("size_ratio", "time_ratio")):
            xs, ys = [], []
            for j, m in enumerate(mats):
                v = [r[key] for r in rows if r["matrix"] == m and r["name"] == name]
                if v:
                    xs.append(j + i * width), ys.append(v[0])
            ax.bar(xs, ys, width, label=name)
    for ax, label in zip(axes, ("bytes / best vendor", "time / best vendor (warm)")):
        ax.axhline(1.0, color="k", lw=0.8)
        ax.set_ylabel(label)
        ax.set_yscale("log")
    axes[1].set_xticks([j + 0.4 - width / 2 for j in range(len(mats))])
    axes[1].set_xticklabels(mats, rotation=60, ha="right", fontsize=7)
    axes[0].legend(fontsize=7, ncol=3)
    axes[0].set_title(f"{device.upper()} SpMV (f64, y = Ax): zsparse relative to the fastest "
                      "vendor kernel per matrix")
    return save(plt, fig, out_dir, f"per_matrix_{device}.png")


def plot_scatter(plt, rel, out_dir):
    if not rel:
        return None
    fig, ax = plt.subplots(figsize=(7, 6))
    for i, name in enumerate(sorted({r["name"] for r in rel})):
        pts = [r for r in rel if r["name"] == name]
        # the colour cycle has 10 entries: a new marker for every 10 series keeps them apart
        ax.scatter([r["size_ratio"] for r in pts], [r["time_ratio"] for r in pts], s=14,
                   label=f'{name} ({pts[0]["device"]})', alpha=0.7, marker="os^DvP"[i // 10 % 6])
    ax.axhline(1, color="k", lw=0.8), ax.axvline(1, color="k", lw=0.8)
    ax.set_xscale("log"), ax.set_yscale("log")
    ax.set_xlabel("size ratio (bytes / best vendor format)")
    ax.set_ylabel("time ratio (warm time / best vendor kernel)")
    ax.set_title("Size vs time relative to the best vendor format (as dtANS Fig. 6-8)")
    ax.legend(fontsize=7)
    return save(plt, fig, out_dir, "size_vs_time.png")


def plot_bandwidth(plt, kernels, out_dir):
    rows = [k for k in kernels if math.isfinite(k.get("frac", float("nan")))]
    if not rows:
        return None
    fig, ax = plt.subplots(figsize=(9, 5))
    names = sorted({k["name"] for k in rows})
    for i, name in enumerate(names):
        v = sorted(k["frac"] for k in rows if k["name"] == name)
        ax.scatter([i] * len(v), v, s=10, alpha=0.6)
        ax.plot([i - 0.3, i + 0.3], [sorted(v)[len(v) // 2]] * 2, color="k")
    ax.axhline(1.0, color="r", lw=0.8, label="measured read ceiling")
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels(names, rotation=60, ha="right", fontsize=7)
    ax.set_ylabel("achieved GB/s / measured ceiling")
    ax.set_title("Bandwidth against the measured ceiling (every matrix; bar = median)")
    ax.legend(fontsize=7)
    return save(plt, fig, out_dir, "bandwidth.png")


def plot_solve(plt, solves, out_dir):
    rows = [s for s in solves if s["status"] == "ZS_OK"]
    if not rows:
        return None
    mats = sorted({s["matrix"] for s in rows})
    fig, axes = plt.subplots(len(mats), 1, figsize=(9, 2.6 * len(mats)), squeeze=False)
    for ax, m in zip(axes[:, 0], mats):
        pts = sorted((s for s in rows if s["matrix"] == m), key=lambda s: num(s["solve_warm_s"]))
        labels = [f'{s["method"]} {s["library"]} {s["format"]} {s["backend"]}' for s in pts]
        ax.barh(range(len(pts)), [num(s["solve_warm_s"]) for s in pts], color="C0",
                label="warm")
        ax.scatter([num(s["solve_cold_s"]) for s in pts], range(len(pts)), color="C3", s=12,
                   label="cold", zorder=3)
        ax.set_yticks(range(len(pts)))
        ax.set_yticklabels(labels, fontsize=7)
        ax.set_xlabel("time to tolerance (s)")
        ax.set_title(f"{m}: tol {pts[0]['tol']}", fontsize=9)
        ax.legend(fontsize=7)
    return save(plt, fig, out_dir, "solve_time.png")


def fmt(x, d=2):
    return "–" if not math.isfinite(x) else f"{x:.{d}f}"


def solve_baselines(solves):
    """matrix -> the fastest converged cuSPARSE BiCG row (the baseline of every speed-up)."""
    base = {}
    for s in solves:
        if s["library"] == "cusparse" and s["method"] == "bicg" and s["status"] == "ZS_OK":
            if s["matrix"] not in base or num(s["solve_warm_s"]) < num(
                    base[s["matrix"]]["solve_warm_s"]):
                base[s["matrix"]] = s
    return base


def speedup(base, s):
    """Baseline warm time / this row's, for a converged BiCG row; nan otherwise."""
    b, t = base.get(s["matrix"]), num(s["solve_warm_s"])
    if not b or s["method"] != "bicg" or s["status"] != "ZS_OK" or not t > 0:
        return float("nan")
    return num(b["solve_warm_s"]) / t


def solve_summary(solves, target):
    """Compact BiCG table (every row, fastest first) and, per matrix, the fastest zsparse row
    against the cuSPARSE BiCG baseline and the target."""
    base = solve_baselines(solves)
    rows = [s for s in solves if s["method"] == "bicg"]
    md = ["| matrix | library | format | backend | status | iterations | warm s | cold s | "
          "ms/iter | speed-up vs cuSPARSE BiCG |", "|---|---|---|---|---|---:|---:|---:|---:|---:|"]
    for s in sorted(rows, key=lambda s: (s["matrix"], num(s["solve_warm_s"]))):
        md.append(f"| {s['matrix']} | {s['library']} | {s['format']} | {s['backend']} | "
                  f"{s['status']} | "
                  f"{s['iterations']} | {num(s['solve_warm_s']):.4f} | "
                  f"{num(s['solve_cold_s']):.4f} | {1e3 * num(s['time_per_iter_s']):.3f} | "
                  f"{fmt(speedup(base, s))} |")
    md.append("")
    for m in sorted({s["matrix"] for s in rows}):
        zs = [s for s in rows if s["matrix"] == m and s["library"] == "zsparse"
              and math.isfinite(speedup(base, s))]
        if m not in base:
            md.append(f"- {m}: no converged cuSPARSE BiCG baseline, no speed-up.")
        elif not zs:
            md.append(f"- {m}: no converged zsparse BiCG row.")
        else:
            best = max(zs, key=lambda s: speedup(base, s))
            sp = speedup(base, best)
            md.append(f"- {m}: fastest zsparse {best['format']} {num(best['solve_warm_s']):.4f} s "
                      f"vs cuSPARSE {num(base[m]['solve_warm_s']):.4f} s: **{sp:.2f}×** "
                      f"(target ≥ {target:g}×: {'met' if sp >= target else 'NOT met'}).")
    md.append("")
    return md


def plot_speedup(plt, solves, target, out_dir):
    base = solve_baselines(solves)
    pts = [s for s in solves if s["library"] == "zsparse" and math.isfinite(speedup(base, s))]
    if not pts:
        return None
    mats = sorted({s["matrix"] for s in pts})
    fig, axes = plt.subplots(1, len(mats), figsize=(4.5 * len(mats), 4), squeeze=False)
    for ax, m in zip(axes[0], mats):
        ps = sorted((s for s in pts if s["matrix"] == m), key=lambda s: -speedup(base, s))
        ax.bar(range(len(ps)), [speedup(base, s) for s in ps], color="C0")
        ax.axhline(1.0, color="k", lw=0.8, label="cuSPARSE BiCG")
        ax.axhline(target, color="r", lw=0.8, ls="--", label=f"target {target:g}×")
        ax.set_xticks(range(len(ps)))
        ax.set_xticklabels([s["format"] for s in ps], rotation=30, ha="right", fontsize=7)
        ax.set_ylabel("speed-up (cuSPARSE warm time / zsparse)")
        ax.set_title(m, fontsize=8)
        ax.legend(fontsize=7)
    fig.suptitle("BiCG time to tolerance: speed-up over the cuSPARSE BiCG baseline", fontsize=9)
    return save(plt, fig, out_dir, "solve_speedup.png")


def main():
    ap = argparse.ArgumentParser(description=__doc__, epilog=USAGE,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpu", action="append", default=[])
    ap.add_argument("--cpu", action="append", default=[])
    ap.add_argument("--cpu-matrix", action="append", default=[])
    ap.add_argument("--solve", action="append", default=[])
    ap.add_argument("--title", default="zsparse benchmark report")
    ap.add_argument("--note", action="append", default=[],
                    help="a paragraph for the top of report.md (repeatable)")
    ap.add_argument("--target", type=float, default=1.5,
                    help="speed-up over cuSPARSE BiCG to check (default 1.5)")
    ap.add_argument("-o", "--out", required=True, help="output folder")
    a = ap.parse_args()
    if len(a.cpu_matrix) not in (0, len(a.cpu)):
        ap.error("give one --cpu-matrix per --cpu file, or none")
    os.makedirs(a.out, exist_ok=True)
    kernels = []
    for p in a.gpu:
        kernels += kernels_from_gpu(read_csv(p))
    for i, p in enumerate(a.cpu):
        kernels += kernels_from_cpu(read_csv(p), a.cpu_matrix[i] if a.cpu_matrix else
                                    os.path.splitext(os.path.basename(p))[0])
    solves = []
    for p in a.solve:
        solves += read_csv(p)
    rel = relative(kernels)
    plt = plt_module()
    figs = {
        "per_matrix_gpu": lambda: plot_per_matrix(plt, rel, "gpu", a.out),
        "per_matrix_cpu": lambda: plot_per_matrix(plt, rel, "cpu", a.out),
        "scatter": lambda: plot_scatter(plt, rel, a.out),
        "bandwidth": lambda: plot_bandwidth(plt, kernels, a.out),
        "solve": lambda: plot_solve(plt, solves, a.out),
        "speedup": lambda: plot_speedup(plt, solves, a.target, a.out),
    }
    figs = {k: f() if plt else None for k, f in figs.items()}
    md = [f"# {a.title}", "",
          "Inputs: " + ", ".join(f"`{p}`" for p in a.gpu + a.cpu + a.solve) + ".", ""]
    if rel:
        md += ["Ratios are zsparse / the fastest vendor kernel for the same matrix, value type "
               "and op (cuSPARSE on the GPU, librsb on the CPU), warm caches unless said; below "
               "1 is better for zsparse. Bytes are what each kernel reads (matrix arrays + x + "
               "y).", ""]
    for n in a.note:
        md += [n, ""]
    if rel:
        md += ["## Summary: geometric means over matrices", "",
               "| device | type | op | zsparse kernel | matrices | size ratio | time ratio "
               "(warm) | time ratio (cold) |", "|---|---|---|---|---:|---:|---:|---:|"]
        keys = sorted({(r["device"], r["type"], r["op"], r["name"]) for r in rel})
        for d, t, o, n in keys:
            g = [r for r in rel if (r["device"], r["type"], r["op"], r["name"]) == (d, t, o, n)]
            md.append(f"| {d} | {t} | {o} | {n} | {len(g)} | "
                      f"{fmt(gmean([r['size_ratio'] for r in g]), 3)} | "
                      f"{fmt(gmean([r['time_ratio'] for r in g]), 3)} | "
                      f"{fmt(gmean([r['cold_ratio'] for r in g]), 3)} |")
        md.append("")
    for key, title in (("per_matrix_gpu", "GPU: per matrix, relative to the best vendor "
                        "format"), ("per_matrix_cpu", "CPU: per matrix, relative to librsb"),
                       ("scatter", "Size ratio vs time ratio"),
                       ("bandwidth", "Achieved bandwidth against the measured ceiling")):
        if figs[key]:
            md += [f"## {title}", "", f"![{title}]({figs[key]})", ""]
    if rel:
        md += ["## Per matrix (f64, y = Ax)", "",
               "| matrix | device | zsparse kernel | best vendor | size ratio | time ratio "
               "(warm) | time ratio (cold) | GB/s | of ceiling |",
               "|---|---|---|---|---:|---:|---:|---:|---:|"]
        for r in rel:
            if r["type"] == "f64" and r["op"] == "N":
                md.append(f"| {r['matrix']} | {r['device']} | {r['name']} | {r['vendor_name']} "
                          f"| {fmt(r['size_ratio'], 3)} | {fmt(r['time_ratio'], 3)} | "
                          f"{fmt(r['cold_ratio'], 3)} | {fmt(r['gbps'], 1)} | "
                          f"{fmt(r['frac'], 3)} |")
        md.append("")
    if solves:
        summary = solve_summary(solves, a.target)
        print("\n".join(summary))
        md += ["## BiCG against the cuSPARSE BiCG baseline", "",
               "Time to tolerance = the median warm solve (x = 0 to ‖r‖/‖b‖ ≤ tol, every "
               "vector update and reduction included; both tools allocate their work vectors "
               "once, before the clock); cold = the first solve on a fresh operator. "
               "Speed-up = cuSPARSE BiCG warm time / this row's, converged rows only.", ""]
        md += summary
        if figs["speedup"]:
            md += [f"![speed-up]({figs['speedup']})", ""]
        md += ["## Solvers: time to tolerance", ""]
        if figs["solve"]:
            md += [f"![time to tolerance]({figs['solve']})", ""]
        md += ["| matrix | method | library | format | backend | precond | status | iterations "
               "| true residual | ‖x−x*‖/‖x*‖ | warm s | cold s | ms/iter | speedup vs "
               "cuSPARSE BiCG |", "|---|---|---|---|---|---|---|---:|---:|---:|---:|---:|---:|"
               "---:|"]
        base = solve_baselines(solves)
        for s in sorted(solves, key=lambda s: (s["matrix"], s["method"],
                                               num(s["solve_warm_s"]))):
            sp = speedup(base, s)
            md.append(f"| {s['matrix']} | {s['method']} | {s['library']} | {s['format']} | "
                      f"{s['backend']} | {s['precond']} | {s['status']} | {s['iterations']} | "
                      f"{num(s['true_rel_residual']):.2e} | {num(s['error_vs_known']):.2e} | "
                      f"{num(s['solve_warm_s']):.4f} | {num(s['solve_cold_s']):.4f} | "
                      f"{1e3 * num(s['time_per_iter_s']):.3f} | "
                      f"{fmt(sp) if s['method'] == 'bicg' else '–'} |")
        md.append("")
    with open(os.path.join(a.out, "report.md"), "w") as f:
        f.write("\n".join(md))
    print(f"wrote {os.path.join(a.out, 'report.md')} and "
          f"{sum(1 for v in figs.values() if v)} plots", file=sys.stderr)


if __name__ == "__main__":
    main()
