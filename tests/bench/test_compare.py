#!/usr/bin/env python3
"""bench/compare.py: a slower kernel makes exit 1, equal or faster ones 0, bad input 2."""
import os
import subprocess
import sys
import tempfile

HEADER = "matrix,rows,cols,nnz,type,library,kernel,op,bytes,time_warm_us,time_cold_us,ok\n"


def csv_file(d, name, rows):
    path = os.path.join(d, name)
    with open(path, "w") as f:
        f.write(HEADER)
        for kernel, op, warm, ok in rows:
            f.write(f'"gen:m",4,4,8,f64,zsparse,{kernel},{op},100,{warm},{warm},{ok}\n')
    return path


def run(script, *args):
    p = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    script = sys.argv[1]
    failures = 0

    def expect(what, got, want, out, needle=None):
        nonlocal failures
        ok = got == want and (needle is None or needle in out)
        print(f"{'ok  ' if ok else 'FAIL'} {what}: exit {got} (want {want})")
        if not ok:
            print(out)
            failures += 1

    with tempfile.TemporaryDirectory() as d:
        old = csv_file(d, "old.csv", [("csr", "N", 100.0, 1), ("dtans", "N", 300.0, 1),
                                      ("dtans-det", "T", 50.0, 1)])
        same = csv_file(d, "same.csv", [("csr", "N", 101.0, 1), ("dtans", "N", 280.0, 1),
                                        ("dtans-det", "T", 50.0, 1)])
        slow = csv_file(d, "slow.csv", [("csr", "N", 100.0, 1), ("dtans", "N", 330.0, 1),
                                        ("dtans-det", "T", 50.0, 1)])
        failed = csv_file(d, "failed.csv", [("csr", "N", 100.0, 1), ("dtans", "N", 900.0, 0),
                                            ("dtans-det", "T", 50.0, 1)])
        bad = os.path.join(d, "bad.csv")
        with open(bad, "w") as f:
            f.write("a,b\n1,2\n")
        code, out = run(script, old, same)
        expect("within 5 % or faster", code, 0, out, "3 kernels compared, 0 slower")
        code, out = run(script, old, slow)
        expect("10 % slower", code, 1, out, "SLOWER dtans N f64")
        code, out = run(script, old, slow, "--threshold", "0.2")
        expect("10 % slower, threshold 20 %", code, 0, out)
        code, out = run(script, old, failed)
        expect("a failed check is not a time", code, 0, out, "only in old: dtans N")
        code, out = run(script, old, bad)
        expect("not a bench CSV", code, 2, out, "no column 'matrix'")
        code, out = run(script, old, os.path.join(d, "missing.csv"))
        expect("missing file", code, 2, out, "missing.csv")
    print(f"{6 - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
