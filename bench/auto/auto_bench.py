#!/usr/bin/env python3
"""auto against exhaustive search: per case, auto's choice and every candidate, timed in one run.

    python3 bench/auto/auto_bench.py --set cpu --backend cpu --build build-host --out DIR --device cpu
    python3 bench/auto/auto_bench.py --set device --backend cuda --build build-gpu --out $OUT \\
        --device h100 --vendor build-gpu/bench/gpu/zs-bench-gpu
    python3 bench/auto/auto_bench.py --plan-time SPEC --build build-host --out DIR --device cpu

For each case of bench/auto/cases.txt in the set, value type and op (N: SpMV, P: BiCG's pair):
`zsparse plan SOURCE --backend B --type T --workload spmv|pair --json` gives auto's choice (its
wall time is recorded); then zs-bench-auto times every candidate of bench/auto/candidates.txt and
auto's choice together, in interleaved rounds, each product checked; librsb beside them on cpu
(--rsb), and cuSPARSE's formats through zs-bench-gpu on cuda (--vendor), in the same device run.
Until `zsparse plan` exists in the build, a stand-in choice (plain CSR, what a user gets without
choosing) is timed instead and every line says so (chooser = stand-in).

Writes DIR/DEVICE-auto-runs.csv (every candidate's line from zs-bench-auto), DIR/DEVICE-auto.csv
(one line per case, type and op: the columns are listed in bench/data/README.md) and, with
--plan-time, DIR/DEVICE-auto-plan-time.csv. A case that fails to run is listed with its error and
the run goes on; --budget-s stops starting new cases (what was measured is kept). Exit status 0,
1 when a case failed or a candidate's check failed, 2 usage.
"""
import argparse
import concurrent.futures
import csv
import glob
import json
import os
import resource
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SUMMARY = ["case", "source", "type", "op", "nnz", "backend", "chooser", "auto_choice", "auto_us", "best_candidate",
           "best_us", "auto_over_best", "rank", "candidates", "vendor_best", "vendor_us", "auto_over_vendor",
           "vendor_run_auto_us", "auto_over_vendor_run", "vendor_launch_floor_us", "plan_s",
           "plan_wall_s", "load1", "note"]
WORKLOAD = {"N": "spmv", "P": "pair"}
STAND_IN = "csr"


def canon(spec):
    """FORMAT[:K=V,...][@K=V,...] with each option list sorted: one text per setting."""
    enc, _, ops = spec.partition("@")
    fmt, _, opts = enc.partition(":")

    def sort(s):
        return ",".join(sorted(p for p in s.split(",") if p))
    out = fmt + (":" + sort(opts) if sort(opts) else "")
    return out + ("@" + sort(ops) if sort(ops) else "")


def spec_of_choice(c):
    """A plan's choice {format, options, op_options} (strings or objects) as a candidate spec."""
    def text(v):
        if isinstance(v, dict):
            return ",".join(f"{k}={v[k]}" for k in v)
        return v or ""
    enc, ops = text(c.get("options")), text(c.get("op_options"))
    return canon(c["format"] + (":" + enc if enc else "") + ("@" + ops if ops else ""))


def read_cases(path, which, shared):
    """[(name, source, types, ops)] of the sets in `which` (comma-separated; a case once, in the
    file's order); shared:* expands to the shared matrices."""
    cases = []
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if len(line) != 5:
                sys.exit(f"auto_bench.py: {path}:{n}: expected `SET NAME TYPES OPS SOURCE`")
            sets, name, types, ops, source = line
            if not set(which.split(",")) & set(sets.split(",")):
                continue
            if source == "shared:*":
                files = sorted(glob.glob(os.path.join(shared, "*.mtx")) + glob.glob(os.path.join(shared, "*.mtx.gz")))
                if not files:
                    print(f"auto_bench.py: no matrices in {shared}: the shared cases are skipped", file=sys.stderr)
                for p in files:
                    base = os.path.basename(p)
                    cases.append((base[:base.index(".mtx")], p, types.split(","), ops.split(",")))
            else:
                cases.append((name, source, types.split(","), ops.split(",")))
    return cases


def load1():
    try:
        with open("/proc/loadavg", encoding="ascii") as f:
            return f.read().split()[0]
    except OSError:
        return ""


def child_cpu_s():
    """User + system seconds of the children waited for so far."""
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def run(cmd, timeout, env=None):
    """(exit status, stdout, stderr, wall seconds); status 124 on a timeout."""
    t0 = time.monotonic()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
        return p.returncode, p.stdout, p.stderr, time.monotonic() - t0
    except subprocess.TimeoutExpired:
        return 124, "", f"timed out after {timeout:.0f} s", time.monotonic() - t0


class Planner:
    """auto's choice per (source, type, op) from `zsparse plan --json`, or the stand-in."""

    def __init__(self, zsparse, backend, device):
        self.zsparse, self.backend = zsparse, backend
        self.device = ["--device", device] if device else []
        rc, out, err, _ = run([zsparse, "plan", "--help"], 30)
        self.real = rc == 0
        if not self.real:
            print(f"auto_bench.py: `zsparse plan` is not in this build ({(err or out).strip()[:80]}): "
                  f"the stand-in choice {STAND_IN} is timed as auto's", file=sys.stderr)

    def prefetch(self, keys, jobs):
        """Ask plan for every (source, type, op) of keys at once on `jobs` host threads, before
        anything is timed (plan's wall times then include the others' load); choose() answers
        from what was asked. Failures are kept and raised by choose()."""
        self.cache = {}
        if not self.real or jobs < 2:
            return

        def one(k):
            try:
                return k, self.choose(*k)
            except (RuntimeError, ValueError, KeyError) as e:
                return k, e
        with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
            for k, v in pool.map(one, keys):
                self.cache[k] = v

    def choose(self, source, t, op):
        """(spec, chooser, the model's seconds as plan reports them, plan's wall seconds)."""
        got = getattr(self, "cache", {}).get((source, t, op))
        if isinstance(got, Exception):
            raise got
        if got:
            return got
        if not self.real:
            return STAND_IN, "stand-in", None, None
        cmd = [self.zsparse, "plan", source, "--backend", self.backend, "--type", t, "--workload", WORKLOAD[op],
               "--json"] + self.device
        rc, out, err, wall = run(cmd, 600)
        if rc != 0:
            raise RuntimeError(f"zsparse plan exit {rc}: {(err or out).strip()[:300]}")
        plan = json.loads(out)
        got = spec_of_choice(plan["choice"]), "model", plan.get("plan_s"), wall
        if not hasattr(self, "cache"):
            self.cache = {}
        self.cache[(source, t, op)] = got  # asked again for the vendor's run and the timer's
        return got


def vendor_times(prog, source, types, reps, timeout, specs=(), batch=1):
    """{(type, op): (time_us, kernel)} of cuSPARSE's best formats from zs-bench-gpu: N = the best
    SpMV; P = the best SpMV + the best Aᵀx (transposed from one copy, or a stored Aᵀ). With
    `specs` (auto's SpMV choices), each is timed in the same process, by the same clock, as
    --format with its SpMV alone: {(type, "N", spec): time_us} is added ("csr", our default
    operator, zs-bench-gpu times anyway). batch > 1: each warm sample is that many back-to-back
    calls between one pair of events (zs-bench-gpu --batch), as zs-bench-auto times ours: a product
    of a few us is otherwise timed with the host's time to issue it."""
    out_csv = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"auto-vendor-{os.getpid()}.csv")
    extra = sorted({s for s in specs if s != "csr"})
    cmd = [prog, "--no-cold", "--reps", str(reps), "--types", ",".join(types), "--csv", out_csv] + \
        (["--batch", str(batch)] if batch > 1 else []) + \
        (["--format-spmv-only"] if extra else []) + [x for e in extra for x in ("--format", e)] + [source]
    rc, _, err, _ = run(cmd, timeout)
    if rc not in (0, 1) or not os.path.exists(out_csv):
        raise RuntimeError(f"zs-bench-gpu exit {rc}: {err.strip()[-300:]}")
    with open(out_csv, newline="") as f:
        every = list(csv.DictReader(f))
    checked = [r for r in every if r["time_warm_us"] and r["ok"] in ("1", "ok", "yes", "true")]
    os.remove(out_csv)
    rows = [r for r in checked if r["library"] == "cusparse"]
    found = {(r["type"], "N", r["kernel"]): float(r["time_warm_us"]) for r in checked
             if r["library"] == "zsparse" and r["op"] == "N" and r["kernel"] in set(specs)}
    for t in types:
        n = [(float(r["time_warm_us"]), r["kernel"]) for r in rows if r["type"] == t and r["op"] == "N"]
        tt = [(float(r["time_warm_us"]), r["kernel"]) for r in rows if r["type"] == t and r["op"] == "T"]
        if n:
            found[(t, "N")] = min(n)
        if n and tt:
            (a, ka), (b, kb) = min(n), min(tt)
            found[(t, "P")] = (a + b, f"{ka} + {kb} T")
    floor = next((r["launch_floor_us"] for r in every if r.get("launch_floor_us")), None)
    if floor:  # the host's launch floor in that process: what products of a few us are bound by
        found["launch_floor"] = float(floor)
    return found


def summarise(name, source, t, op, rows, choice, vendor, load):
    """One summary line of a case, type and op from the runs' lines."""
    auto_spec, chooser, plan_s, plan_wall = choice
    mine = [r for r in rows if r["library"] == "zsparse" and r["op"] == op and r["type"] == t]
    good = sorted((float(r["time_us"]), canon(r["candidate"])) for r in mine if r["ok"] == "1" and r["time_us"])
    auto = next((r for r in mine if canon(r["candidate"]) == auto_spec), None)
    line = {"case": name, "source": source, "type": t, "op": op, "nnz": rows[0]["nnz"] if rows else "",
            "backend": rows[0]["backend"] if rows else "", "chooser": chooser, "auto_choice": auto_spec,
            "candidates": len(good), "plan_s": f"{plan_s:.4f}" if plan_s is not None else "",
            "plan_wall_s": f"{plan_wall:.3f}" if plan_wall is not None else "", "load1": load, "note": ""}
    if good:
        line["best_us"], line["best_candidate"] = f"{good[0][0]:.3f}", good[0][1]
    if auto is None or auto["ok"] != "1" or not auto["time_us"]:
        line["note"] = "auto's choice " + (f"failed: {auto['status']} {auto['message']}" if auto else "was not timed")
    elif good:
        a = float(auto["time_us"])
        line["auto_us"] = f"{a:.3f}"
        line["auto_over_best"] = f"{a / good[0][0]:.3f}"
        line["rank"] = 1 + sum(1 for g in good if g[0] < a)
    peer = vendor.get((t, op))
    if peer:
        line["vendor_best"], line["vendor_us"] = peer[1], f"{peer[0]:.3f}"
        if line.get("auto_us"):
            line["auto_over_vendor"] = f"{float(line['auto_us']) / peer[0]:.3f}"
        if "launch_floor" in vendor:
            line["vendor_launch_floor_us"] = f"{vendor['launch_floor']:.3f}"
        same = vendor.get((t, op, auto_spec))
        if same:
            line["vendor_run_auto_us"] = f"{same:.3f}"
            line["auto_over_vendor_run"] = f"{same / peer[0]:.3f}"
    return line


def rsb_vendor(rows):
    out = {}
    for r in rows:
        if r["library"] == "librsb" and r["ok"] == "1" and r["time_us"]:
            out[(r["type"], r["op"])] = (float(r["time_us"]), r["candidate"])
    return out


def write_csv(path, head, lines):
    with open(path, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=head, extrasaction="ignore")
        w.writeheader()
        w.writerows(lines)


def plan_time(a, zsparse, timer):
    """The model's choice time on one core for the matrix of --plan-time, pinned to one core with
    one thread: as plan reports it (plan_s: zs_plan_create alone), and as plan's wall time minus
    the time to generate or read the same matrix alone (a cross-check that trusts no clock of
    plan's); and the same difference in CPU seconds of the two processes, which a busy machine
    does not inflate as it does wall time."""
    env = dict(os.environ, ZS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    pin = ["taskset", "-c", "0"] if subprocess.run(["which", "taskset"], capture_output=True).returncode == 0 else []
    src = a.plan_time if a.plan_time.startswith("gen:") or os.path.exists(a.plan_time) else "gen:" + a.plan_time
    lines = []
    for t in a.types.split(","):
        c0 = child_cpu_s()
        rc, out, err, load_wall = run(pin + [timer, "--load-only", "--type", t, src], 3600, env)
        load_cpu = child_cpu_s() - c0
        if rc != 0:
            sys.exit(f"auto_bench.py: zs-bench-auto --load-only: {err.strip()}")
        fields = dict(l.split() for l in out.splitlines() if len(l.split()) == 2)
        dev = ["--device", a.plan_device] if a.plan_device else []
        c0 = child_cpu_s()
        rc, out, err, wall = run(pin + [zsparse, "plan", src, "--backend", a.backend, "--type", t, "--json"] + dev, 3600, env)
        plan_cpu = child_cpu_s() - c0
        if rc != 0:
            sys.exit(f"auto_bench.py: zsparse plan: {(err or out).strip()[:300]}")
        plan = json.loads(out)
        choice, model = spec_of_choice(plan["choice"]), plan.get("plan_s")
        lines.append({"source": src, "type": t, "nnz": fields.get("nnz", ""), "backend": a.backend,
                      "plan_s": f"{model:.3f}" if model is not None else "", "plan_wall_s": f"{wall:.3f}",
                      "load_wall_s": f"{load_wall:.3f}", "load_s": fields.get("load_s", ""),
                      "wall_minus_load_s": f"{wall - load_wall:.3f}", "plan_cpu_s": f"{plan_cpu:.3f}",
                      "load_cpu_s": f"{load_cpu:.3f}", "cpu_minus_load_s": f"{plan_cpu - load_cpu:.3f}", "choice": choice,
                      "load1": load1()})
        print(f"{src} {t}: plan_s {model} s; plan {wall:.2f} s wall, {plan_cpu:.2f} s cpu; load alone {load_wall:.2f} s "
              f"wall, {load_cpu:.2f} s cpu ({choice})")
    path = os.path.join(a.out, f"{a.device}-auto-plan-time.csv")
    write_csv(path, list(lines[0]), lines)
    return 0


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--set", default="cpu", help="cases of bench/auto/cases.txt to run (device, device-more, full, "
                   "cpu; several comma-separated, run in the file's order)")
    p.add_argument("--cases", default=os.path.join(HERE, "cases.txt"))
    p.add_argument("--candidates", default=os.path.join(HERE, "candidates.txt"))
    p.add_argument("--only", action="append", default=[], help="run only the cases of this name (repeatable)")
    p.add_argument("--backend", default="cpu")
    p.add_argument("--build", default="build-host", help="the build folder holding tools/ and bench/")
    p.add_argument("--out", required=True, help="folder of the CSV files")
    p.add_argument("--device", required=True, help="the files' prefix, e.g. h100 or cpu")
    p.add_argument("--zsparse", help="the zsparse tool whose plan chooses (default: BUILD's)")
    p.add_argument("--vendor", help="zs-bench-gpu: cuSPARSE's formats beside (cuda)")
    p.add_argument("--vendor-batch", type=int, default=16,
                   help="zs-bench-gpu --batch: calls per warm sample of the vendor's run (default 16; "
                        "1: each call between its own events, which adds the host's issue time)")
    p.add_argument("--rsb", action="store_true", help="librsb beside (cpu)")
    p.add_argument("--plan-device", help="zsparse plan's --device (h100, h200, gpu, cpu): the constants' device class")
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--sample-ms", type=float, default=2, help="zs-bench-auto's --sample-ms")
    p.add_argument("--jobs", type=int, default=1, help="zs-bench-auto's --jobs: encoder settings encoded at once")
    p.add_argument("--plan-jobs", type=int, default=1,
                   help="ask plan for every case at once on this many threads before timing (default 1: one by one)")
    p.add_argument("--budget-s", type=float, default=0, help="start no case after this many seconds (0: no limit)")
    p.add_argument("--case-timeout-s", type=float, default=600)
    p.add_argument("--shared", default=os.path.join(ROOT, "..", "shared", "matrices"))
    p.add_argument("--plan-time", metavar="SPEC", help="only measure the model's choice time for this matrix")
    p.add_argument("--types", default="f64", help="with --plan-time: value types")
    a = p.parse_args()
    if a.reps < 1:
        p.error("--reps must be at least 1")
    if a.vendor_batch < 1:
        p.error("--vendor-batch must be at least 1")
    zsparse = a.zsparse or os.path.join(a.build, "tools", "zsparse", "zsparse")
    timer = os.path.join(a.build, "bench", "auto", "zs-bench-auto")
    for prog in [zsparse, timer] + ([a.vendor] if a.vendor else []):
        if not os.access(prog, os.X_OK):
            p.error(f"{prog} is not built")
    os.makedirs(a.out, exist_ok=True)
    if a.plan_time:
        return plan_time(a, zsparse, timer)

    cases = read_cases(a.cases, a.set, a.shared)
    if a.only:
        cases = [c for c in cases if c[0] in a.only]
    if not cases:
        p.error(f"no case of set {a.set!r} in {a.cases}")
    start = time.monotonic()  # the budget counts the plans asked for up front too
    planner = Planner(zsparse, a.backend, a.plan_device)
    planner.prefetch([(source, t, op) for _, source, types, ops in cases for t in types for op in ops], a.plan_jobs)
    with open(a.candidates, encoding="utf-8") as f:
        listed = {canon(l.split()[1]) for l in f if l.split("#", 1)[0].split()}
    runs_csv = os.path.join(a.out, f"{a.device}-auto-runs.csv")
    if os.path.exists(runs_csv):
        os.remove(runs_csv)
    summary, failed = [], 0
    for name, source, types, ops in cases:
        if a.budget_s and time.monotonic() - start > a.budget_s:
            print(f"auto_bench.py: budget of {a.budget_s:.0f} s spent: {name} and later cases not run", file=sys.stderr)
            break
        vendor = {}
        if a.vendor:
            specs = []  # auto's SpMV choices, timed beside cuSPARSE too (plans are prefetched)
            for t in types:
                try:
                    specs += [planner.choose(source, t, "N")[0]] if "N" in ops else []
                except (RuntimeError, ValueError, KeyError):
                    pass  # reported with the case below
            try:
                vendor = vendor_times(a.vendor, source, types, a.reps, a.case_timeout_s, specs,
                                      a.vendor_batch)
            except RuntimeError as e:
                print(f"{name}: cuSPARSE not timed: {e}", file=sys.stderr)
        for t in types:
            load = load1()
            choices = {}
            try:
                for op in ops:
                    choices[op] = planner.choose(source, t, op)
            except (RuntimeError, ValueError, KeyError) as e:
                if "complex matrices are not supported" in str(e):  # a skip, not a failure
                    print(f"{name}: skipped: complex values are not supported", file=sys.stderr)
                    summary += [{"case": name, "source": source, "type": t, "op": op,
                                 "note": "skipped: complex values are not supported"} for op in ops]
                    continue
                failed += 1
                summary += [{"case": name, "source": source, "type": t, "op": op, "note": f"plan failed: {e}"} for op in ops]
                continue
            extra = sorted({c[0] for c in choices.values()} - listed)
            part = os.path.join(a.out, f".{a.device}-auto-part.csv")
            if os.path.exists(part):
                os.remove(part)
            cmd = [timer, source, "--backend", a.backend, "--type", t, "--ops", ",".join(ops), "--case", name,
                   "--candidates", a.candidates, "--reps", str(a.reps), "--csv", part, "--sample-ms", str(a.sample_ms),
                   "--jobs", str(a.jobs)] + \
                  [x for e in extra for x in ("--candidate", e)] + (["--rsb"] if a.rsb else [])
            rc, _, err, wall = run(cmd, a.case_timeout_s)
            print(f"{name} {t}: {wall:.1f} s, exit {rc}", file=sys.stderr)
            if not os.path.exists(part):
                failed += 1
                summary += [{"case": name, "source": source, "type": t, "op": op, "note": f"zs-bench-auto exit {rc}: {err.strip()[-200:]}"} for op in ops]
                continue
            failed += rc != 0
            with open(part, newline="") as f:
                rows = list(csv.DictReader(f))
            new = not os.path.exists(runs_csv)
            with open(runs_csv, "a", encoding="utf-8") as out, open(part, encoding="utf-8") as f:
                out.writelines(f.readlines()[0 if new else 1:])
            os.remove(part)
            peers = rsb_vendor(rows) if a.rsb else vendor
            for op in ops:
                line = summarise(name, source, t, op, rows, choices[op], peers, load)
                summary.append(line)
                print(f"  {op}: auto {line.get('auto_choice')} {line.get('auto_us', '-')} us, best {line.get('best_candidate')} "
                      f"{line.get('best_us', '-')} us, ratio {line.get('auto_over_best', '-')}, vendor {line.get('vendor_us', '-')}",
                      file=sys.stderr)
            write_csv(os.path.join(a.out, f"{a.device}-auto.csv"), SUMMARY, summary)
    write_csv(os.path.join(a.out, f"{a.device}-auto.csv"), SUMMARY, summary)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
