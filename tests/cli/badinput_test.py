#!/usr/bin/env python3
"""badinput_test.py — the bad-input catalog (docs/bad-input.md), row by row, through the tool.

usage: badinput_test.py MODE ZSPARSE MATRICES_DIR
MODE: outputs | concurrent | inputs | values | symmetry | resources | scipy.
Exit 0 pass, 1 fail, 77 skip.
"""
import gzip
import os
import shutil
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib

FAILURES = []
BANNER = "%%MatrixMarket matrix coordinate real general\n"
SMALL = BANNER + "3 3 4\n1 1 1.5\n2 3 -2\n3 2 0.25\n3 3 4\n"


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, flush=True)


def run(tool, *args, stdin=None, input_bytes=None, timeout=120, pass_fds=()):
    p = subprocess.run([tool] + [str(a) for a in args], stdin=stdin, input=input_bytes,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout,
                       pass_fds=pass_fds)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace")


def expect(what, got, rc_ok, words=()):
    rc, out, err = got
    if not rc_ok(rc) or any(w not in err for w in words):
        fail("%s: rc=%d stderr=%r (wanted %s)" % (what, rc, err[:300], list(words)))


def refused(what, got, words=()):
    expect(what, got, lambda rc: rc != 0, words)


def accepted(what, got):
    expect(what, got, lambda rc: rc == 0)


def write(path, text, mode="w"):
    with open(path, mode) as f:
        f.write(text)
    return path


def tmpdir():
    return tempfile.mkdtemp(prefix="zs-bad-")


# ---- outputs --------------------------------------------------------------------------------

def mode_outputs(tool, mdir):
    d = tmpdir()
    src = write(os.path.join(d, "a.mtx"), SMALL)
    for ext in (".zsm", ".mtx", ".mtx.gz"):
        out = os.path.join(d, "out" + ext)
        accepted("convert to new %s" % ext, run(tool, "convert", src, "-o", out))
        # Permissions of an existing output are kept.
        os.chmod(out, 0o600)
        accepted("convert over %s" % ext, run(tool, "convert", src, "-o", out))
        if stat.S_IMODE(os.stat(out).st_mode) != 0o600:
            fail("%s: mode %o after replacing a 600 file" % (ext, os.stat(out).st_mode))
        # A symlink planted at the old fixed temporary name is not followed.
        victim = write(os.path.join(d, "victim" + ext), "precious")
        os.symlink(victim, out + ".tmp")
        accepted("convert with a planted .tmp link", run(tool, "convert", src, "-o", out))
        if open(victim, "rb").read() != b"precious":
            fail("%s: the file behind a planted OUT.tmp link was overwritten" % ext)
        os.unlink(out + ".tmp")
        # A symlinked output keeps its link; the file it names is replaced.
        target = write(os.path.join(d, "target" + ext), "old")
        link = os.path.join(d, "link" + ext)
        os.symlink("target" + ext, link)
        accepted("convert onto a link", run(tool, "convert", src, "-o", link))
        if not os.path.islink(link) or open(target, "rb").read() == b"old":
            fail("%s: symlinked output: link replaced or target not written" % ext)
        accepted("info of the link's target", run(tool, "info", target))
    # The CLI refuses an empty value before any writer sees it; io/safe-output tests the
    # writer's own refusal of an empty name.
    refused("-o ''", run(tool, "convert", src, "-o", ""), ["needs a non-empty value"])
    missing = os.path.join(d, "no", "such", "x.zsm")
    refused("missing directory", run(tool, "convert", src, "-o", missing), [missing])
    refused("directory output", run(tool, "convert", src, "-o", d), ["directory"])
    node = os.path.join(d, "null")
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError) as e:
        print("note: mknod not permitted (%s): device case skipped" % e)
    else:
        refused("character device output", run(tool, "convert", src, "-o", node),
                ["character device"])
        if not stat.S_ISCHR(os.stat(node).st_mode):
            fail("a character device output was replaced by a file")
    # -o - is standard output (Matrix Market text, nothing else on stdout).
    rc, out, err = run(tool, "convert", src, "-o", "-")
    if rc != 0 or not out.startswith("%%MatrixMarket") or out.count("\n") != 7:
        fail("convert -o -: rc=%d out=%r err=%r" % (rc, out[:80], err))
    refused("-o - with --json", run(tool, "convert", src, "-o", "-", "--json"))
    left = [n for n in os.listdir(d) if "tmp" in n]
    if left:
        fail("temporaries left behind: %s" % left)
    shutil.rmtree(d)


def mode_concurrent(tool, mdir):
    """Two convert jobs onto one output, many times: each exits 0 and the output is always one
    complete file of either job, byte for byte."""
    d = tmpdir()
    # Two inputs of one shape and parsing time, different values: the jobs write at once.
    srcs = []
    for k in (1, 2):
        lines = ["%d %d %.17g" % (i % 1000 + 1, (7 * i) % 1000 + 1, 1.0 / (i + k))
                 for i in range(100000)]
        srcs.append(write(os.path.join(d, "in%d.mtx" % k),
                          BANNER + "1000 1000 100000\n" + "\n".join(lines) + "\n"))
    a, b = srcs
    for ext, opts in ((".zsm", ["-f", "coo"]), (".mtx", [])):
        want = []
        for src in (a, b):
            ref = os.path.join(d, "ref" + os.path.basename(src) + ext)
            accepted("reference convert", run(tool, "convert", src, "-o", ref, *opts))
            want.append(open(ref, "rb").read())
        out = os.path.join(d, "out" + ext)
        rounds = 40
        for r in range(rounds):
            procs = [subprocess.Popen([tool, "convert", src, "-o", out] + opts,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
                     for src in ((a, b) if r % 2 else (b, a))]
            for p in procs:
                _, err = p.communicate(timeout=120)
                if p.returncode != 0:
                    fail("concurrent convert %s round %d: rc=%d %r" % (ext, r, p.returncode,
                                                                       err[:200]))
            got = open(out, "rb").read()
            if got not in want:
                fail("concurrent convert %s round %d: the output is neither job's file "
                     "(%d bytes)" % (ext, r, len(got)))
                break
            accepted("the concurrent output loads", run(tool, "info", out))
        left = [n for n in os.listdir(d) if "tmp" in n]
        if left:
            fail("temporaries left behind: %s" % left)
        print("%s: %d rounds of two concurrent jobs" % (ext, rounds))
    shutil.rmtree(d)


# ---- inputs ---------------------------------------------------------------------------------

def feed(fd, data):
    """Write data into a pipe's write end from a thread, then close it."""
    def go():
        with os.fdopen(fd, "wb") as f:
            f.write(data)
    t = threading.Thread(target=go)
    t.start()
    return t


def mode_inputs(tool, mdir):
    d = tmpdir()
    src = write(os.path.join(d, "a.mtx"), SMALL)
    data = SMALL.encode()
    for name in ("-", "/dev/stdin"):
        rc, out, err = run(tool, "info", name, input_bytes=data)
        if rc != 0 or "3 x 3" not in out:
            fail("info %s from a pipe: rc=%d %r" % (name, rc, err))
    # A process substitution: /dev/fd/N, a pipe, with gzip data in it.
    r, w = os.pipe()
    t = feed(w, gzip.compress(data))
    rc, out, err = run(tool, "info", "/dev/fd/%d" % r, pass_fds=(r,))
    os.close(r)
    t.join()
    if rc != 0 or "3 x 3" not in out:
        fail("info /dev/fd/N (gzip through a pipe): rc=%d %r" % (rc, err))
    # A container through a pipe is named as such.
    zsm = os.path.join(d, "a.zsm")
    accepted("convert", run(tool, "convert", src, "-o", zsm))
    refused("a container on standard input",
            run(tool, "info", "-", input_bytes=open(zsm, "rb").read()), [".zsm container"])
    # A FIFO whose writer comes later is waited for, as cat does.
    fifo = os.path.join(d, "fifo")
    os.mkfifo(fifo)
    def late_writer():
        time.sleep(0.5)
        with open(fifo, "wb") as f:
            f.write(data)
    t = threading.Thread(target=late_writer)
    t.start()
    rc, out, err = run(tool, "info", fifo, timeout=60)
    t.join()
    if rc != 0 or "3 x 3" not in out:
        fail("info FIFO: rc=%d %r" % (rc, err))
    # convert from standard input to standard output.
    rc, out, err = run(tool, "convert", "-", "-o", "-", input_bytes=data)
    if rc != 0 or "2 3 -2" not in out:
        fail("convert - -o -: rc=%d %r" % (rc, err))

    # --rhs: /dev/zero ends in an error, not an endless loop; long lines keep their numbers.
    spd = write(os.path.join(d, "spd.mtx"), "%%MatrixMarket matrix coordinate real symmetric\n"
                "3 3 5\n1 1 4\n2 1 1\n2 2 4\n3 2 1\n3 3 4\n")
    refused("--rhs /dev/zero", run(tool, "solve", spd, "--rhs", "/dev/zero", timeout=60),
            ["NUL byte"])
    # Each number is 2,000 characters long, so a 4,095-byte buffer would split them.
    long_num = "0.5" + "0" * 1997
    rhs = write(os.path.join(d, "long.rhs"), " ".join([long_num] * 3) + "\n")
    short = write(os.path.join(d, "short.rhs"), "0.5 0.5 0.5\n")
    results = []
    for f in (rhs, short):
        rc, out, err = run(tool, "solve", spd, "--rhs", f, "--json")
        results.append(out if rc == 0 else None)
        if rc != 0:
            fail("solve --rhs %s: rc=%d %r" % (f, rc, err))
    if results[0] and results[1]:
        import json
        a, b = json.loads(results[0]), json.loads(results[1])
        if a.get("iterations") != b.get("iterations") or a.get("rel_residual") != b.get(
                "rel_residual"):
            fail("solve with 2,000-character numbers differs from the short rhs: %r vs %r" %
                 (a.get("rel_residual"), b.get("rel_residual")))
    refused("--rhs hex", run(tool, "solve", spd, "--rhs",
                             write(os.path.join(d, "hex.rhs"), "0x1p-1 1 1\n")), ["decimal"])
    # An endless input of blanks ends once it holds more bytes than the rhs can need.
    yes = subprocess.Popen(["yes", " "], stdout=subprocess.PIPE)
    refused("--rhs from an endless pipe", run(tool, "solve", spd, "--rhs", "-", stdin=yes.stdout,
                                              timeout=120), ["more bytes"])
    yes.kill()
    yes.wait()
    refused("--rhs NaN", run(tool, "solve", spd, "--rhs",
                             write(os.path.join(d, "nan.rhs"), "1 nan 1\n")), ["not finite"])
    refused("--rhs too many", run(tool, "solve", spd, "--rhs",
                                  write(os.path.join(d, "many.rhs"), "1 " * 9 + "\n")),
            ["more numbers"])

    # gzip: trailing garbage refused, concatenated members read as one stream.
    gz = os.path.join(d, "t.mtx.gz")
    with open(gz, "wb") as f:
        f.write(gzip.compress(data) + b"garbage\n")
    refused("gzip trailing garbage", run(tool, "info", gz), ["trailing data after the gzip"])
    half = len(data) // 2
    with open(gz, "wb") as f:
        f.write(gzip.compress(data[:half]) + gzip.compress(data[half:]))
    accepted("two gzip members", run(tool, "info", gz))
    # Hexadecimal floats are not Matrix Market.
    refused("hex float", run(tool, "info", write(os.path.join(d, "hex.mtx"),
                                                 BANNER + "2 2 1\n1 1 0x1p3\n")),
            ["hexadecimal", "hex.mtx:3"])
    shutil.rmtree(d)


# ---- non-finite values ----------------------------------------------------------------------

def zsm_set_value(path, index, value):
    """Overwrite element `index` of the f64 array 'values' and fix the CRCs (the container
    layout of docs/container.md)."""
    b = bytearray(open(path, "rb").read())
    n_params, n_arrays = struct.unpack_from("<II", b, 20)
    at = 64 + 40 * n_params
    for i in range(n_arrays):
        e = at + 64 * i
        name = bytes(b[e:e + 32]).rstrip(b"\0").decode()
        size, _, count, off, length = struct.unpack_from("<IIQQQ", b, e + 32)
        if name == "values":
            struct.pack_into("<d", b, off + 8 * index, value)
            struct.pack_into("<I", b, e + 36, zlib.crc32(bytes(b[off:off + length])))
    h = at + 64 * n_arrays
    struct.pack_into("<I", b, h, zlib.crc32(bytes(b[:h])))
    open(path, "wb").write(bytes(b))


def mode_values(tool, mdir):
    d = tmpdir()
    dup = write(os.path.join(d, "dup.mtx"), BANNER + "2 2 3\n1 1 1e308\n1 1 1e308\n2 2 1\n")
    refused("duplicates past the f64 maximum", run(tool, "info", dup), ["infinite", "dup.mtx"])
    dup32 = write(os.path.join(d, "dup32.mtx"), BANNER + "2 2 2\n2 1 3e38\n2 1 3e38\n")
    refused("duplicates past the f32 maximum", run(tool, "info", dup32, "--type", "f32"),
            ["infinite", "f32"])
    big = write(os.path.join(d, "big.mtx"), BANNER + "2 2 2\n1 1 1\n2 1 1e39\n")
    zsm = os.path.join(d, "big.zsm")
    accepted("f64 big value", run(tool, "convert", big, "-o", zsm))
    refused("convert --type f32 past the f32 maximum",
            run(tool, "convert", zsm, "-o", os.path.join(d, "x.zsm"), "--type", "f32"),
            ["f32 range", "row 1, col 0"])
    refused("convert .mtx --type f32", run(tool, "convert", big, "-o", os.path.join(d, "y.zsm"),
                                           "--type", "f32"), ["1e39"])
    # A container holding NaN or Inf is refused by every command.
    ok = write(os.path.join(d, "ok.mtx"), SMALL)
    for v, word in ((float("nan"), "NaN"), (float("inf"), "infinite")):
        bad = os.path.join(d, "bad.zsm")
        accepted("convert", run(tool, "convert", ok, "-o", bad))
        zsm_set_value(bad, 2, v)
        for args in (["info", bad], ["spmv", bad, "--repeat", "1"],
                     ["convert", bad, "-o", os.path.join(d, "back.mtx")]):
            refused("%s with %r" % (args[0], v), run(tool, *args), ["'values' element 2", word])
        if os.path.exists(os.path.join(d, "back.mtx")):
            fail("convert wrote an .mtx from a container holding %r" % v)
    shutil.rmtree(d)


# ---- symmetric files ------------------------------------------------------------------------

def mode_symmetry(tool, mdir):
    d = tmpdir()
    sym = "%%MatrixMarket matrix coordinate real symmetric\n"
    skew = "%%MatrixMarket matrix coordinate real skew-symmetric\n"
    cases = [
        ("both triangles", sym + "3 3 3\n2 1 1.5\n3 3 1\n% note\n1 2 1.5\n", ["both.mtx:6",
                                                                              "line 3"]),
        ("both triangles, pattern", "%%MatrixMarket matrix coordinate pattern symmetric\n"
         "3 3 2\n1 3\n3 1\n", ["both.mtx:4"]),
        ("both triangles, skew", skew + "3 3 2\n3 2 1\n2 3 -1\n", ["both.mtx:4"]),
        ("skew diagonal", skew + "3 3 2\n2 1 1\n2 2 1\n", ["both.mtx:4", "diagonal"]),
    ]
    for what, text, words in cases:
        refused(what, run(tool, "info", write(os.path.join(d, "both.mtx"), text)), words)
    # One triangle, either one, is fine; a repeated entry in one triangle is summed.
    for text in (sym + "3 3 3\n2 1 1.5\n3 3 1\n3 1 2\n", sym + "3 3 3\n1 2 1.5\n3 3 1\n1 3 2\n",
                 sym + "2 2 2\n2 1 1\n2 1 2\n"):
        rc, out, err = run(tool, "convert", write(os.path.join(d, "one.mtx"), text), "-o", "-")
        if rc != 0:
            fail("one-triangle symmetric file refused: %r" % err)
    shutil.rmtree(d)


# ---- resources ------------------------------------------------------------------------------

def physical_bytes():
    try:
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return 0


def zsm_set_rows(path, rows):
    b = bytearray(open(path, "rb").read())
    struct.pack_into("<q", b, 32, rows)
    n_params, n_arrays = struct.unpack_from("<II", b, 20)
    h = 64 + 40 * n_params + 64 * n_arrays
    struct.pack_into("<I", b, h, zlib.crc32(bytes(b[:h])))
    open(path, "wb").write(bytes(b))


def mode_resources(tool, mdir):
    if physical_bytes() > (40 << 30):
        print("this machine has over 40 GiB: the 48 GiB cases might run; skipping")
        sys.exit(77)
    d = tmpdir()
    wide = write(os.path.join(d, "wide.mtx"), BANNER + "2 2147483647 1\n1 1 1\n")
    tall = write(os.path.join(d, "tall.mtx"), BANNER + "2147483647 2 1\n1 1 1\n")
    for what, path, words in (("2^31-1 columns", wide, ["out of memory", "vectors", "GiB"]),
                              ("2^31-1 rows", tall, ["out of memory", "2147483647 x 2", "GiB"])):
        t0 = time.time()
        refused("spmv " + what, run(tool, "spmv", path, "--repeat", "1", timeout=120), words)
        if time.time() - t0 > 20:
            fail("spmv %s took %.0f s to fail" % (what, time.time() - t0))
    # A container whose header claims 2^31-1 rows (its arrays hold 3 x 3).
    zsm = os.path.join(d, "claim.zsm")
    accepted("convert", run(tool, "convert", write(os.path.join(d, "a.mtx"), SMALL), "-o", zsm,
                            "-f", "coo"))
    zsm_set_rows(zsm, 2147483647)
    t0 = time.time()
    refused("spmv of a container claiming 2^31-1 rows",
            run(tool, "spmv", zsm, "--repeat", "1", timeout=120), ["out of memory", "GiB"])
    if time.time() - t0 > 20:
        fail("the 2^31-1 row container took %.0f s to fail" % (time.time() - t0))
    shutil.rmtree(d)


# ---- an independent reader: SciPy's mmread --------------------------------------------------

FIELDS = ("real", "integer", "pattern", "complex")
SYMMETRIES = ("general", "symmetric", "skew-symmetric", "hermitian")


def crafted(field, symmetry, fmt):
    """A 4 x 4 file of one kind: lower triangle for the symmetric kinds."""
    n = 4
    ents = [(i, j) for j in range(n) for i in range(n)
            if symmetry == "general" or i > j or (i == j and symmetry != "skew-symmetric")]
    if fmt == "coordinate":
        ents = [e for k, e in enumerate(ents) if k % 3 != 1]  # leave some out

    def val(k):
        if field == "integer":
            return "%d" % (k * 7 % 11 - 5)
        if field == "complex":
            return "%.3f %.3f" % (k * 0.5 - 1, 0.25 * k)
        return "%.17g" % ((k * 7 % 11 - 5) / 3.0)
    lines = ["%%%%MatrixMarket matrix %s %s %s" % (fmt, field, symmetry), "% crafted"]
    if fmt == "coordinate":
        lines.append("%d %d %d" % (n, n, len(ents)))
        for k, (i, j) in enumerate(ents):
            lines.append("%d %d" % (i + 1, j + 1) + ("" if field == "pattern" else " " + val(k)))
    else:
        lines.append("%d %d" % (n, n))
        lines += [val(k) for k in range(len(ents))]
    return "\n".join(lines) + "\n"


def same_as_scipy(tool, path, d, what):
    """zsparse's reading (written back as exact coordinate general) against SciPy's. Returns
    None when zsparse refuses the file, else True/False."""
    import numpy as np
    import scipy.io
    out = os.path.join(d, "zs.mtx")
    rc, _, err = run(tool, "convert", path, "-o", out)
    if rc != 0:
        return None
    ref = scipy.io.mmread(path)
    got = scipy.io.mmread(out).tocsr()
    if not hasattr(ref, "tocsr"):  # an array file: SciPy gives a dense array
        if np.iscomplexobj(ref) or ref.shape != got.shape or not np.array_equal(
                ref.astype(np.float64), got.toarray()):
            fail("%s: differs from SciPy's dense reading" % what)
            return False
        return True
    ref = ref.tocsr()
    ref.sum_duplicates()
    got.sum_duplicates()
    if ref.shape != got.shape:
        fail("%s: shape %s vs SciPy's %s" % (what, got.shape, ref.shape))
        return False
    if np.iscomplexobj(ref.data):
        fail("%s: zsparse accepted a complex file" % what)
        return False
    diff = abs(ref.astype(np.float64) - got).tocoo()
    scale = abs(ref).max() if ref.nnz else 1.0
    # Explicit zeros are kept by zsparse and by SciPy alike; compare the structure too.
    ref.sort_indices()
    got.sort_indices()
    if diff.nnz and diff.data.max() > 1e-15 * max(scale, 1.0):
        fail("%s: values differ from SciPy's by %g" % (what, diff.data.max()))
        return False
    if not (np.array_equal(ref.indptr, got.indptr) and np.array_equal(ref.indices, got.indices)):
        fail("%s: the stored pattern differs from SciPy's" % what)
        return False
    return True


def mode_scipy(tool, mdir):
    try:
        import numpy  # noqa: F401
        import scipy.io  # noqa: F401
    except ImportError:
        print("SciPy is not available to %s: skipping" % sys.executable)
        sys.exit(77)
    d = tmpdir()
    # Every field x symmetry x format; the invalid or unsupported ones must be refused.
    refuse = {("pattern", "skew-symmetric"), ("pattern", "hermitian")}
    checked = 0
    for fmt in ("coordinate", "array"):
        for field in FIELDS:
            for sym in SYMMETRIES:
                if fmt == "array" and field == "pattern":
                    continue  # not a valid combination: refused by both readers
                what = "%s %s %s" % (fmt, field, sym)
                path = write(os.path.join(d, "c.mtx"), crafted(field, sym, fmt))
                must_refuse = field == "complex" or sym == "hermitian" or (field, sym) in refuse
                got = same_as_scipy(tool, path, d, what)
                if must_refuse and got is not None:
                    fail("%s: accepted, should be refused" % what)
                elif not must_refuse and got is None:
                    fail("%s: refused: %s" % (what, run(tool, "info", path)[2]))
                checked += 1
    print("%d crafted kinds checked" % checked)
    if not os.path.exists(os.path.join(mdir, "MANIFEST.tsv")):
        print("no shared matrices at %s: skipping the rest" % mdir)
        sys.exit(77 if not FAILURES else 1)
    names = sorted(n for n in os.listdir(mdir) if n.endswith((".mtx", ".mtx.gz")))
    for n in names:
        path = os.path.join(mdir, n)
        with (gzip.open if n.endswith(".gz") else open)(path, "rt") as f:
            banner = f.readline().lower()
        unsupported = "complex" in banner or "hermitian" in banner
        got = same_as_scipy(tool, path, d, n)
        if got is None and not unsupported:
            fail("%s: refused by zsparse: %s" % (n, run(tool, "info", path)[2]))
        elif got is not None and unsupported:
            fail("%s: a complex file was accepted" % n)
    print("%d shared matrices checked against scipy.io.mmread" % len(names))
    shutil.rmtree(d)


MODES = {name[5:]: f for name, f in globals().items() if name.startswith("mode_")}


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in MODES:
        print(__doc__)
        return 2
    MODES[sys.argv[1]](*sys.argv[2:])
    print("%d failure(s)" % len(FAILURES) if FAILURES else "ok")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
