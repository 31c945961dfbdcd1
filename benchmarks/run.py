"""Run every benchmark and print one JSON object per line (README.md, "Benchmarks").

Each `benchmarks/bench_*.py` module defines `BENCHMARKS`: a dict of name -> callable returning
{"value": number, "unit": str, "baseline": number | None, "baseline_name": str, "target": number}.
Benchmarks report; they never fail on a slow machine.

    python benchmarks/run.py               # all
    python benchmarks/run.py --only NAME   # one
    python benchmarks/run.py --group gui   # those of one module (bench_gui.py), in one process
"""
from __future__ import annotations

import argparse
import importlib
import json
import pathlib
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))


def discover(group: str | None = None) -> dict:
    found = {}
    for path in sorted(HERE.glob(f"bench_{group}.py" if group else "bench_*.py")):
        module = importlib.import_module(path.stem)
        found.update(module.BENCHMARKS)
    return found


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", help="run one benchmark by name")
    parser.add_argument("--group", help="run the benchmarks of benchmarks/bench_GROUP.py only")
    args = parser.parse_args(argv)
    benchmarks = discover(args.group)
    if not benchmarks:
        print(f"no benchmarks in group {args.group!r}", file=sys.stderr)
        return 2
    if args.only and args.only not in benchmarks:
        print(f"unknown benchmark {args.only!r}; known: {', '.join(sorted(benchmarks))}", file=sys.stderr)
        return 2
    for name, func in benchmarks.items():
        if args.only and name != args.only:
            continue
        print(json.dumps({"benchmark": name, **func()}), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
