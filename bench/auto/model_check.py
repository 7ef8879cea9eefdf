#!/usr/bin/env python3
"""The model against measured times: for every case of a runs file (DEVICE-auto-runs.csv of
bench/auto/auto_bench.py), `zsparse plan --json` is asked again, and each candidate's predicted
time is put beside its measured one; the model's choice is then looked up among the measured.

    python3 bench/auto/model_check.py bench/data/h100-auto-runs.csv --build build-host [--device h100]

Prints per case, type and op the candidates the model lists (predicted µs, measured µs, their
ratio) and a summary line: the measured time of the model's choice over the best measured
candidate (every candidate of the run, the model's or not); a choice the run did not time is
listed apart, as is one whose blob in the run is not the one the plan prices: packed rows
(dtans:row_kind=packed) that the encoder now orders (the plan's `packed_order`) and whose run's
blob is over 1.3x the predicted bytes, i.e. encoded in natural order before the default ordered
them. --calibration-for CALL=FILE replays the lines of one call (the `call` column of
bench/auto/join_runs.py) with a calibration of their own, e.g. a kernel since changed. With --vendor (the run's DEVICE-auto.csv) the worst of its time over the vendor's
best is printed too. It needs no GPU: plan runs on the
host, the times come from the file. Exit status 0, 2 usage.
"""
import argparse
import csv
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from auto_bench import canon, spec_of_choice, WORKLOAD  # noqa: E402


def plan(zsparse, source, backend, t, op, device, extra):
    cmd = [zsparse, "plan", source, "--backend", backend, "--type", t, "--workload", WORKLOAD[op], "--json"]
    cmd += ["--device", device] if device else []
    cmd += extra
    p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if p.returncode != 0:
        raise RuntimeError(f"zsparse plan exit {p.returncode}: {(p.stderr or p.stdout).strip()[:300]}")
    return json.loads(p.stdout)


def stale_packed(p, blobs):
    """The packed-rows candidates of plan p whose blob in the run (spec -> bytes) is not the
    ordered one the plan prices: the run encoded them in natural order."""
    if not p.get("stats", {}).get("packed_order"):
        return []
    stale = []
    for c in p["candidates"]:
        spec = spec_of_choice(c)
        if "row_kind=packed" not in spec or "transpose=stored" in spec:
            continue
        got = blobs.get(spec)
        if got and got > 1.3 * c["predicted_bytes"]:
            stale += [s for s in blobs if s.partition("@")[0] == spec.partition("@")[0]]
    return stale


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("runs", help="a DEVICE-auto-runs.csv file")
    ap.add_argument("--build", default="build-host")
    ap.add_argument("--device", help="plan's --device (default: the backend's)")
    ap.add_argument("--calibration", help="plan's --calibration")
    ap.add_argument("--calibration-for", action="append", default=[], metavar="CALL=FILE",
                    help="plan's --calibration for the lines of that call (the file's `call` column)")
    ap.add_argument("--only", action="append", default=[], help="only this case (repeatable)")
    ap.add_argument("--quiet", action="store_true", help="summary lines only")
    ap.add_argument("--vendor", help="the run's DEVICE-auto.csv: the choice's time over its vendor_us too")
    a = ap.parse_args()
    zsparse = os.path.join(a.build, "tools", "zsparse", "zsparse")
    if not os.access(zsparse, os.X_OK):
        ap.error(f"{zsparse} is not built")
    extra = ["--calibration", a.calibration] if a.calibration else []
    per_call = {}
    for item in a.calibration_for:
        call, sep, path = item.partition("=")
        if not sep or not call or not path:
            ap.error(f"--calibration-for {item!r}: expected CALL=FILE")
        per_call[call] = ["--calibration", path]
    with open(a.runs, newline="", encoding="utf-8") as f:
        rows = [r for r in csv.DictReader(f) if r["library"] == "zsparse" and r["ok"] == "1" and r["time_us"]]
    groups, calls, blobs = {}, {}, {}
    for r in rows:
        key = (r["case"], r["source"], r["backend"], r["type"], r["op"])
        groups.setdefault(key, {})[canon(r["candidate"])] = float(r["time_us"])
        calls[key] = r.get("call", "")
        if r.get("bytes"):
            blobs.setdefault(key, {})[canon(r["candidate"])] = float(r["bytes"])
    vendor = {}
    if a.vendor:
        with open(a.vendor, newline="", encoding="utf-8") as f:
            vendor = {(r["case"], r["type"], r["op"]): float(r["vendor_us"]) for r in csv.DictReader(f)
                      if r.get("vendor_us")}
    ratios, untimed, over_vendor = [], [], []
    for (case, source, backend, t, op), measured in groups.items():
        if a.only and case not in a.only:
            continue
        if source.startswith("gen:") is False and not os.path.exists(source):
            print(f"{case}: {source} is not here: skipped", file=sys.stderr)
            continue
        p = plan(zsparse, source, backend, t, op, a.device,
                 per_call.get(calls[(case, source, backend, t, op)], extra))
        for spec in stale_packed(p, blobs.get((case, source, backend, t, op), {})):
            measured.pop(spec, None)
        best_spec, best_us = min(measured.items(), key=lambda kv: kv[1])
        choice = spec_of_choice(p["choice"])
        got = measured.get(choice)
        if not a.quiet:
            print(f"{case} {t} {op}")
            for c in p["candidates"]:
                spec = spec_of_choice(c)
                m = measured.get(spec)
                mark = "*" if spec == choice else " "
                ratio = f"{c['predicted_us'] / m:6.2f}" if m else "     -"
                print(f"  {mark} {spec:48s} pred {c['predicted_us']:9.1f}  meas {m if m else float('nan'):9.1f}  {ratio}")
        ratio = got / best_us if got else float("nan")
        if got:
            ratios.append(ratio)
            if (case, t, op) in vendor:
                over_vendor.append((got / vendor[(case, t, op)], f"{case} {t} {op}"))
        else:
            untimed.append(f"{case} {t} {op} ({choice})")
        print(f"= {case} {t} {op}: choice {choice} {got if got else float('nan'):.1f} us, best {best_spec} "
              f"{best_us:.1f} us, choice/best {ratio:.3f}")
    if ratios:
        print(f"median choice/best {statistics.median(ratios):.3f}, worst {max(ratios):.3f}, "
              f"within 10 % {100 * sum(r <= 1.1 for r in ratios) / len(ratios):.0f} % of {len(ratios)}")
    if over_vendor:
        worst = max(over_vendor)
        print(f"worst choice/vendor {worst[0]:.3f} ({worst[1]}); over 1.03 on {sum(r > 1.03 for r, _ in over_vendor)} "
              f"of {len(over_vendor)}")
    if untimed:
        print(f"choice not timed in the file, left out of the summary: {len(untimed)}: {', '.join(untimed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
