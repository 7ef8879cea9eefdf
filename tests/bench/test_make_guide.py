#!/usr/bin/env python3
"""bench/make_guide.py: the guide follows its data, --compare catches a guide that does not.

Copies bench/ (the script, template and data) to a scratch folder, then checks that the
committed guide compares equal, that a changed time moves the table cell and its speed-up and
makes --compare exit 1, and that an unknown token is refused.
"""
import os
import shutil
import subprocess
import sys
import tempfile


def run(script, *args):
    p = subprocess.run([sys.executable, script, *args], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def main():
    bench, guide = sys.argv[1], sys.argv[2]
    failed = []

    def expect(what, ok, out=""):
        print(("ok   " if ok else "FAIL ") + what + ("" if ok else "\n" + out[-2000:]))
        failed.extend([] if ok else [what])

    with tempfile.TemporaryDirectory() as d:
        b = os.path.join(d, "bench")
        os.mkdir(b)
        for f in ("make_guide.py", "guide.md.in"):
            shutil.copy(os.path.join(bench, f), b)
        shutil.copytree(os.path.join(bench, "data"), os.path.join(b, "data"))
        script, out = os.path.join(b, "make_guide.py"), os.path.join(d, "out.md")

        rc, log = run(script, "-o", out, "--compare", guide)
        expect("the committed guide is what the data makes", rc == 0, log)

        # MAT-VANS at N = 8192: 0.0418 / 0.0365 = 1.15x; with 0.0209 ms it must read 2.00x
        vans = os.path.join(b, "data", "h100-vans.csv")
        with open(vans) as f:
            text = f.read()
        assert ",0.0365,0.0418," in text, "h100-vans.csv changed: update this test"
        with open(vans, "w") as f:
            f.write(text.replace(",0.0365,0.0418,", ",0.0209,0.0418,"))
        rc, log = run(script, "-o", out, "--compare", guide)
        expect("a changed time makes --compare exit 1", rc == 1, log)
        with open(out) as f:
            made = f.read()
        expect("the changed time and its speed-up are in the table",
               "| 8192 | 4.335 | 0.0209 | 0.0418 | 0.1122 | 2.00× |" in made, made)

        with open(os.path.join(b, "guide.md.in"), "a") as f:
            f.write("@@no_such_table@@\n")
        rc, log = run(script, "-o", out)
        expect("an unknown token is refused", rc != 0 and "no_such_table" in log, log)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
