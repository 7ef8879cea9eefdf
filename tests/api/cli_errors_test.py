#!/usr/bin/env python3
"""cli_errors_test.py — what the `zsparse` tool says and returns for hard cases: products of
values near underflow under --check, usage errors against runtime failures.

usage: cli_errors_test.py MODE ZSPARSE
MODE: tolerance | status. Exit 0 pass, 1 fail.
"""
import json
import os
import resource
import subprocess
import sys
import tempfile

FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, flush=True)


def run(tool, *args, env=None, limit_as=None):
    full_env = dict(os.environ, **env) if env else None

    def limit():
        if limit_as:
            resource.setrlimit(resource.RLIMIT_AS, (limit_as, limit_as))

    p = subprocess.run([tool] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=120,
                       env=full_env, preexec_fn=limit)
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


def mode_status(tool, tmp):
    """Usage errors exit 2 before any work, runtime failures 1; each message says what."""
    path = os.path.join(tmp, "a.mtx")
    with open(path, "w") as f:
        f.write(SUBNORMAL_MTX)
    usage = [  # args, words the message must hold
        (["spmv", path, "--backend", "nosuch"], ["unknown backend 'nosuch'"]),
        (["spmv", path, "--format", "nosuch"], ["unknown format 'nosuch'"]),
        (["solve", path, "--backend", "nosuch"], ["unknown backend"]),
        (["vans", "run", path, "--backend", "nosuch"], ["unknown backend"]),
        (["demo", "--backend", "nosuch"], ["unknown backend"]),
        (["convert", path, "-o", ""], ["--output", "non-empty"]),
        (["convert", path, "--output="], ["--output", "non-empty"]),
        (["gen", "stencil2d:n=4", "-o", ""], ["--output", "non-empty"]),
        (["info", ""], ["empty argument"]),
        (["solve", path, "--rhs", ""], ["--rhs", "non-empty"]),
    ]
    for args, words in usage:
        rc, _, err = run(tool, *args)
        if rc != 2 or not all(w in err for w in words):
            fail("%s: rc=%d (want 2) %r" % (" ".join(args), rc, err.strip()))
    # The output is refused before anything is written.
    if os.path.exists(os.path.join(tmp, ".tmp")) or os.path.exists(".tmp"):
        fail("convert -o '' left a .tmp behind")
    runtime = [
        (["info", os.path.join(tmp, "missing.mtx")], ["missing.mtx"]),
        (["spmv", path, "--backend", "cuda"] if not have_gpu(tool, "cuda") else None, ["cuda"]),
    ]
    for args, words in runtime:
        if args is None:
            continue
        rc, _, err = run(tool, *args)
        if rc != 1 or not all(w in err for w in words):
            fail("%s: rc=%d (want 1) %r" % (" ".join(args), rc, err.strip()))
    # A residual history of 2^31 doubles (16 GiB) under a 2 GiB address space: the message names
    # the history and its size, not the vectors. Skipped where the tool cannot start under the
    # limit (sanitizer builds reserve more address space than that).
    lim = 2 << 30
    rc, _, _ = run(tool, "--version", limit_as=lim)
    if rc == 0:
        rc, _, err = run(tool, "solve", path.replace("a.mtx", "spd.mtx"), "--maxit", "2147483647",
                         "--backend", "ref", limit_as=lim) if write_spd(tmp) else (0, "", "")
        if rc != 1 or "out of memory" not in err or "history" not in err or "2147483647" not in err:
            fail("solve --maxit 2147483647 under 2 GiB: rc=%d %r" % (rc, err.strip()))
    else:
        print("solve --maxit under an address-space limit: skipped (the tool cannot start)")


def write_spd(tmp):
    with open(os.path.join(tmp, "spd.mtx"), "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n3 3 5\n"
                "1 1 4\n2 2 4\n3 3 4\n1 2 1\n2 1 1\n")
    return True


def have_gpu(tool, name):
    rc, out, _ = run(tool, "devices", "--json")
    try:
        return any(b["name"] == name and b["usable"] for b in json.loads(out)["backends"])
    except (ValueError, KeyError, TypeError):
        return False


def main():
    if len(sys.argv) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    mode, tool = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        {"tolerance": mode_tolerance, "status": mode_status}[mode](tool, tmp)
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
