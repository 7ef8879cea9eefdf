#!/usr/bin/env python3
"""Join a newer device call's auto files into bench/data's: its lines replace the older ones.

    python3 bench/auto/join_runs.py bench/data/h100-auto.csv NEW/h100-auto.csv --call NAME
    python3 bench/auto/join_runs.py bench/data/h100-auto-runs.csv NEW/h100-auto-runs.csv --call NAME
    python3 bench/auto/join_runs.py bench/data/h100-auto-runs.csv NEW/h100-auto-runs.csv --call NAME \\
        --by-candidate

A summary file (DEVICE-auto.csv, one line per case, type and op) and a runs file
(DEVICE-auto-runs.csv, one line per candidate) are joined alike by default: every (case, type,
op) the newer file has replaces all the older file's lines of it, so each case's candidates come
from one call. --by-candidate replaces only the same (case, type, op, candidate) and adds the
candidates the older file lacks (a call that timed a few more candidates of cases timed before).
Each line keeps, in a last column `call`, the name of the call it came from (`--old-call` names
the older file's lines where it has no such column). The older file is rewritten in place, its
order kept and the newer cases appended. Exit status 0, 2 usage.
"""
import argparse
import csv
import sys


def key(r, by_candidate):
    k = (r["case"], r["type"], r["op"])
    return k + (r["candidate"],) if by_candidate else k


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("old", help="the file of bench/data, rewritten")
    ap.add_argument("new", help="the newer call's file of the same kind")
    ap.add_argument("--call", required=True, help="the newer call's name, kept in the column `call`")
    ap.add_argument("--old-call", default="", help="the older lines' call where they name none")
    ap.add_argument("--by-candidate", action="store_true", help="replace per candidate, not per case")
    a = ap.parse_args()
    with open(a.old, newline="", encoding="utf-8") as f:
        old = list(csv.DictReader(f))
    with open(a.new, newline="", encoding="utf-8") as f:
        new = list(csv.DictReader(f))
    if not old or not new:
        ap.error("both files need lines")
    if a.by_candidate and "candidate" not in new[0]:
        ap.error("--by-candidate needs runs files (a `candidate` column)")
    cols = [c for c in old[0].keys() if c != "call"]
    if [c for c in new[0].keys() if c != "call"] != cols:
        ap.error(f"{a.new} has other columns than {a.old}")
    for r in old:
        r["call"] = r.get("call") or a.old_call
    for r in new:
        r["call"] = a.call
    newer = {key(r, a.by_candidate) for r in new}
    kept = [r for r in old if key(r, a.by_candidate) not in newer]
    # the newer lines take the place of the first line they replace, the rest go to the end
    out, placed = [], set()
    by_key = {}
    for r in new:
        by_key.setdefault(key(r, a.by_candidate), []).append(r)
    for r in old:
        k = key(r, a.by_candidate)
        if k in newer:
            if k not in placed:
                out += by_key[k]
                placed.add(k)
        else:
            out.append(r)
    out += [r for k, rs in by_key.items() if k not in placed for r in rs]
    with open(a.old, "w", newline="", encoding="utf-8") as f:
        w = csv.DictWriter(f, fieldnames=cols + ["call"], lineterminator="\n")
        w.writeheader()
        w.writerows(out)
    print(f"{a.old}: {len(kept)} lines kept, {len(new)} from {a.call} ({len(newer)} "
          f"{'candidates' if a.by_candidate else 'cases'} replaced or added)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
