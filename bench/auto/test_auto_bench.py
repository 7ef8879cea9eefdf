#!/usr/bin/env python3
"""bench/auto: zs-bench-auto and auto_bench.py on tiny cases of the cpu backend (no timing claims).

    test_auto_bench.py SOURCE_ROOT BUILD_ROOT
"""
import csv
import os
import subprocess
import sys
import tempfile

SRC, BUILD = sys.argv[1], sys.argv[2]
sys.path.insert(0, os.path.join(SRC, "bench", "auto"))
import auto_bench  # noqa: E402

TIMER = os.path.join(BUILD, "bench", "auto", "zs-bench-auto")
failures = []


def expect(cond, what):
    if not cond:
        failures.append(what)
        print("FAIL:", what)


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


# One text per setting, whatever the order of the options or their form in plan's JSON.
expect(auto_bench.canon("dtans:b=1,a=2@z=1,y=2") == "dtans:a=2,b=1@y=2,z=1", "canon sorts both option lists")
expect(auto_bench.canon("csr@") == "csr" and auto_bench.canon("cci:") == "cci", "canon drops empty lists")
expect(auto_bench.spec_of_choice({"format": "cci", "options": {"slices": 2, "opcodes": "auto"}, "op_options": ""})
       == "cci:opcodes=auto,slices=2", "a choice with an options object")
expect(auto_bench.spec_of_choice({"format": "dtans", "options": "", "op_options": "transpose=atomic"})
       == "dtans@transpose=atomic", "a choice with option strings")

# model_check.py leaves out packed rows a run encoded in natural order where the plan prices the
# encoder's ordered blob (a run's blob over 1.3x the predicted bytes), with their transposes.
import model_check  # noqa: E402
plan = {"stats": {"packed_order": 1}, "candidates": [
    {"format": "csr", "options": "", "op_options": "", "predicted_bytes": 100},
    {"format": "dtans", "options": "row_kind=packed", "op_options": "", "predicted_bytes": 60}]}
blobs = {"csr": 300, "dtans:row_kind=packed": 200, "dtans:row_kind=packed@transpose=stored": 200}
expect(sorted(model_check.stale_packed(plan, blobs)) == ["dtans:row_kind=packed", "dtans:row_kind=packed@transpose=stored"],
       "packed rows encoded in natural order are left out")
blobs["dtans:row_kind=packed"] = 70
expect(model_check.stale_packed(plan, blobs) == [], "an ordered blob is kept")
plan["stats"]["packed_order"] = 0
blobs["dtans:row_kind=packed"] = 200
expect(model_check.stale_packed(plan, blobs) == [], "natural order priced: kept")

with tempfile.TemporaryDirectory() as d:
    cand = os.path.join(d, "cand.txt")
    with open(cand, "w") as f:
        f.write("# test list\nall csr\nall coo  # comment\nall csr@transpose=stored\ngpu csr@col_slabs=1\nhip coo@transpose=atomic\n")
    cases = os.path.join(d, "cases.txt")
    with open(cases, "w") as f:
        f.write("t lap f64 N,P gen:stencil2d:n=40,points=5,values=random,seed=1\n"
                "t,u er f32 N gen:erdos_renyi:rows=500,cols=700,per_row=5,seed=2\n"
                "u skipped f64 N gen:stencil2d:n=8\n")
    out = os.path.join(d, "out")
    p = subprocess.run([sys.executable, os.path.join(SRC, "bench", "auto", "auto_bench.py"), "--set", "v,t", "--cases", cases,
                        "--candidates", cand, "--backend", "cpu", "--build", BUILD, "--out", out, "--device", "test",
                        "--reps", "3", "--rsb", "--jobs", "3", "--plan-jobs", "2", "--sample-ms", "1"], capture_output=True, text=True, timeout=300)
    expect(p.returncode == 0, f"auto_bench.py exit {p.returncode}: {p.stderr[-2000:]}")
    summary = rows(os.path.join(out, "test-auto.csv"))
    runs = rows(os.path.join(out, "test-auto-runs.csv"))
    got = [(r["case"], r["type"], r["op"]) for r in summary]
    expect(got == [("lap", "f64", "N"), ("lap", "f64", "P"), ("er", "f32", "N")], f"cases of set t, in order: {got}")
    # auto's choices not listed are timed beside the list, each for every op it applies to (a
    # transpose option for the pair only)
    chosen = {}
    for r in summary:
        chosen.setdefault((r["case"], r["type"]), set()).add(r["auto_choice"])
    for r in summary:
        expect(r["chooser"] in ("model", "stand-in"), f"chooser named: {r}")
        expect(r["best_us"] and r["auto_us"] and float(r["best_us"]) <= float(r["auto_us"]), f"best is the fastest: {r}")
        expect(r["auto_over_best"] and abs(float(r["auto_over_best"]) - float(r["auto_us"]) / float(r["best_us"])) < 2e-3,
               f"ratio is auto / best: {r}")
        more = {c for c in chosen[(r["case"], r["type"])] - {"csr", "coo", "csr@transpose=stored"}
                if r["op"] == "P" or "transpose=" not in c}
        want = {"N": 2, "P": 3}[r["op"]] + len(more)
        expect(int(r["candidates"]) == want, f"{want} candidates timed and checked: {r}")
        expect(r["load1"] != "", "the machine's load recorded")
    names = {(r["op"], r["candidate"]) for r in runs if r["library"] == "zsparse"}
    expect(("P", "csr@transpose=stored") in names and ("N", "csr@transpose=stored") not in names,
           "transpose options timed for the pair only")
    expect(not any("col_slabs" in n or "coo@transpose" in n for _, n in names), "other backends' lines left out")
    expect(all(r["ok"] == "1" and r["status"] == "ok" for r in runs), "every product checked and passed")
    expect(all(float(r["max_rel_err"]) < 1e-5 for r in runs), "errors measured")

    # model_check.py on the same runs: plan asked again, its choice found among the timed lines.
    p = subprocess.run([sys.executable, os.path.join(SRC, "bench", "auto", "model_check.py"),
                        os.path.join(out, "test-auto-runs.csv"), "--build", BUILD], capture_output=True, text=True,
                       timeout=120)
    lines = [l for l in p.stdout.splitlines() if l.startswith("= ")]
    expect(p.returncode == 0 and len(lines) == 3 and "of 3" in p.stdout, f"model_check.py: {p.stdout}{p.stderr}")
    for l, r in zip(lines, summary):
        expect(f"choice {r['auto_choice']} " in l, f"model_check.py finds plan's choice: {l} / {r}")

    # zs-bench-auto alone: bad lists and bad options are errors naming what and where.
    bad = os.path.join(d, "bad.txt")
    with open(bad, "w") as f:
        f.write("all csr\nall csr extra\n")
    p = subprocess.run([TIMER, "--candidates", bad, "--backend", "cpu", "gen:stencil2d:n=8"], capture_output=True, text=True)
    expect(p.returncode != 0 and "bad.txt:2" in p.stderr, f"a malformed line is refused with its place: {p.stderr}")
    p = subprocess.run([TIMER, "--candidate", "nope", "gen:stencil2d:n=8"], capture_output=True, text=True)
    expect(p.returncode != 0 and "unknown format 'nope'" in p.stderr, f"an unknown format is refused: {p.stderr}")
    csvp = os.path.join(d, "typo.csv")
    p = subprocess.run([TIMER, "--candidate", "csr@transpose=sideways", "--backend", "cpu", "--ops", "P", "--reps", "2",
                        "--csv", csvp, "gen:stencil2d:n=8"], capture_output=True, text=True)
    r = rows(csvp)
    expect(p.returncode == 1 and r[0]["status"] == "error" and "sideways" in r[0]["message"],
           f"a refused operator option fails the run: {p.returncode} {r}")
    # Encoder settings encoded on several threads: the same blobs, the same checks.
    one, three = os.path.join(d, "j1.csv"), os.path.join(d, "j3.csv")
    for jobs, path in (("1", one), ("3", three)):
        subprocess.run([TIMER, "--candidates", cand, "--backend", "cpu", "--reps", "1", "--sample-ms", "0", "--jobs", jobs,
                        "--csv", path, "gen:stencil2d:n=30,points=9,seed=3"], capture_output=True, text=True)
    key = [(r["candidate"], r["op"], r["bytes"], r["status"]) for r in rows(one)]
    expect(len(key) == 5 and key == [(r["candidate"], r["op"], r["bytes"], r["status"]) for r in rows(three)],
           f"--jobs 3 gives --jobs 1's lines: {key}")
    p = subprocess.run([TIMER, "--jobs", "0", "gen:stencil2d:n=8"], capture_output=True, text=True)
    expect(p.returncode == 2 and "--jobs" in p.stderr, "--jobs 0 is a usage error")
    p = subprocess.run([TIMER, "--reps", "0", "gen:stencil2d:n=8"], capture_output=True, text=True)
    expect(p.returncode == 2, "--reps 0 is a usage error")
    p = subprocess.run([TIMER, "--load-only", "gen:stencil2d:n=8"], capture_output=True, text=True)
    expect(p.returncode == 0 and "nnz 288" in p.stdout, f"--load-only prints nnz: {p.stdout}")

    # cuSPARSE's best from zs-bench-gpu's CSV (a stand-in program writes one): checked rows only,
    # P = best SpMV + best transposed product.
    fake = os.path.join(d, "fake-bench-gpu")
    with open(fake, "w") as f:
        f.write("#!/bin/sh\nwhile [ $# -gt 1 ]; do [ \"$1\" = --csv ] && out=$2; shift; done\ncat > \"$out\" <<'X'\n"
                "matrix,rows,cols,nnz,type,library,kernel,op,bytes,time_warm_us,time_cold_us,gbps,frac_ceiling,max_rel_err,ok\n"
                "m,1,1,1,f64,cusparse,csr-alg1,N,1,10.0,,,,,1\nm,1,1,1,f64,cusparse,sell32,N,1,8.0,,,,,1\n"
                "m,1,1,1,f64,cusparse,coo-alg1,N,1,1.0,,,,,0\nm,1,1,1,f64,zsparse,csr,N,1,2.0,,,,,1\n"
                "m,1,1,1,f64,cusparse,csr-alg1,T,1,12.0,,,,,1\nm,1,1,1,f64,cusparse,csr-alg1-stored-At,T,1,9.0,,,,,1\nX\n")
    os.chmod(fake, 0o755)
    v = auto_bench.vendor_times(fake, "gen:x", ["f64"], 3, 30)
    expect(v == {("f64", "N"): (8.0, "sell32"), ("f64", "P"): (17.0, "sell32 + csr-alg1-stored-At T")},
           f"cuSPARSE's best SpMV and pair: {v}")
    # auto's SpMV choices timed in the same process: --format each (not csr, timed anyway) with
    # their SpMV alone; their checked lines come back by spec, a failed check's do not.
    with open(fake, "w") as f:
        f.write("#!/bin/sh\necho \"$@\" > \"$0.args\"\n"
                "while [ $# -gt 1 ]; do [ \"$1\" = --csv ] && out=$2; shift; done\ncat > \"$out\" <<'X'\n"
                "matrix,rows,cols,nnz,type,library,kernel,op,bytes,time_warm_us,time_cold_us,gbps,frac_ceiling,max_rel_err,ok,"
                "launch_floor_us\n"
                "m,1,1,1,f64,cusparse,csr-alg1,N,1,10.0,,,,,1,2.5\nm,1,1,1,f64,zsparse,csr,N,1,9.0,,,,,1,2.5\n"
                "m,1,1,1,f64,zsparse,sell:sigma=4096,N,1,7.5,,,,,1,2.5\nm,1,1,1,f64,zsparse,dtans,N,1,1.0,,,,,0,2.5\nX\n")
    v = auto_bench.vendor_times(fake, "gen:x", ["f64"], 3, 30, ["csr", "sell:sigma=4096", "dtans", "csr"], 16)
    with open(fake + ".args") as f:
        args = f.read().split()
    expect("--batch" in args and args[args.index("--batch") + 1] == "16", f"the vendor's batch: {args}")
    expect(v == {("f64", "N"): (10.0, "csr-alg1"), ("f64", "N", "csr"): 9.0, ("f64", "N", "sell:sigma=4096"): 7.5,
                 "launch_floor": 2.5}, f"auto's choices beside cuSPARSE, and the run's launch floor: {v}")
    expect("--format-spmv-only" in args and args.count("--format") == 2 and "sell:sigma=4096" in args
           and "dtans" in args and args[-1] == "gen:x", f"zs-bench-gpu's arguments: {args}")
    line = auto_bench.summarise("m", "gen:x", "f64", "N", [{"library": "zsparse", "op": "N", "type": "f64",
                                "candidate": "sell:sigma=4096", "ok": "1", "time_us": "8.0", "nnz": "1",
                                "backend": "cuda"}], ("sell:sigma=4096", "model", 0.01, 0.1), v, "0.5")
    expect(line.get("auto_over_vendor") == "0.800" and line.get("vendor_run_auto_us") == "7.500"
           and line.get("auto_over_vendor_run") == "0.750" and line.get("vendor_launch_floor_us") == "2.500",
           f"the summary's vendor columns: {line}")

    # join_runs.py: a newer call's lines replace the older ones per case (or per candidate),
    # each line naming its call; other columns are refused.
    def write(path, lines):
        with open(path, "w") as f:
            f.write("case,type,op,candidate,time_us\n" + "".join(l + "\n" for l in lines))
    old, new = os.path.join(d, "old.csv"), os.path.join(d, "new.csv")
    join = [sys.executable, os.path.join(SRC, "bench", "auto", "join_runs.py")]
    write(old, ["a,f64,N,csr,1", "a,f64,N,sell,2", "b,f64,N,csr,3", "c,f32,P,csr,4"])
    write(new, ["b,f64,N,csr,5", "b,f64,N,dtans,6", "d,f64,N,csr,7"])
    p = subprocess.run(join + [old, new, "--call", "two", "--old-call", "one"], capture_output=True, text=True)
    got = [(r["case"], r["candidate"], r["time_us"], r["call"]) for r in rows(old)]
    expect(p.returncode == 0 and got == [("a", "csr", "1", "one"), ("a", "sell", "2", "one"), ("b", "csr", "5", "two"),
                                         ("b", "dtans", "6", "two"), ("c", "csr", "4", "one"), ("d", "csr", "7", "two")],
           f"join_runs.py per case: {got} {p.stderr}")
    write(new, ["a,f64,N,sell,8", "a,f64,N,packed,9"])
    p = subprocess.run(join + [old, new, "--call", "three", "--by-candidate"], capture_output=True, text=True)
    got = [(r["case"], r["candidate"], r["time_us"], r["call"]) for r in rows(old)][:3]
    expect(p.returncode == 0 and got == [("a", "csr", "1", "one"), ("a", "sell", "8", "three"), ("b", "csr", "5", "two")]
           and rows(old)[-1]["candidate"] == "packed", f"join_runs.py per candidate: {got} {p.stderr}")
    with open(new, "w") as f:
        f.write("case,type,op,time_us\nz,f64,N,1\n")
    p = subprocess.run(join + [old, new, "--call", "four"], capture_output=True, text=True)
    expect(p.returncode == 2 and "other columns" in p.stderr, f"join_runs.py refuses other columns: {p.stderr}")

print(f"{len(failures)} failure(s)")
sys.exit(1 if failures else 0)
