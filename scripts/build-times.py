#!/usr/bin/env python3
"""Where a full build's compile time goes (docs/build-times.md has the figures it produced).

    scripts/build-times.py [--source DIR] [--build DIR] [--jobs N] [--target T] [--cmake-arg ARG]...

Configures DIR (default /tmp/tb-build-times, emptied first) with this script as the compiler
launcher and no ccache, builds, and prints:
  - the build's wall time and the CPU time (user + system) of everything it ran;
  - the CPU time of the compiler runs, summed, by group (tests, bench, plugins, core, app,
    precompiled headers, Qt's moc output) and the ten most expensive files;
  - the summed step time of build/.ninja_log (wall time per step, what the issue measured).
CPU time is the figure to compare between two builds on a busy 2-core machine: wall times
stretch when other work shares the cores, CPU seconds much less.

As a launcher (TB_BUILD_TIMES_LOG set) it runs the compiler and appends one line per file:
"<cpu seconds>\t<wall seconds>\t<object file>".
"""
import argparse
import collections
import os
import resource
import shutil
import subprocess
import sys
import time


def launch(argv):
    log = os.environ["TB_BUILD_TIMES_LOG"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    code = subprocess.call(argv)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    out = argv[argv.index("-o") + 1] if "-o" in argv else argv[-1]
    # One short line per write with O_APPEND: parallel compiles do not interleave.
    with open(log, "a") as f:
        f.write(f"{cpu:.3f}\t{wall:.3f}\t{out}\n")
    return code


def group(path):
    if path.endswith(".gch") or "cmake_pch" in path:
        return "precompiled headers"
    if "mocs_compilation" in path or "/moc_" in path or "_autogen/" in path:
        return "Qt moc output"
    for prefix, name in (("tests/", "tests"), ("bench/", "bench"), ("plugins/", "plugins"),
                         ("core/", "core"), ("app/", "app"), ("fuzz/", "fuzz")):
        if path.startswith(prefix):
            return name
    return "other"


def ninja_steps(build):
    total = 0.0
    seen = {}
    with open(os.path.join(build, ".ninja_log")) as f:
        for line in f:
            if line.startswith("#"):
                continue
            start, end, _, out, _ = line.rstrip("\n").split("\t")
            seen[out] = (int(end) - int(start)) / 1000.0  # the last build of each output
    for seconds in seen.values():
        total += seconds
    return total, len(seen)


def main():
    if os.environ.get("TB_BUILD_TIMES_LOG") and len(sys.argv) > 1 and not sys.argv[1].startswith("--"):
        return launch(sys.argv[1:])
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--source", default=os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ap.add_argument("--build", default="/tmp/tb-build-times")
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--target", default="all")
    ap.add_argument("--cmake-arg", action="append", default=[])
    ap.add_argument("--report", action="store_true",
                    help="only report on the build already in --build (e.g. after fixing a file and building "
                         "again: the last compile of each file counts)")
    args = ap.parse_args()

    build = os.path.abspath(args.build)
    log = os.path.join(build, "compile-times.tsv")
    if args.report:
        return report(args, build, log, None, None)
    if os.path.exists(build):
        shutil.rmtree(build)
    os.makedirs(build)
    env = dict(os.environ, TB_BUILD_TIMES_LOG=log, CCACHE_DISABLE="1")
    me = os.path.abspath(__file__)
    subprocess.check_call(["cmake", "-S", args.source, "-B", build, "-G", "Ninja", "-DCMAKE_BUILD_TYPE=Release",
                           f"-DCMAKE_CXX_COMPILER_LAUNCHER={me}", f"-DCMAKE_C_COMPILER_LAUNCHER={me}",
                           *args.cmake_arg], env=env, stdout=subprocess.DEVNULL)
    git = subprocess.run(["git", "-C", args.source, "rev-parse", "--short", "HEAD"], capture_output=True, text=True)
    with open(os.path.join(build, "build-times-source.txt"), "w") as f:
        f.write(f"source {args.source} (git {git.stdout.strip() or 'unknown'}), target {args.target}, -j{args.jobs}\n")
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    code = subprocess.call(["cmake", "--build", build, "-j", str(args.jobs), "--target", args.target, "--", "-k", "0"],
                           env=env, stdout=open(os.path.join(build, "build-output.log"), "w"), stderr=subprocess.STDOUT)
    if code != 0:
        print(f"the build failed (exit {code}; {build}/build-output.log): figures below are partial", file=sys.stderr)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    build_cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return report(args, build, log, wall, build_cpu)


def report(args, build, log, wall, build_cpu):
    last = {}
    with open(log) as f:
        for line in f:
            cpu, w, out = line.rstrip("\n").split("\t", 2)
            out = os.path.relpath(out, build) if os.path.isabs(out) else out
            last[out] = (float(cpu), float(w), out)  # a file compiled again: its last compile counts
    files = list(last.values())
    by_group = collections.defaultdict(float)
    for cpu, _, out in files:
        by_group[group(out)] += cpu  # <folder>/CMakeFiles/<target>.dir/<file>.o, relative to the build
    compile_cpu = sum(c for c, _, _ in files)
    steps, nsteps = ninja_steps(build)

    meta = os.path.join(build, "build-times-source.txt")
    if os.path.exists(meta):
        print(open(meta).read().rstrip())
    if wall is not None:
        print(f"wall {wall:.0f} s; CPU of the whole build (compiler, moc, linker) {build_cpu:.0f} s")
    print(f"ninja steps {nsteps}, summed step time {steps:.0f} s")
    print(f"compiler runs {len(files)}, CPU summed {compile_cpu:.0f} s")
    for name, cpu in sorted(by_group.items(), key=lambda kv: -kv[1]):
        print(f"  {name:22s} {cpu:7.0f} s  {100 * cpu / compile_cpu:4.1f} %")
    print("ten most expensive files (CPU s):")
    for cpu, _, out in sorted(files, reverse=True)[:10]:
        print(f"  {cpu:6.1f}  {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
