#!/usr/bin/env python3
"""Compare two zs-bench-gpu CSV files kernel by kernel: did anything get slower?

    bench/compare.py OLD.csv NEW.csv [--threshold 0.05] [--library zsparse] [--cold]

Rows are matched on (matrix, type, library, kernel, op); the warm medians (cold with --cold)
are compared as new / old. Prints one line per matched kernel, slowest change first, then the
kernels only one file has. Exit status: 0 when no matched kernel is slower by more than the
threshold, 1 when one is (so a script can stop on a regression), 2 on bad input.

Timings from different runs move by a few per cent (clocks, placement); a change in one kernel
that the same run's others do not share is the signal. Why it exists: a format change once made
unrelated kernels 8 % slower and only the matrix it was made for had been measured.
"""
import argparse
import csv
import sys

KEY = ("matrix", "type", "library", "kernel", "op")


def die(message):
    print(f"compare.py: {message}", file=sys.stderr)
    sys.exit(2)


def load(path, column, library):
    """{key: time_us} of the rows that passed their check and have a time."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.DictReader(f))
    except OSError as e:
        die(f"{path}: {e.strerror}")
    if rows and any(k not in rows[0] for k in KEY + (column,)):
        missing = [k for k in KEY + (column,) if k not in rows[0]]
        die(f"{path}: not a zs-bench-gpu CSV (no column '{missing[0]}')")
    out = {}
    for line, r in enumerate(rows, start=2):
        if library and r["library"] != library:
            continue
        if r.get("ok", "1") not in ("1", "true", "True"):
            continue
        try:
            t = float(r[column])
        except ValueError:
            continue  # kernel not run (empty time)
        if not t > 0:
            die(f"{path}:{line}: {column} = {r[column]!r} is not a time")
        out[tuple(r[k] for k in KEY)] = t
    return out


def name(k):
    matrix, type_, _, kernel, op = k
    return f"{kernel} {op} {type_} {matrix}"


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("old")
    p.add_argument("new")
    p.add_argument("--threshold", type=float, default=0.05,
                   help="slower by more than this fraction counts (default 0.05)")
    p.add_argument("--library", default="zsparse",
                   help="only this library's kernels ('' for all; default zsparse)")
    p.add_argument("--cold", action="store_true", help="compare the cold-cache medians")
    a = p.parse_args(argv)
    if not 0 <= a.threshold < 10:
        p.error("--threshold must be in [0, 10)")
    column = "time_cold_us" if a.cold else "time_warm_us"
    old, new = load(a.old, column, a.library), load(a.new, column, a.library)
    both = sorted(set(old) & set(new), key=lambda k: old[k] / new[k])
    slower = 0
    for k in both:
        ratio = new[k] / old[k]
        flag = ""
        if ratio > 1 + a.threshold:
            flag, slower = "  SLOWER", slower + 1
        elif ratio < 1 - a.threshold:
            flag = "  faster"
        print(f"{old[k]:10.1f} -> {new[k]:10.1f} us  x{ratio:5.3f}{flag:8} {name(k)}")
    for label, only in (("only in old", set(old) - set(new)), ("only in new", set(new) - set(old))):
        for k in sorted(only):
            print(f"{label}: {name(k)}")
    print(f"{len(both)} kernels compared, {slower} slower by more than {a.threshold:.0%}")
    return 1 if slower else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
