#!/usr/bin/env python3
"""cli_test.py — end-to-end tests of the `zsparse` tool against an independent Python reader.

usage: cli_test.py MODE ZSPARSE MATRICES_DIR
MODE: info | spmv | convert | usage | gen | demo | vans | solve. Exit 0 pass, 1 fail, 77 skip.
info, spmv and convert read the real matrices: $ZS_TEST_MATRICES, else MATRICES_DIR; they
SKIP when neither holds a MANIFEST.tsv (as tests/common/test_matrices.h does for the C tests).
"""
import concurrent.futures
import gzip
import json
import math
import os
import struct
import subprocess
import sys
import tempfile

FAILURES = []


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, flush=True)


def run(tool, *args, timeout=120, env=None):
    full_env = dict(os.environ, **env) if env else None
    p = subprocess.run([tool] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, universal_newlines=True, timeout=timeout,
                       env=full_env)
    return p.returncode, p.stdout, p.stderr


def run_json(tool, *args, env=None):
    rc, out, err = run(tool, *args, env=env)
    try:
        obj = json.loads(out) if out.strip() else None
    except ValueError as e:
        fail("%s: stdout is not JSON (%s): %r" % (" ".join(map(str, args)), e, out[:200]))
        obj = None
    return rc, obj, err


# ---- an independent Matrix Market reader (coordinate only; all shared matrices are) ----------

class MM:
    pass


def read_mm(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        header = f.readline().split()
        m = MM()
        m.fmt, m.field, m.symmetry = header[2].lower(), header[3].lower(), header[4].lower()
        line = f.readline()
        while line.startswith("%") or not line.strip():
            line = f.readline()
        dims = line.split()
        m.rows, m.cols, m.stored = int(dims[0]), int(dims[1]), int(dims[2])
        if m.fmt != "coordinate" or m.field == "complex":
            m.entries = None
            return m
        # Data lines hold no comments (the format has none after the size line): take all
        # tokens at once, which is several times faster than a loop over lines.
        tok = f.read().split()
        k = 2 if m.field == "pattern" else 3
        count = len(tok) // k
        ii = list(map(int, tok[0::k]))
        jj = list(map(int, tok[1::k]))
        vv = [1.0] * count if k == 2 else list(map(float, tok[2::k]))
        entries = {}
        mirror = m.symmetry in ("symmetric", "skew-symmetric")
        sign = -1.0 if m.symmetry == "skew-symmetric" else 1.0
        for i, j, v in zip(ii, jj, vv):
            key = (i - 1, j - 1)
            entries[key] = entries.get(key, 0.0) + v
            if mirror and i != j:
                key = (j - 1, i - 1)
                entries[key] = entries.get(key, 0.0) + sign * v
        m.count = count
        m.entries = entries
    return m


def manifest(mdir):
    rows = []
    with open(os.path.join(mdir, "MANIFEST.tsv")) as f:
        head = f.readline().rstrip("\n").split("\t")
        for line in f:
            if line.strip():
                rows.append(dict(zip(head, line.rstrip("\n").split("\t"))))
    return rows


def entropy(counts):
    n = sum(counts)
    return -sum(c / n * math.log2(c / n) for c in counts) if n else 0.0


def stats(m):
    """The numbers `zsparse info` reports, computed here from the mirrored entry set."""
    per_row = [0] * m.rows
    by_row = {}
    for (i, j) in m.entries:
        per_row[i] += 1
        by_row.setdefault(i, []).append(j)
    deltas = {}
    for i, cols in by_row.items():
        cols.sort()
        prev = None
        for c in cols:
            d = c - i if prev is None else c - prev
            deltas[d] = deltas.get(d, 0) + 1
            prev = c
    vals = {}
    for v in m.entries.values():
        vals[v] = vals.get(v, 0) + 1  # 0.0 and -0.0 hash alike: one value, as documented
    return {
        "nnz_per_row_min": min(per_row) if per_row else 0,
        "nnz_per_row_max": max(per_row) if per_row else 0,
        "empty_rows": sum(1 for c in per_row if c == 0),
        "distinct_values": len(vals),
        "entropy_col_delta_bits": entropy(list(deltas.values())),
        "entropy_value_bits": entropy(list(vals.values())),
    }


# ---- modes ---------------------------------------------------------------------------------

def mode_info(tool, mdir):
    for row in manifest(mdir):
        path = os.path.join(mdir, row["file"])
        rc, obj, err = run_json(tool, "info", "--json", path)
        if row["field"] == "complex":
            if rc == 0 or "zsparse info:" not in err or "complex" not in err:
                fail("%s: complex file should fail with a message, rc=%d err=%r" %
                     (row["file"], rc, err))
            continue
        if rc != 0 or obj is None:
            fail("%s: info rc=%d err=%r" % (row["file"], rc, err))
            continue
        m = read_mm(path)
        want = {"rows": int(row["rows"]), "cols": int(row["cols"]), "nnz": len(m.entries),
                "symmetry": row["symmetry"], "field": row["field"],
                "entries_stored": int(row["nnz_stored"])}
        if m.count != int(row["nnz_stored"]):
            fail("%s: the file has %d entries, MANIFEST says %s" %
                 (row["file"], m.count, row["nnz_stored"]))
        want.update(stats(m))
        for k, v in want.items():
            got = obj.get(k)
            ok = abs(got - v) <= 1e-9 * max(1.0, abs(v)) if isinstance(v, float) else got == v
            if not ok:
                fail("%s: %s = %r, expected %r" % (row["file"], k, got, v))
        if abs(obj["nnz_per_row_mean"] - len(m.entries) / m.rows) > 1e-9:
            fail("%s: nnz_per_row_mean %r" % (row["file"], obj["nnz_per_row_mean"]))
        if row["symmetry"] == "symmetric" and not (obj["symmetric_structural"] and
                                                   obj["symmetric_numerical"]):
            fail("%s: stored symmetric but not computed symmetric: %r" % (row["file"], obj))
        if row["symmetry"] == "skew-symmetric" and not obj["skew_symmetric_numerical"]:
            fail("%s: stored skew-symmetric but not computed so" % row["file"])
        # The computed flags must agree with the entry set, for general files too.
        if m.rows == m.cols:
            e = m.entries
            structural = all((j, i) in e for (i, j) in e)
            numerical = structural and all(e[(j, i)] == v for (i, j), v in e.items())
            if obj["symmetric_structural"] != structural or obj["symmetric_numerical"] != numerical:
                fail("%s: symmetric_structural/numerical %r/%r, expected %r/%r" %
                     (row["file"], obj["symmetric_structural"], obj["symmetric_numerical"],
                      structural, numerical))
    rc, _, err = run(tool, "info", os.path.join(mdir, "no-such-file.mtx"))
    if rc != 1 or not err.startswith("zsparse info: "):
        fail("info on a missing file: rc=%d err=%r" % (rc, err))
    info_encoded(tool, mdir)


def info_encoded(tool, mdir):
    """`info --format F[:OPTIONS]` on a Matrix Market file, and the stats of a .zsm."""
    row = min((r for r in manifest(mdir) if r["field"] != "complex"),
              key=lambda r: int(r["nnz_stored"]))
    path = os.path.join(mdir, row["file"])
    m = read_mm(path)
    nnz = len(m.entries)
    csr_bytes = 8 * (m.rows + 1) + 12 * nnz  # docs/formats/csr.md, f64
    rc, obj, err = run_json(tool, "info", "--json", "--format", "dtans:values=raw", path)
    if rc != 0 or obj is None:
        fail("info --format dtans:values=raw %s: rc=%d %s" % (row["file"], rc, err.strip()))
        return
    arrays = {a["name"]: a["bytes"] for a in obj.get("arrays") or []}
    st = obj.get("stats") or {}
    checks = [
        ("format", obj.get("format") == "dtans"),
        ("options", obj.get("options") == "values=raw"),
        ("value_mode param", (obj.get("params") or {}).get("value_mode") == 2),
        ("bytes", obj.get("bytes") == sum(arrays.values())),
        ("csr_bytes", obj.get("csr_bytes") == csr_bytes),
        ("bytes_vs_csr", abs(obj.get("bytes_vs_csr", 0) - obj.get("bytes", 0) / csr_bytes) < 1e-12),
        ("bytes_per_nnz", abs(obj.get("bytes_per_nnz", 0) - obj.get("bytes", 0) / nnz) < 1e-12),
        ("stats.value_mode", st.get("value_mode") == 2),
        ("stats.stream_bytes", st.get("stream_bytes") == arrays.get("stream")),
        # raw values plus the plain CSR of rows stored apart (long_*)
        ("stats.raw_value_bytes", st.get("raw_value_bytes") == sum(
            b for name, b in arrays.items() if name == "values" or name.startswith("long_"))),
        ("values", arrays.get("values") == 8 * (nnz - st.get("long_row_nonzeros", 0))),
        ("stats.actual_bytes", st.get("actual_bytes") == obj.get("bytes")),
        ("stats.coded_symbols", st.get("coded_symbols") == nnz - st.get("long_row_nonzeros", 0)),
    ]
    for what, ok in checks:
        if not ok:
            fail("info --format dtans:values=raw %s: %s wrong in %r" % (row["file"], what, obj))
    # The text form prints one line per figure, with the same numbers (6 digits when fractional).
    rc, out, err = run(tool, "info", "--format", "dtans:values=raw", path)
    lines = dict(l.split(None, 1) for l in out.splitlines() if l.startswith("  ") and
                 len(l.split()) == 2)
    if rc != 0 or "stats:" not in out or not st or any(
            not abs(float(lines.get(k, "nan")) - v) <= 1e-5 * max(1.0, abs(v))
            for k, v in st.items()):
        fail("info --format (text) %s: rc=%d figures %r, JSON %r" % (row["file"], rc, lines, st))
    # A container written with the same options carries the same figures.
    with tempfile.TemporaryDirectory(prefix="zsparse-cli-") as tmp:
        zsm = os.path.join(tmp, "m.zsm")
        rc, _, err = run(tool, "convert", path, "-f", "dtans", "--options", "values=raw", "-o", zsm)
        rc2, obj2, err2 = run_json(tool, "info", "--json", zsm)
        # ... and keeps the options (docs/container.md), printed as with --format.
        if rc or rc2 or obj2 is None or obj2.get("stats") != st or obj2.get("bytes") != obj.get(
                "bytes") or obj2.get("options") != "values=raw":
            fail("info on a dtans .zsm: rc=%d/%d stats %r, expected %r %s%s" %
                 (rc, rc2, obj2 and obj2.get("stats"), st, err, err2))
        rc, out, err = run(tool, "info", zsm)
        if rc or "format:           dtans (options values=raw)" not in out:
            fail("info on a dtans .zsm (text): rc=%d %r %s" % (rc, out, err))
        rc, _, err = run(tool, "info", "--format", "dtans", zsm)
        if rc != 2 or "--format" not in err:
            fail("info --format on a .zsm: rc=%d err=%r" % (rc, err))
    # Raw columns: the columns array in the figures, no escaped deltas (docs/formats/dtans.md).
    rc, obj, err = run_json(tool, "info", "--json", "--format", "dtans:values=joint,columns=raw",
                            path)
    st = (obj or {}).get("stats") or {}
    arrays = {a["name"]: a["bytes"] for a in (obj or {}).get("arrays") or []}
    coded = nnz - st.get("long_row_nonzeros", 0)
    if rc != 0 or (obj.get("params") or {}).get("column_mode") != 1 or \
            st.get("column_mode") != 1 or st.get("raw_column_bytes") != arrays.get("columns") or \
            arrays.get("columns") != 4 * coded or arrays.get("delta_escapes") != 0 or \
            st.get("actual_bytes") != obj.get("bytes"):
        fail("info --format dtans:values=joint,columns=raw %s: rc=%d %r %s" %
             (row["file"], rc, obj, err.strip()))
    # CSR has no figures of its own and is its own baseline.
    rc, obj, err = run_json(tool, "info", "--json", "-f", "csr", path)
    if rc != 0 or obj is None or obj.get("stats") != {} or obj.get("bytes_vs_csr") != 1 or \
            obj.get("options") is not None:
        fail("info -f csr %s: rc=%d %r %s" % (row["file"], rc, obj, err))
    for args, want_rc in ((["--format", "nope"], 2), (["--format", "dtans:bogus=1"], 1)):
        rc, _, err = run(tool, "info", path, *args)
        if rc != want_rc or not err.startswith("zsparse info: "):
            fail("info %s: rc=%d (want %d) err=%r" % (" ".join(args), rc, want_rc, err))


def max_lengths(m):
    rows, cols = {}, {}
    for (i, j) in m.entries:
        rows[i] = rows.get(i, 0) + 1
        cols[j] = cols.get(j, 0) + 1
    return max(rows.values(), default=0), max(cols.values(), default=0)


def mode_spmv(tool, mdir):
    jobs = []
    for row in manifest(mdir):
        if row["field"] == "complex":
            continue
        path = os.path.join(mdir, row["file"])
        m = read_mm(path)
        lmax = max_lengths(m)
        for op in ("N", "T", "pair"):
            for typ in ("f32", "f64"):
                for be in ("cpu", "ref"):
                    lm = {"N": lmax[0], "T": lmax[1], "pair": max(lmax)}[op]
                    jobs.append((row["file"], path, op, typ, be, len(m.entries), lm))

    def one(job):
        name, path, op, typ, be, nnz, lmax = job
        rc, obj, err = run_json(tool, "spmv", path, "--op", op, "--type", typ, "--backend", be,
                                "--repeat", "2", "--check", "--json")
        what = "%s op %s %s %s" % (name, op, typ, be)
        if rc != 0 or obj is None:
            return ["%s: rc=%d err=%r" % (what, rc, err.strip())]
        errs = []
        eps = 2.0 ** -23 if typ == "f32" else 2.0 ** -52
        want = {"op": op, "type": typ, "backend": be, "nnz": nnz, "format": "csr",
                "len_max": lmax, "checked": True, "ok": True, "repeat": 2}
        for k, v in want.items():
            if obj.get(k) != v:
                errs.append("%s: %s = %r, expected %r" % (what, k, obj.get(k), v))
        tol = 16 * eps * min(lmax + 2, 1024)
        if obj.get("tolerance") is None or abs(obj["tolerance"] - tol) > 1e-12 * tol:
            errs.append("%s: tolerance %r, expected %r" % (what, obj.get("tolerance"), tol))
        if obj.get("max_rel_err") is None or not obj["max_rel_err"] <= tol:
            errs.append("%s: max_rel_err %r > %r" % (what, obj.get("max_rel_err"), tol))
        es = 4 if typ == "f32" else 8
        # the pair moves x, y, w and z: rows + cols twice
        vectors = (obj["rows"] + obj["cols"]) * (2 if op == "pair" else 1)
        if obj.get("bytes") != obj["encoded_bytes"] + vectors * es:
            errs.append("%s: bytes %r != encoded + vectors" % (what, obj.get("bytes")))
        if not (obj.get("time_median_s") or 0) > 0:
            errs.append("%s: time_median_s %r" % (what, obj.get("time_median_s")))
        return errs

    with concurrent.futures.ThreadPoolExecutor(max_workers=3) as ex:
        for errs in ex.map(one, jobs):
            for e in errs:
                fail(e)
    print("%d spmv runs" % len(jobs))
    # The check itself must catch a wrong and an unwritten output (the tool's fault hook damages
    # one element of the first checked product), exit 1 and print both numbers.
    path = os.path.join(mdir, "bcsstk01.mtx")
    for fault in ("perturb", "unwritten"):
        for be in ("cpu", "ref"):
            rc, out, err = run(tool, "spmv", path, "--check", "--repeat", "1", "--backend", be,
                               env={"ZSPARSE_CLI_FAULT": fault})
            if rc != 1 or "check failed" not in err or "tolerance" not in err:
                fail("spmv with fault %s on %s: rc=%d err=%r" % (fault, be, rc, err))
        rc, obj, err = run_json(tool, "spmv", path, "--check", "--repeat", "1", "--json",
                                env={"ZSPARSE_CLI_FAULT": fault})
        if rc != 1 or not obj or obj.get("ok") is not False:
            fail("spmv --json with fault %s: rc=%d %r" % (fault, rc, obj))
        elif fault == "unwritten" and obj.get("max_rel_err") is not None:
            fail("an unwritten element must give an infinite (null) error: %r" % obj)
        rc, obj, err = run_json(tool, "demo", "--spec", "stencil2d:n=8", "--repeat", "1",
                                "--json", env={"ZSPARSE_CLI_FAULT": fault})
        if rc != 1 or not obj or obj.get("ok") is not False:
            fail("demo with fault %s: rc=%d %r" % (fault, rc, obj))
        # the pair: a damaged y or z (the fault hook's "-z" form) fails; a damaged z is not
        # looked at by a single product
        for target in (fault, fault + "-z"):
            for be in ("cpu", "ref"):
                rc, out, err = run(tool, "spmv", path, "--op", "pair", "--check", "--repeat", "1",
                                   "--backend", be, env={"ZSPARSE_CLI_FAULT": target})
                if rc != 1 or "check failed" not in err:
                    fail("spmv --op pair with fault %s on %s: rc=%d err=%r" % (target, be, rc, err))
        rc, out, err = run(tool, "spmv", path, "--check", "--repeat", "1",
                           env={"ZSPARSE_CLI_FAULT": fault + "-z"})
        if rc != 0:
            fail("spmv --op N with fault %s-z: rc=%d err=%r" % (fault, rc, err))


def read_written(path):
    """Entries of a file the tool wrote (coordinate real general)."""
    m = read_mm(path)
    if m.field != "real" or m.symmetry != "general":
        fail("%s: written as %s %s, expected real general" % (path, m.field, m.symmetry))
    return m


def f32(v):
    return struct.unpack("f", struct.pack("f", v))[0]


def mode_convert(tool, mdir):
    tmp = tempfile.mkdtemp(prefix="zsparse-cli-")
    rows = [r for r in manifest(mdir) if r["field"] != "complex"]
    for i, row in enumerate(rows):
        path = os.path.join(mdir, row["file"])
        orig = read_mm(path)
        # Alternate formats and types so every pairing is covered across the set.
        fmt = ("csr", "coo")[i % 2]
        typ = ("f64", "f32")[(i // 2) % 2]
        out_ext = (".mtx", ".mtx.gz")[i % 3 == 0]
        zsm = os.path.join(tmp, "m%d.zsm" % i)
        back = os.path.join(tmp, "m%d%s" % (i, out_ext))
        rc, _, err = run(tool, "convert", path, "-f", fmt, "--type", typ, "-o", zsm)
        if rc != 0:
            fail("%s: convert to %s %s: rc=%d %s" % (row["file"], fmt, typ, rc, err.strip()))
            continue
        rc, obj, err = run_json(tool, "info", "--json", zsm)
        if rc != 0 or obj is None:
            fail("%s: info on the .zsm: rc=%d %s" % (row["file"], rc, err.strip()))
            continue
        if (obj.get("kind"), obj.get("format"), obj.get("type")) != ("zsm", fmt, typ):
            fail("%s: .zsm info kind/format/type %r/%r/%r" %
                 (row["file"], obj.get("kind"), obj.get("format"), obj.get("type")))
        if (obj.get("rows"), obj.get("cols"), obj.get("nnz")) != (orig.rows, orig.cols,
                                                                  len(orig.entries)):
            fail("%s: .zsm dims %r" % (row["file"], (obj.get("rows"), obj.get("cols"),
                                                     obj.get("nnz"))))
        arrays = obj.get("arrays") or []
        if not arrays or obj.get("bytes") != sum(a["bytes"] for a in arrays) or any(
                a["bytes"] != a["elem_size"] * a["count"] for a in arrays):
            fail("%s: .zsm arrays/bytes inconsistent: %r" % (row["file"], obj))
        rc, _, err = run(tool, "convert", zsm, "-o", back)
        if rc != 0:
            fail("%s: convert back: rc=%d %s" % (row["file"], rc, err.strip()))
            continue
        got = read_written(back)
        want = orig.entries
        if typ == "f32":
            # f32 values are written with the 9 digits that identify the float, so the text
            # reads back to that float, not to the double the original text gave.
            want = {k: f32(v) for k, v in want.items()}
            got.entries = {k: f32(v) for k, v in got.entries.items()}
        if (got.rows, got.cols) != (orig.rows, orig.cols) or got.entries != want:
            diff = [k for k in want if got.entries.get(k) != want[k]][:3]
            fail("%s: round trip via %s %s differs (%d vs %d entries; first: %r)" %
                 (row["file"], fmt, typ, len(got.entries), len(want), diff))
    # A damaged container is refused with a message, never decoded.
    zsm = os.path.join(tmp, "m1.zsm")
    if os.path.exists(zsm):
        data = bytearray(open(zsm, "rb").read())
        data[len(data) // 2] ^= 0x5A
        bad = os.path.join(tmp, "bad.zsm")
        open(bad, "wb").write(bytes(data))
        for cmd in (["info", bad], ["convert", bad, "-o", os.path.join(tmp, "bad.mtx")],
                    ["spmv", bad, "--repeat", "1"]):
            rc, _, err = run(tool, *cmd)
            if rc != 1 or not err.startswith("zsparse %s: " % cmd[0]):
                fail("%s on a corrupted .zsm: rc=%d err=%r" % (cmd[0], rc, err))
        open(zsm[:-4] + "-trunc.zsm", "wb").write(bytes(data[:len(data) // 3]))
        rc, _, err = run(tool, "info", zsm[:-4] + "-trunc.zsm")
        if rc != 1 or not err.startswith("zsparse info: "):
            fail("info on a truncated .zsm: rc=%d err=%r" % (rc, err))
    # Containers are recognised by their magic under any name; a .zsm name always goes to the
    # container loader, whose message then names the problem.
    zsm = os.path.join(tmp, "m2.zsm")
    if os.path.exists(zsm):
        renamed = os.path.join(tmp, "container.bin")
        open(renamed, "wb").write(open(zsm, "rb").read())
        rc, obj, err = run_json(tool, "info", "--json", renamed)
        if rc != 0 or not obj or obj.get("kind") != "zsm":
            fail("info on a container named .bin: rc=%d %r %s" % (rc, obj, err.strip()))
    garbage = os.path.join(tmp, "garbage.zsm")
    open(garbage, "wb").write(b"%%MatrixMarket matrix coordinate real general\n1 1 0\n")
    rc, _, err = run(tool, "info", garbage)
    if rc != 1 or not err.startswith("zsparse info: ") or "garbage.zsm" not in err:
        fail("info on a non-container named .zsm: rc=%d err=%r" % (rc, err))
    # spmv on a .zsm runs its stored format and type.
    zsm = os.path.join(tmp, "m0.zsm")
    if os.path.exists(zsm):
        rc, obj, err = run_json(tool, "spmv", zsm, "--check", "--repeat", "1", "--json",
                                "--backend", "ref")
        if rc != 0 or not obj or (obj["format"], obj["type"], obj["ok"]) != ("csr", "f64", True):
            fail("spmv on a .zsm: rc=%d %r %s" % (rc, obj, err.strip()))
        rc, _, err = run(tool, "spmv", zsm, "--format", "coo")
        if rc != 2:
            fail("spmv on a csr .zsm with --format coo: rc=%d, expected 2" % rc)


def mode_usage(tool, mdir):
    cmds = ["devices", "info", "convert", "spmv", "gen", "demo"]
    for c in cmds:
        rc, out, err = run(tool, c, "--help")
        if rc != 0 or "usage: zsparse " + c not in out:
            fail("%s --help: rc=%d out=%r" % (c, rc, out[:100]))
        rc, out, err = run(tool, "help", c)
        if rc != 0 or "usage: zsparse " + c not in out:
            fail("help %s: rc=%d" % (c, rc))
        rc, out, err = run(tool, c, "--no-such-option")
        if rc != 2 or "unknown option" not in err:
            fail("%s --no-such-option: rc=%d err=%r" % (c, rc, err))
    rc, out, _ = run(tool, "--version")
    if rc != 0 or not out.startswith("zsparse "):
        fail("--version: rc=%d out=%r" % (rc, out))
    rc, out, _ = run(tool, "help")
    if rc != 0 or not all(c in out for c in cmds):
        fail("help: rc=%d" % rc)
    tmp = tempfile.mkdtemp(prefix="zsparse-cli-")
    mtx = os.path.join(tmp, "small.mtx")
    rc, _, err = run(tool, "gen", "stencil2d:n=5", "-o", mtx)
    if rc != 0:
        fail("gen stencil2d:n=5: rc=%d err=%r" % (rc, err))
        return
    bad = [
        [], ["frobnicate"], ["info"], ["info", mtx, mtx], ["info", mtx, "--type", "f16"],
        ["spmv", mtx, "--op", "X"], ["spmv", mtx, "--type", "f16"], ["spmv", mtx, "--repeat", "-1"],
        ["spmv", mtx, "--repeat"], ["spmv", mtx, "--format", "nosuch"], ["convert", mtx],
        ["convert", mtx, "-o", "x.mtx", "-f", "coo"], ["gen", "stencil2d:n=4"],
        ["demo", "extra"], ["devices", "extra"], ["devices", "--json=1"],
    ]
    for args in bad:
        rc, out, err = run(tool, *args)
        if rc != 2 or not err.startswith("zsparse"):
            fail("%r: rc=%d (expected 2) err=%r" % (args, rc, err))
    rc, obj, err = run_json(tool, "devices", "--json")
    if rc != 0 or not obj:
        fail("devices --json: rc=%d %s" % (rc, err))
    else:
        names = {b["name"]: b for b in obj["backends"]}
        for k in ("packages", "cores", "pus", "numa_nodes", "threads", "hwloc"):
            if k not in obj["topology"]:
                fail("devices --json: topology lacks %s" % k)
        if not names.get("ref", {}).get("usable") or not names.get("cpu", {}).get("usable"):
            fail("devices --json: ref and cpu must be usable: %r" % obj["backends"])
        if obj.get("default_backend") not in names:
            fail("devices --json: default_backend %r" % obj.get("default_backend"))
        for b in obj["backends"]:
            if not b["usable"] and not b["detail"]:
                fail("devices: backend %s is not usable and says not why" % b["name"])
    # File names reach JSON escaped: quotes, backslashes, control characters.
    odd = os.path.join(tmp, 'we"ird\\name\twith\x01ctl.mtx')
    with open(mtx, "rb") as src, open(odd, "wb") as dst:
        dst.write(src.read())
    rc, obj, err = run_json(tool, "info", "--json", odd)
    if rc != 0 or not obj or obj.get("file") != odd:
        fail("info --json on an odd file name: rc=%d %r %s" % (rc, obj, err))
    # A backend name the tool does not know is a usage error, like an unknown format.
    rc, _, err = run(tool, "spmv", mtx, "--backend", "nosuch", "--repeat", "1")
    if rc != 2 or "nosuch" not in err:
        fail("spmv --backend nosuch: rc=%d err=%r" % (rc, err))


def mode_gen(tool, mdir):
    tmp = tempfile.mkdtemp(prefix="zsparse-cli-")
    n = 10
    cases = [  # spec, rows, cols, nnz (None: only bounds checked), symmetric
        ("stencil2d:n=%d,points=5" % n, n * n, n * n, 5 * n * n - 4 * n, True),
        ("stencil2d:n=%d,points=9" % n, n * n, n * n, (3 * n - 2) ** 2, True),
        ("stencil3d:n=5,points=7", 125, 125, 7 * 125 - 6 * 25, True),
        ("stencil3d:n=5,points=27", 125, 125, 13 ** 3, True),
        ("elasticity3d:n=4", 192, 192, 9 * 10 ** 3, True),
        ("erdos_renyi:rows=50,cols=40,per_row=3", 50, 40, 150, False),
        ("banded:rows=100,width=8,per_row=5", 100, 100, 500, False),
        ("watts_strogatz:n=100,k=4,p=0.1", 100, 100, None, True),
        ("barabasi_albert:n=100,m=2", 100, 100, None, True),
        ("rmat:scale=7,per_row=4", 128, 128, None, False),
    ]
    for i, (spec, rows, cols, nnz, sym) in enumerate(cases):
        out = os.path.join(tmp, "g%d.mtx" % i)
        rc, _, err = run(tool, "gen", spec, "-o", out)
        if rc != 0:
            fail("gen %s: rc=%d %s" % (spec, rc, err.strip()))
            continue
        m = read_written(out)
        rc, obj, err = run_json(tool, "info", "--json", out)
        if rc != 0 or not obj:
            fail("info on gen %s: rc=%d %s" % (spec, rc, err.strip()))
            continue
        if (obj["rows"], obj["cols"]) != (rows, cols) or (m.rows, m.cols) != (rows, cols):
            fail("gen %s: %rx%r, expected %rx%r" % (spec, obj["rows"], obj["cols"], rows, cols))
        if obj["nnz"] != len(m.entries):
            fail("gen %s: info nnz %r, file holds %r" % (spec, obj["nnz"], len(m.entries)))
        if nnz is not None and obj["nnz"] != nnz:
            fail("gen %s: nnz %r, expected %r" % (spec, obj["nnz"], nnz))
        if nnz is None and not 0 < obj["nnz"] <= rows * cols:
            fail("gen %s: nnz %r" % (spec, obj["nnz"]))
        if sym and not obj["symmetric_numerical"]:
            fail("gen %s: expected a symmetric matrix" % spec)
        if spec.startswith("banded") and any(abs(i - j) > 4 for (i, j) in m.entries):
            fail("gen %s: an entry lies outside the band" % spec)
    # Value modes reach the file: a small set, or all ones.
    for spec, distinct in (("erdos_renyi:rows=200,per_row=8,values=set,distinct=4", 4),
                           ("banded:rows=200,width=10,per_row=4,values=pattern", 1)):
        out = os.path.join(tmp, "v.mtx")
        rc, _, err = run(tool, "gen", spec, "-o", out)
        got = set(read_written(out).entries.values()) if rc == 0 else None
        if rc != 0 or len(got) != distinct or (distinct == 1 and got != {1.0}):
            fail("gen %s: rc=%d values %r %s" % (spec, rc, got, err.strip()))
    # Deterministic for a spec; another seed differs; f32 and .zsm outputs work.
    a, b, c = (os.path.join(tmp, x) for x in ("a.mtx", "b.mtx", "c.mtx"))
    run(tool, "gen", "erdos_renyi:rows=64,per_row=5,seed=7", "-o", a)
    run(tool, "gen", "erdos_renyi:rows=64,per_row=5,seed=7", "-o", b)
    run(tool, "gen", "erdos_renyi:rows=64,per_row=5,seed=8", "-o", c)
    ea, eb, ec = (read_written(x).entries for x in (a, b, c))
    if ea != eb or ea == ec:
        fail("gen: same seed must give the same matrix and another seed another one")
    z = os.path.join(tmp, "g.zsm")
    rc, _, err = run(tool, "gen", "stencil2d:n=16", "-o", z, "-f", "coo", "--type", "f32")
    rc2, obj, _ = run_json(tool, "info", "--json", z)
    if rc or rc2 or not obj or (obj["format"], obj["type"], obj["nnz"]) != ("coo", "f32",
                                                                            5 * 256 - 64):
        fail("gen to .zsm: rc=%d/%d %r %s" % (rc, rc2, obj, err.strip()))
    rc, _, err = run(tool, "gen", "nosuchkind:n=3", "-o", os.path.join(tmp, "x.mtx"))
    if rc != 1 or "zsparse gen: " not in err:
        fail("gen with an unknown kind: rc=%d err=%r" % (rc, err))
    # gen:SPEC where a command reads a matrix is the matrix `gen SPEC` writes: info describes it
    # (kind gen, no file header), convert stores it, spmv checks a product on it; a bad spec
    # exits 1 with the generator's message, not "cannot open".
    spec = "erdos_renyi:rows=64,per_row=5,seed=7"
    rc, obj, err = run_json(tool, "info", "--json", "gen:" + spec)
    rc2, ref, _ = run_json(tool, "info", "--json", a)
    same = ("rows", "cols", "nnz", "distinct_values", "entropy_col_delta_bits", "entropy_value_bits")
    if rc or rc2 or not obj or not ref or obj["kind"] != "gen" or obj["symmetry"] is not None or \
            any(obj[k] != ref[k] for k in same):
        fail("info gen:%s: rc=%d %r against the file's %r %s" % (spec, rc, obj, ref, err.strip()))
    z = os.path.join(tmp, "from-gen.mtx")
    rc, _, err = run(tool, "convert", "gen:" + spec, "-o", z)
    if rc or read_written(z).entries != ea:
        fail("convert gen:%s: rc=%d, not the matrix gen writes %s" % (spec, rc, err.strip()))
    rc, obj, err = run_json(tool, "spmv", "gen:" + spec, "--check", "--repeat", "1", "--json",
                            "--format", "sell")
    if rc or not obj or obj["nnz"] != len(ea) or obj.get("ok") is not True or obj.get("checked") is not True:
        fail("spmv gen:%s --check: rc=%d %r %s" % (spec, rc, obj, err.strip()))
    for cmd in ("info", "spmv", "convert"):
        extra = ["-o", os.path.join(tmp, "never.zsm")] if cmd == "convert" else []
        rc, _, err = run(tool, cmd, "gen:rmat:scale=32", *extra)
        if rc != 1 or "outside [1, 31]" not in err or "cannot open" in err:
            fail("%s gen:rmat:scale=32: rc=%d err=%r" % (cmd, rc, err))


def mode_demo(tool, mdir):
    n = 48
    rc, obj, err = run_json(tool, "demo", "--spec", "stencil2d:n=%d,points=5" % n, "--repeat", "2",
                            "--json")
    if rc != 0 or not obj or obj.get("ok") is not True:
        fail("demo --json: rc=%d %r %s" % (rc, obj, err.strip()))
        return
    if obj["nnz"] != 5 * n * n - 4 * n:
        fail("demo: nnz %r" % obj["nnz"])
    by = {f["format"]: f for f in obj["formats"]}
    for name in ("csr", "coo"):
        f = by.get(name)
        if not f or f["status"] != "ok" or not f["spmv"]["ok"] or not f["spmvt"]["ok"]:
            fail("demo: %s row %r" % (name, f))
    if by.get("csr", {}).get("size_vs_csr") != 1.0:
        fail("demo: csr size_vs_csr %r" % by.get("csr", {}).get("size_vs_csr"))
    # Speed-ups are CSR's time over the format's, on the same backend.
    csr_t = by["csr"]["spmv"]["time_median_s"]
    for f in obj["formats"]:
        for op in ("spmv", "spmvt"):
            m = f.get(op)
            if m and abs(m["speedup_vs_csr"] * m["time_median_s"] -
                         by["csr"][op]["time_median_s"]) > 1e-9 * max(1.0, csr_t):
                fail("demo: %s %s speedup_vs_csr %r" % (f["format"], op, m))
    au = obj.get("auto") or {}  # auto's choice is timed and checked like the formats
    if au.get("status") != "ok" or not au.get("spmv", {}).get("ok") or \
            au.get("format") not in by or not au.get("reason"):
        fail("demo: auto row %r" % au)
    if not by.get("cci", {}).get("note") or by["csr"].get("note") is not None:
        fail("demo: cci's GPU default is not noted: %r" % by.get("cci"))
    for f in obj["formats"]:
        if f["status"] == "skipped" and not f.get("reason"):
            fail("demo: %s skipped without a reason" % f["format"])
    rc, out, err = run(tool, "demo", "--spec", "stencil2d:n=16", "--repeat", "1", "--backend",
                       "ref", "--type", "f32")
    if rc != 0 or "csr" not in out or "all checks passed" not in out:
        fail("demo (table): rc=%d out=%r err=%r" % (rc, out, err))
    # Formats that cannot run are named under the table, never as rows; cci's row is marked.
    lines = out.splitlines()
    if any(l.startswith("vans") for l in lines) or not any(
            l.startswith("not run: vans") for l in lines):
        fail("demo (table): vans printed as a format: %r" % out)
    if not any(l.startswith("auto ") and l.endswith("ok") for l in lines):
        fail("demo (table): no auto row: %r" % out)
    if not any(l.startswith("cci *") for l in lines) or not any(
            l.startswith("* cci") for l in lines) or "speed-up" not in out:
        fail("demo (table): no speed-up column or cci footnote: %r" % out)


# ---- solve: "converged" means the true residual met the tolerance ---------------------------

def solve_json(tool, *args):
    rc, out, err = run(tool, "solve", *args, "--json", env={"OMP_WAIT_POLICY": "passive"})
    try:
        obj = json.loads(out)
    except ValueError:
        fail("solve %r: stdout is not JSON: %r %r" % (args, out[:200], err))
        return rc, None, err
    # The exit status, the status and the flag agree with the true residual, always.
    conv = obj["true_rel_residual"] <= obj["tol"] and obj["stop_reason"] == "converged"
    if obj.get("converged") != conv or (rc == 0) != conv or (obj["status"] == "ZS_OK") != conv:
        fail("solve %r: rc=%d status=%s converged=%r but true %.3e vs tol %.1e" % (
            args, rc, obj["status"], obj["converged"], obj["true_rel_residual"], obj["tol"]))
    return rc, obj, err


def mode_solve(tool, mdir):
    tmp = tempfile.mkdtemp(prefix="zsparse-cli-")
    # f64 reaches its default 1e-8 on a small Laplacian, with no warning.
    rc, obj, err = solve_json(tool, "gen:stencil2d:n=16", "--method", "cg")
    if not obj or rc != 0 or obj["tol"] != 1e-8 or "warning" in err:
        fail("solve f64: rc=%d %r err=%r" % (rc, obj, err))
    # f32's default tolerance is one it can reach; 1e-8 is below its unit roundoff: a warning,
    # and never "converged" (its true residual stays near 1e-5 here).
    rc, obj, err = solve_json(tool, "gen:stencil2d:n=16", "--method", "cg", "--type", "f32")
    if not obj or obj["tol"] != 1e-5 or "warning" in err:
        fail("solve f32 default tol: rc=%d %r err=%r" % (rc, obj, err))
    rc, obj, err = solve_json(tool, "gen:stencil2d:n=32", "--method", "cg", "--type", "f32",
                              "--tol", "1e-8")
    if not obj or rc != 1 or "unit roundoff" not in err or obj["converged"]:
        fail("solve f32 --tol 1e-8: rc=%d %r err=%r" % (rc, obj, err))
    # The recurrence meets 1e-5 while x's true residual is ~1e-3 (f32 on a 16384-row
    # Laplacian): not converged, and the message says why.
    rc, obj, err = solve_json(tool, "gen:stencil2d:n=128", "--method", "cg", "--type", "f32")
    if (not obj or rc != 1 or obj["status"] != "ZS_INFO_NOT_CONVERGED" or
            obj["rel_residual"] > obj["tol"] or obj["stop_reason"] != "true residual above tol" or
            "true residual" not in err):
        fail("solve f32 drifting recurrence: rc=%d %r err=%r" % (rc, obj, err))
    # A breakdown: CG on an indefinite diagonal matrix fails in iteration 1, 0 completed; the
    # message, the JSON and the text result line give the same count.
    mtx = os.path.join(tmp, "indefinite.mtx")
    with open(mtx, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1\n2 2 -1\n")
    rc, obj, err = solve_json(tool, mtx, "--method", "cg")
    if not obj or rc != 1 or obj["status"] != "ZS_ERR_BREAKDOWN" or obj["iterations"] != 0 or \
            "in iteration 1 (0 completed)" not in err:
        fail("solve breakdown: rc=%d %r err=%r" % (rc, obj, err))
    rc, out, err = run(tool, "solve", mtx, "--method", "cg")
    if rc != 1 or "after 0 iterations" not in out or "(0 completed)" not in err:
        fail("solve breakdown (text): rc=%d out=%r err=%r" % (rc, out, err))


# ---- MAT-VANS containers, read and decoded from docs/formats/vans.md alone --------------------

def read_vans(path):
    """The layers' int8 weights (row-major lists) of a report (Table 1) or pair-layout file."""
    d = open(path, "rb").read()
    off, flags = 0, 0
    if d[:8] == b"ZSVANSX1":
        flags, lanes = struct.unpack_from("<II", d, 8)
        off = 16
    n_layers, _, n0 = struct.unpack_from("<III", d, off)
    off += 12 + n0 + (3 - (n0 + 3) % 4)
    layers = []
    for _ in range(n_layers):
        rows, cols, _ = struct.unpack_from("<IIf", d, off)
        off += 12
        cursors = struct.unpack_from("<%dI" % rows, d, off)
        off += 4 * rows
        (words,) = struct.unpack_from("<I", d, off)
        off += 4
        if flags & 4:
            (n_pairs,) = struct.unpack_from("<H", d, off)
            pairs = [struct.unpack_from("<bbH", d, off + 2 + 4 * k) for k in range(n_pairs)]
            off += 2 + 4 * n_pairs
            payload = struct.unpack_from("<%dH" % words, d, off)
            layers.append(decode_pair_rows(rows, cols, cursors, pairs, payload))
        else:
            w_min, grid = struct.unpack_from("<bB", d, off)
            cdf = list(d[off + 2:off + 3 + grid])
            off += 2 + grid + 1 + (grid + 1) % 2
            ppf = d[off:off + 256]
            off += 256
            payload = struct.unpack_from("<%dH" % words, d, off)
            assert not flags & 2, "interleaved layout not read here"
            layers.append(decode_report_rows(rows, cols, cursors, w_min, cdf, ppf, payload))
        off += 2 * words
    return layers


def decode_report_rows(rows, cols, cursors, w_min, cdf, ppf, payload):
    out = []
    for i in range(rows):
        c = cursors[i]
        x = payload[c] << 16 | payload[c + 1]
        c += 2
        for _ in range(cols):
            q = x & 255
            r = ppf[q]
            out.append(w_min + r)
            x = (x >> 8) * ((cdf[r + 1] - cdf[r]) % 256) + q - cdf[r]
            if x < 1 << 16:
                x = x << 16 | payload[c]
                c += 1
    return out


def decode_pair_rows(rows, cols, cursors, pairs, payload):
    owner, cum = [], []
    for k, (_, _, f) in enumerate(pairs):
        cum.append(len(owner))
        owner += [k] * f
    out = [None] * (rows * cols)
    for i in range(rows):
        c0 = cursors[i]

        def word(t):
            return payload[c0 + 2 * t] | payload[c0 + 2 * t + 1] << 16
        st = [word(2 * l) << 32 | word(2 * l + 1) for l in range(32)]
        t = 64
        for ch in range((cols + 127) // 128):
            for l in range(32):
                j0 = 128 * ch + 4 * l
                if j0 >= cols:
                    break
                for j in (j0, j0 + 2):
                    if j >= cols:
                        break
                    q = st[l] & 4095
                    k = owner[q]
                    a, b, f = pairs[k]
                    out[i * cols + j] = a
                    if j + 1 < cols:
                        out[i * cols + j + 1] = b
                    st[l] = (st[l] >> 12) * f + q - cum[k]
                if st[l] < 1 << 32:
                    st[l] = st[l] << 32 | word(t)
                    t += 1
        if any(s != 1 << 32 for s in st) or c0 + 2 * t != (
                cursors[i + 1] if i + 1 < rows else len(payload)):
            raise ValueError("row %d does not end as docs/formats/vans.md says" % i)
    return out


def mode_vans(tool, mdir):
    with tempfile.TemporaryDirectory() as tmp:
        spec = "n=300,k=2,seed=3,entropy=3.5,rows=170"
        report, pairs = os.path.join(tmp, "r.vans"), os.path.join(tmp, "p.vans")
        for path, extra in ((report, []), (pairs, ["--pairs"])):
            rc, out, err = run(tool, "vans", "gen", spec, path, *extra)
            if rc != 0:
                fail("vans gen %s: rc=%d err=%r" % (" ".join(extra), rc, err))
                return
        try:
            want, got = read_vans(report), read_vans(pairs)
        except (ValueError, struct.error) as e:
            fail("vans: reading the containers as documented: %s" % e)
            return
        if len(want) != 2 or want != got:
            fail("vans: the pair layout decodes to other weights than the report's layout")
        rc, obj, err = run_json(tool, "vans", "info", pairs, "--json")
        if rc != 0 or not obj or obj.get("pairs") is not True or obj.get("interleaved"):
            fail("vans info --json on a pair file: rc=%d %r %r" % (rc, obj, err))
        hashes = []
        for path in (report, pairs):
            rc, out, err = run(tool, "vans", "run", path, "--backend", "cpu", "--reps", "1",
                               "--json")
            hashes.append(json.loads(out).get("hash") if rc == 0 and out.strip() else None)
        if hashes[0] is None or hashes[0] != hashes[1]:
            fail("vans run: output hashes %r differ between layouts" % hashes)
        rc, out, err = run(tool, "vans", "gen", spec, os.path.join(tmp, "x.vans"), "--pairs",
                           "--interleaved")
        if rc == 0 or "two layouts" not in err:
            fail("vans gen --pairs --interleaved: rc=%d err=%r" % (rc, err))


def main():
    if len(sys.argv) != 4:
        print(__doc__)
        return 2
    mode, tool, mdir = sys.argv[1:]
    if mode in ("info", "spmv", "convert"):
        env = os.environ.get("ZS_TEST_MATRICES")
        if env:
            if not os.path.exists(os.path.join(env, "MANIFEST.tsv")):
                print("FAIL ZS_TEST_MATRICES=%s: no MANIFEST.tsv there" % env)
                return 1
            mdir = env
        elif not os.path.exists(os.path.join(mdir, "MANIFEST.tsv")):
            print("SKIP no test matrices: set ZS_TEST_MATRICES to a folder with MANIFEST.tsv "
                  "(none at %s)" % mdir)
            return 77
    globals()["mode_" + mode](tool, mdir)
    if FAILURES:
        print("%d failure(s)" % len(FAILURES))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
