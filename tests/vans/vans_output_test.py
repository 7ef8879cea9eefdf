#!/usr/bin/env python3
"""vans_output_test.py — `zsparse vans gen OUT` and `zsparse vans run --output OUT` write through
the safe output: a planted link is never followed, a failed write keeps the old file, special
files are refused, nothing is left behind.

usage: vans_output_test.py ZSPARSE
Exit 0 pass, 1 fail.
"""
import os
import resource
import shutil
import signal
import stat
import subprocess
import sys
import tempfile

FAILURES = []
SPEC = "n=64,k=2,seed=3,rows=300"  # N_K = 300 output bytes, a container of about 40 KB


def fail(msg):
    FAILURES.append(msg)
    print("FAIL: " + msg, flush=True)


def run(tool, *args, fsize=None):
    def limit():
        # A write past the limit then fails with EFBIG instead of killing the process.
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, resource.RLIM_INFINITY))

    p = subprocess.run([tool] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       preexec_fn=limit if fsize else None, timeout=120)
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


def ok(what, got):
    if got[0] != 0:
        fail("%s: rc=%d stderr=%r" % (what, got[0], got[2][:300]))


def refused(what, got, word):
    if got[0] == 0 or word not in got[2]:
        fail("%s: rc=%d stderr=%r (wanted a refusal naming %r)" % (what, got[0], got[2][:300],
                                                                   word))


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)
    return path


def strays(d, keep):
    left = sorted(set(os.listdir(d)) - set(keep))
    if left:
        fail("%s: left behind: %s" % (d, left))


def check_writer(tool, d, name, write_to, expected):
    """write_to(path, fsize=None) runs the tool writing to path; expected: the bytes it writes."""
    out = os.path.join(d, name)
    ok(name + ": new output", write_to(out))
    if read(out) != expected:
        fail("%s: the output differs from the reference bytes" % name)
    # An existing file's mode is kept.
    os.chmod(out, 0o600)
    ok(name + ": over a 600 file", write_to(out))
    if stat.S_IMODE(os.stat(out).st_mode) != 0o600:
        fail("%s: mode %o after replacing a 600 file" % (name, os.stat(out).st_mode))
    # A symlink planted at the old fixed temporary name is not followed.
    victim = write(os.path.join(d, "victim"), b"precious")
    os.symlink(victim, out + ".tmp")
    ok(name + ": with a planted OUT.tmp link", write_to(out))
    if read(victim) != b"precious" or read(out) != expected:
        fail("%s: the planted OUT.tmp link was followed" % name)
    os.unlink(out + ".tmp")
    # A symlinked output keeps its link; the file it names is replaced.
    target = write(os.path.join(d, "target"), b"old")
    link = os.path.join(d, "link")
    os.symlink("target", link)
    ok(name + ": onto a link", write_to(link))
    if not os.path.islink(link) or read(target) != expected:
        fail("%s: symlinked output: link replaced or target not written" % name)
    # A write that fails midway (file size limit) leaves the old file whole, and no temporary.
    old = write(os.path.join(d, "old"), b"old output")
    refused(name + ": write past the file size limit", write_to(old, fsize=len(expected) // 2),
            old)
    if read(old) != b"old output":
        fail("%s: a failed write changed the old file" % name)
    # Special files and directories are refused, never replaced.
    refused(name + ": a directory", write_to(d), "directory")
    node = os.path.join(d, "null")
    try:
        os.mknod(node, 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    except (PermissionError, OSError) as e:
        print("note: mknod not permitted (%s): the device case is skipped" % e)
    else:
        refused(name + ": a character device", write_to(node), "character device")
        if not stat.S_ISCHR(os.stat(node).st_mode):
            fail("%s: a character device output was replaced by a file" % name)
        os.unlink(node)
    strays(d, [name, "victim", "target", "link", "old"])


def main():
    tool = sys.argv[1]
    d = tempfile.mkdtemp(prefix="zs-vans-out-")
    try:
        src = os.path.join(d, "src.vans")
        ok("gen", run(tool, "vans", "gen", SPEC, src))
        ref_y = os.path.join(d, "ref.out")
        ok("run on ref", run(tool, "vans", "run", src, "--backend", "ref", "--reps", "1",
                             "--output", ref_y))
        expected_y = read(ref_y)
        if len(expected_y) != 300:
            fail("run --output wrote %d bytes, N_K is 300" % len(expected_y))

        gen_dir = os.path.join(d, "gen")
        os.mkdir(gen_dir)
        check_writer(tool, gen_dir, "out.vans",
                     lambda p, fsize=None: run(tool, "vans", "gen", SPEC, p, fsize=fsize),
                     read(src))
        run_dir = os.path.join(d, "run")
        os.mkdir(run_dir)
        check_writer(tool, run_dir, "y.out",
                     lambda p, fsize=None: run(tool, "vans", "run", src, "--backend", "cpu",
                                               "--reps", "1", "--output", p, fsize=fsize),
                     expected_y)

        # --output - is the raw output on standard output, the summary on standard error.
        rc, out, err = run(tool, "vans", "run", src, "--backend", "cpu", "--reps", "1",
                           "--output", "-")
        if rc != 0 or out != expected_y or "output hash" not in err:
            fail("run --output -: rc=%d, %d bytes on stdout, stderr %r" % (rc, len(out), err))
        refused("run --output - --json", run(tool, "vans", "run", src, "--output", "-", "--json"),
                "standard output")
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("%d failures" % len(FAILURES))
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
