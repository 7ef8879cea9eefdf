"""run_pytest.py — runs the Python package's tests for `meson test`: points them at the library,
tool, package and matrices of this build, and exits 77 (SKIP) when they cannot run here or when
every test skipped."""

import argparse
import os
import sys

SKIP = 77


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--skip", help="do not run; print this reason and exit 77")
    ap.add_argument("--library", help="libzsparse.so to load")
    ap.add_argument("--tool", help="the zsparse command line tool")
    ap.add_argument("--package", help="the folder holding the zsparse package")
    ap.add_argument("--matrices", help="real test matrices unless $ZS_TEST_MATRICES names some")
    ap.add_argument("tests", nargs="?", help="the folder of the test files")
    ap.add_argument("pytest_args", nargs="*", help="more pytest arguments (-k EXPR, -x, ...)")
    args, extra = ap.parse_known_args()
    if args.skip:
        print(f"SKIP: {args.skip}")
        return SKIP
    try:
        import numpy  # noqa: F401
        import pytest
        import scipy  # noqa: F401
    except ImportError as e:
        print(f"SKIP: {sys.executable} cannot import {e.name} (install python3-pytest, "
              "python3-numpy, python3-scipy)")
        return SKIP
    sys.dont_write_bytecode = True
    os.environ["ZSPARSE_LIBRARY"] = os.path.abspath(args.library)
    if args.tool:
        os.environ["ZSPARSE_TOOL"] = os.path.abspath(args.tool)
    if args.matrices:
        os.environ["ZS_TEST_MATRICES_DEFAULT"] = args.matrices  # $ZS_TEST_MATRICES wins
    sys.path.insert(0, os.path.abspath(args.package))
    os.environ["PYTHONPATH"] = os.pathsep.join(
        [os.path.abspath(args.package)] + [p for p in [os.environ.get("PYTHONPATH")] if p]
    )

    class Outcomes:
        passed = failed = skipped = 0

        def pytest_runtest_logreport(self, report):
            if report.when == "call" and report.passed:
                self.passed += 1
            elif report.failed:
                self.failed += 1
            elif report.skipped:
                self.skipped += 1

    counts = Outcomes()
    rc = pytest.main(
        ["-p", "no:cacheprovider", "-q", "-rs", args.tests] + args.pytest_args + extra,
        plugins=[counts],
    )
    if rc == 0 and counts.passed == 0 and counts.skipped > 0:
        print("SKIP: every test skipped")
        return SKIP
    return int(rc)


if __name__ == "__main__":
    sys.exit(main())
