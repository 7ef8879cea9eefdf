#!/usr/bin/env python3
"""bench/python/bench_csv.py turns the Python benches' JSON into bench/data's CSV, and the guide's
binding tables follow those files.

Usage: test_bench_csv.py BENCH_DIR GUIDE. Writes made-up figures of both benches as JSON, converts
them and checks every column that is computed (units, layer, ratios, missing figures); checks that
a file of neither bench is refused with a message; then, on a scratch copy of bench/, that a
changed time in the PETSc and Python data moves its cell in the generated guide.
"""
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile


def run(*args):
    p = subprocess.run([sys.executable, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


OVERHEAD = {
    "rows": [
        {"backend": "cpu", "form": "op @ x", "bare": "zs_spmv N", "form_s": 3.5e-6, "bare_s": 1.25e-6,
         "layer_s": 2.25e-6},
        {"backend": "cuda", "form": "op.pair(x, w)", "bare": "upload 2 + pair + download 2",
         "form_s": 4.8e-5, "bare_s": 4.4e-5, "layer_s": 4.0e-6, "other_s": 5.0e-5,
         "other_layer_s": 6.0e-6},
    ],
    "reference": [{"backend": "cpu", "bare_spmv_s": 1.25e-6, "upload_spmv_download_s": 1e-5},
                  {"backend": "cuda", "bare_spmv_s": 4.75e-6, "upload_spmv_download_s": 2e-5}],
}
SCIPY = {
    "overhead": [],
    "matrices": [{"matrix": "stencil2d:n=10", "rows": 100, "cols": 100, "nnz": 460, "dtype": "float64",
                  "format": "csr", "backend": "cpu", "scipy_Ax_s": 0.008, "host_Ax_s": 0.002,
                  "prod_Ax_s": 0.0015, "copy_Ax_s": 0.00025, "scipy_ATx_s": 0.009, "host_ATx_s": 0.003,
                  "prod_ATx_s": 0.0025, "scipy_bicg_s": 0.75, "scipy_bicg_its": 23,
                  "scipy_bicg_on_op_s": 1.2, "scipy_bicg_on_op_its": 23, "zs_solve_s": 0.05,
                  "zs_solve_its": 23}],
}


def main():
    bench, guide = sys.argv[1], sys.argv[2]
    conv = os.path.join(bench, "python", "bench_csv.py")
    failed = []

    def expect(what, ok, out=""):
        print(("ok   " if ok else "FAIL ") + what + ("" if ok else "\n" + str(out)[-2000:]))
        failed.extend([] if ok else [what])

    with tempfile.TemporaryDirectory() as d:
        def convert(name, figures):
            """Write figures as NAME.json, convert it: (exit status, output, CSV rows)."""
            src, out = os.path.join(d, name + ".json"), os.path.join(d, name + ".csv")
            with open(src, "w") as f:
                json.dump(figures, f)
            rc, log = run(conv, src, out)
            return rc, log, read_csv(out) if rc == 0 else []

        rc, log, rows = convert("overhead", OVERHEAD)
        expect("overhead JSON converts", rc == 0 and len(rows) == 2, log)
        if len(rows) == 2:
            cpu, cuda = rows
            expect("µs, layer and zs_spmv alone per backend",
                   (cpu["form_us"], cpu["bare_us"], cpu["layer_us"], cpu["spmv_alone_us"])
                   == ("3.500", "1.250", "2.250", "1.250") and cuda["spmv_alone_us"] == "4.750", rows)
            expect("a compared package's figures, empty where there was none",
                   (cuda["compared_us"], cuda["compared_layer_us"], cpu["compared_us"])
                   == ("50.000", "6.000", ""), rows)

        rc, log, rows = convert("scipy", SCIPY)
        expect("scipy JSON converts", rc == 0 and len(rows) == 1, log)
        if rows:
            r = rows[0]
            expect("ms, s and the three ratios",
                   (r["dtype"], r["scipy_ax_ms"], r["copy_ax_ms"], r["ax_speedup"], r["atx_speedup"],
                    r["zs_solve_s"], r["zs_solve_its"], r["bicg_speedup"])
                   == ("f64", "8.0000", "0.2500", "4.000", "3.000", "0.05000", "23", "15.000"), r)

        rc, log, _ = convert("other", {"something": []})
        expect("a file of neither bench is refused, naming it", rc == 1 and "other.json" in log, log)

        # The guide follows the bindings' data: a changed time moves its cell.
        b = os.path.join(d, "bench")
        os.mkdir(b)
        for f in ("make_guide.py", "guide.md.in"):
            shutil.copy(os.path.join(bench, f), b)
        shutil.copytree(os.path.join(bench, "data"), os.path.join(b, "data"))
        made = os.path.join(d, "out.md")
        rc, log = run(os.path.join(b, "make_guide.py"), "-o", made, "--compare", guide)
        expect("the committed guide is what the data makes", rc == 0, log)
        edits = [("h100-petsc-cuda.csv", ",cuda,bicg,median,20,csr,13.601,51.76,1038.56,",
                  ",cuda,bicg,median,20,csr,13.601,51.76,2077.12,", "| csr | 13.60 | 2077 | 0.28 |"),
                 ("h100-python-scipy.csv", "f64,csr,cpu,7.956,", "f64,csr,cpu,9.125,",
                  "| csr | cpu | 9.125 | 0.601 |")]
        for name, old, new, cell in edits:
            path = os.path.join(b, "data", name)
            with open(path) as f:
                text = f.read()
            if old not in text:
                expect(f"{name} holds the figure this test changes (update the test)", False)
                continue
            with open(path, "w") as f:
                f.write(text.replace(old, new))
        rc, log = run(os.path.join(b, "make_guide.py"), "-o", made)
        with open(made) as f:
            text = f.read()
        for name, _, _, cell in edits:
            expect(f"a changed time in {name} is in the guide", cell in text, log)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
