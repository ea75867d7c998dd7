#!/usr/bin/env python3
"""Compares two result CSV files of `trainbench-cli run --csv` (docs/cli.md, "CSV files") row by row.

Used to check that a restructuring left behaviour unchanged: every metric of every checkpoint must
agree to --digits significant digits (default 10). Columns that legitimately differ between two runs
of the same experiment (ids, training time) are ignored; so are columns that only one file has, which
are listed. Exit status 0 when the files agree, 1 when they differ, 2 on bad input.

    scripts/compare_results.py old.csv new.csv [--digits 10] [--ignore COLUMN ...]
"""
import argparse
import csv
import math
import sys

IGNORED = {"experiment_id", "run_id", "train_time_s"}


def read(path):
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        sys.exit(f"{path}: {e.strerror}")
    if not rows:
        sys.exit(f"{path}: empty file (no header row)")
    return rows[0], rows[1:]


def same(a, b, digits):
    if a == b:
        return True
    try:
        x, y = float(a), float(b)
    except ValueError:
        return False
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if x == y:
        return True
    scale = max(abs(x), abs(y))
    return abs(x - y) <= scale * 10.0 ** (1 - digits)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("old")
    ap.add_argument("new")
    ap.add_argument("--digits", type=int, default=10)
    ap.add_argument("--ignore", nargs="*", default=[])
    args = ap.parse_args()
    ignored = IGNORED | set(args.ignore)

    old_header, old_rows = read(args.old)
    new_header, new_rows = read(args.new)
    only_old = [c for c in old_header if c not in new_header]
    only_new = [c for c in new_header if c not in old_header]
    if only_old:
        print(f"columns only in {args.old}: {', '.join(only_old)}")
    if only_new:
        print(f"columns only in {args.new}: {', '.join(only_new)}")
    common = [c for c in old_header if c in new_header and c not in ignored]
    oi = {c: old_header.index(c) for c in common}
    ni = {c: new_header.index(c) for c in common}

    if len(old_rows) != len(new_rows):
        print(f"row counts differ: {len(old_rows)} in {args.old}, {len(new_rows)} in {args.new}")
    differing = 0
    for n, (o, w) in enumerate(zip(old_rows, new_rows), start=2):
        bad = [c for c in common if not same(o[oi[c]], w[ni[c]], args.digits)]
        if bad:
            differing += 1
            if differing <= 10:
                print(f"line {n}: " + "; ".join(f"{c}: {o[oi[c]]!r} -> {w[ni[c]]!r}" for c in bad))
    rows = min(len(old_rows), len(new_rows))
    print(f"{rows} rows compared on {len(common)} columns to {args.digits} significant digits: {differing} differ")
    return 0 if differing == 0 and len(old_rows) == len(new_rows) else 1


if __name__ == "__main__":
    sys.exit(main())
