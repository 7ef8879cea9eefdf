#!/usr/bin/env python3
"""cli_errors_test.py — what the `zsparse` tool says and returns for hard cases: products of
values near underflow under --check, usage errors against runtime failures.

usage: cli_errors_test.py MODE ZSPARSE
MODE: tolerance. Exit 0 pass, 1 fail.
"""
import json
import os
import subprocess
import sys
import tempfile

FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, flush=True)


def run(tool, *args, env=None):
    full_env = dict(os.environ, **env) if env else None
    p = subprocess.run([tool] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120,
                       env=full_env)
    return p.returncode, p.stdout, p.stderr


# Rows made only of values that are subnormal in f32 (row 1, 2), or in f64 (row 4), beside
# ordinary ones: every correct product of them must pass --check, on every backend and op.
SUBNORMAL_MTX = """%%MatrixMarket matrix coordinate real general
5 4 9
1 1 1e-39
1 2 3e-44
2 2 2.5e-44
2 4 -1.4e-45
3 1 1.0
3 3 7e-45
4 3 4.9e-324
4 4 -1.5e-320
5 2 0.5
"""


def mode_tolerance(tool, tmp):
    path = os.path.join(tmp, "subnormal.mtx")
    with open(path, "w") as f:
        f.write(SUBNORMAL_MTX)
    for be in ("ref", "cpu"):
        for op in ("N", "T", "pair"):
            for typ in ("f32", "f64"):
                what = "spmv --check %s %s %s" % (be, op, typ)
                rc, out, err = run(tool, "spmv", path, "--check", "--json", "--repeat", "1",
                                   "--backend", be, "--op", op, "--type", typ)
                obj = json.loads(out) if rc in (0, 1) and out.strip() else None
                if rc != 0 or not obj or obj.get("ok") is not True:
                    fail("%s: rc=%d %r %s" % (what, rc, obj, err.strip()))
                # A wrong product of the same matrix must still fail.
                rc, out, err = run(tool, "spmv", path, "--check", "--repeat", "1", "--backend",
                                   be, "--op", op, "--type", typ,
                                   env={"ZSPARSE_CLI_FAULT": "perturb"})
                if rc != 1 or "check failed" not in err:
                    fail("%s with a perturbed output: rc=%d %s" % (what, rc, err.strip()))


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    mode, tool = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        {"tolerance": mode_tolerance}[mode](tool, tmp)
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
