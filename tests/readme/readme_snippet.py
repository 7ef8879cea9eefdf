#!/usr/bin/env python3
"""readme_snippet.py — keeps the README's API example true: it is compiled and run as it stands.

usage: readme_snippet.py extract README.md OUT.c   the C block after the README's marker line
       readme_snippet.py run PROGRAM               runs it on a small matrix whose A x is known
"""
import os
import subprocess
import sys
import tempfile

MARKER = "<!-- the program below is compiled and run by the tests (tests/readme) -->"


def extract(readme, out):
    lines = open(readme, encoding="utf-8").read().split("\n")
    try:
        start = lines.index(MARKER)
    except ValueError:
        sys.exit("%s: no line %r before the API example" % (readme, MARKER))
    if lines[start + 1] != "```c" or "```" not in lines[start + 2:]:
        sys.exit("%s: the marker is not followed by a ```c block" % readme)
    end = lines.index("```", start + 2)
    with open(out, "w", encoding="utf-8") as f:
        f.write("\n".join(lines[start + 2:end]) + "\n")


def run(program):
    # 3 x 4, with a duplicate (summed) and an empty row: y = A * ones = (3.5, 0, -2).
    mtx = "%%MatrixMarket matrix coordinate real general\n3 4 4\n1 1 1.5\n1 4 2\n3 2 -2\n1 1 0\n"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "a.mtx")
        with open(path, "w") as f:
            f.write(mtx)
        p = subprocess.run([program, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           universal_newlines=True, timeout=60)
        want = "y[0] = 3.5, y[2] = -2"
        if p.returncode != 0 or want not in p.stdout:
            print("FAIL: rc=%d stdout=%r stderr=%r (expected %r)" % (p.returncode, p.stdout,
                                                                   p.stderr, want))
            return 1
        # An unreadable file must end in the example's error path, not in a crash.
        p = subprocess.run([program, os.path.join(tmp, "missing.mtx")], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, universal_newlines=True, timeout=60)
        if p.returncode != 1 or "missing.mtx" not in p.stderr:
            print("FAIL: missing file: rc=%d stderr=%r" % (p.returncode, p.stderr))
            return 1
    print("ok")
    return 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "extract":
        extract(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 3 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2]))
    else:
        sys.exit(__doc__)
