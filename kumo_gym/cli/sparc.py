"""``kumo-gym sparc ...``: render, solve, generate and evaluate SPaRC puzzles from the shell.

* ``kumo-gym sparc render RECORD_OR_SEED --png out.png [--index I] [--solution K]``
* ``kumo-gym sparc solve FILE.jsonl [--cap N]``: enumerate every record's solutions, compare with
  the stored lists, print counts and timings
* ``kumo-gym sparc generate --n N --out FILE.jsonl [--level L] [--rules R] [--seed S]``: fresh
  puzzles in the official record format, rule types balanced over the file
* ``kumo-gym sparc evaluate RECORDS.jsonl ANSWERS.jsonl``: score model answers and print the
  metrics of docs/specs/sparc.md §12 (each answer line: ``{"id": ..., "completion": ...}``)
"""
from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def _load_puzzle(arg: str, index: int, args):
    """A record from a JSONL/JSON file (line ``index``) or a fresh puzzle from an integer seed."""
    from ..envs.sparc.official import read_records

    if Path(arg).is_file():
        records = read_records(arg)
        if not 0 <= index < len(records):
            raise SystemExit(f"error: --index {index} is outside 0..{len(records) - 1} for {arg}")
        return records[index]
    try:
        seed = int(arg)
    except ValueError:
        raise SystemExit(f"error: {arg!r} is neither a record file nor an integer seed") from None
    import numpy as np

    from ..envs.sparc.generate import generate

    level = None if args.level is None else int(args.level)
    return generate(np.random.default_rng(seed), level=level, rules=args.rules).record()


def cmd_render(args) -> int:
    from ..envs.sparc.puzzle import SparcPuzzle
    from ..envs.sparc.render import render_rgb, write_png
    from ..envs.sparc.text import puzzle_data_text

    rec = _load_puzzle(args.source, args.index, args)
    p = SparcPuzzle.from_record(rec)
    path = None
    if args.solution is not None:
        sols = rec.get("solutions") or []
        if not 0 <= args.solution < len(sols):
            raise SystemExit(f"error: --solution {args.solution} is outside 0..{len(sols) - 1}")
        path = [(d["x"], d["y"]) for d in sols[args.solution]["path"]]
    print(f"# SPaRC {rec.get('id')}  {p.width}x{p.height}  level {rec.get('difficulty_level')}  "
          f"solutions {rec.get('solution_count')}")
    print(puzzle_data_text(p))
    if args.png:
        write_png(args.png, render_rgb(p, path, cell_px=args.cell_px))
        print(f"wrote {args.png}")
    return 0


def cmd_solve(args) -> int:
    from ..envs.sparc.official import read_records
    from ..envs.sparc.puzzle import SparcPuzzle
    from ..envs.sparc.search import enumerate_solutions

    records = read_records(args.file)
    cap = None if args.cap is None or args.cap < 0 else args.cap
    mismatches = 0
    times = []
    for rec in records:
        p = SparcPuzzle.from_record(rec)
        t = time.perf_counter()
        res = enumerate_solutions(p, cap=cap, time_limit=args.time_limit)
        dt = time.perf_counter() - t
        times.append(dt)
        status = "" if res.complete else "UNFINISHED (time limit)"
        if rec.get("solutions") is not None and not res.capped and res.complete:
            want = {tuple((d["x"], d["y"]) for d in s["path"]) for s in rec["solutions"]}
            got = {tuple(s) for s in res.solutions}
            status = "matches stored" if got == want else "DIFFERS from stored"
            mismatches += got != want
        shortest = len(res.shortest) if res.shortest else "-"
        print(f"{rec.get('id')}  {p.width}x{p.height}  solutions {res.count}{'+' if res.capped else ''}  "
              f"shortest {shortest}  nodes {res.nodes}  {dt * 1000:.1f} ms  {status}")
    if times:
        ts = sorted(times)
        print(f"{len(records)} puzzles: median {ts[len(ts) // 2] * 1000:.1f} ms, max {ts[-1] * 1000:.1f} ms, "
              f"{mismatches} mismatches")
    return 1 if mismatches else 0


def cmd_generate(args) -> int:
    from ..core.seeding import item_rng
    from ..envs.sparc.generate import RuleBalancer, generate
    from ..envs.sparc.official import known_official

    balancer = RuleBalancer()
    _, forbidden = known_official()
    level = None if args.level is None else int(args.level)
    params = {"level": level, "rules": args.rules, "width": args.width, "height": args.height}
    n = 0
    tmp = Path(str(args.out) + ".tmp")
    with open(tmp, "w", encoding="utf-8") as f:
        for i in range(args.n):
            rng = item_rng("kumo_gym/SPaRC-v0", params, "train", args.seed, i)
            lv = level if level is not None else int(rng.integers(1, 6))
            g = generate(rng, width=args.width, height=args.height, level=lv, rules=args.rules,
                         balancer=balancer, forbidden=forbidden)
            f.write(json.dumps(g.record()) + "\n")
            n += 1
    tmp.replace(args.out)
    print(f"wrote {n} puzzles to {args.out}; puzzles per rule type: {balancer.counts}")
    return 0


def cmd_evaluate(args) -> int:
    from ..analysis.sparc import format_table, summarize
    from ..envs.sparc.official import read_records
    from ..envs.sparc.task import SparcTask

    task = SparcTask()
    by_id = {r["id"]: r for r in read_records(args.records)}
    rows = []
    for line in Path(args.answers).read_text(encoding="utf-8").splitlines():
        if not line.strip():
            continue
        a = json.loads(line)
        rec = by_id.get(a.get("id"))
        if rec is None:
            print(f"warning: answer for unknown puzzle id {a.get('id')!r} skipped", file=sys.stderr)
            continue
        inst = task.load(rec)
        v = task.score(inst, str(a.get("completion", "")), finish_reason=a.get("finish_reason"))
        rows.append({"instance": inst, "verdict": v, "puzzle_id": rec["id"]})
    summary = summarize(rows)
    print(format_table(summary))
    if args.json:
        Path(args.json).write_text(json.dumps(summary, indent=2))
    return 0


def register(subparsers) -> None:
    p = subparsers.add_parser("sparc", help="SPaRC tools: render, solve, generate, evaluate")
    sub = p.add_subparsers(dest="sparc_command", metavar="SPARC_COMMAND")
    sub.required = True

    r = sub.add_parser("render", help="print a puzzle and optionally save it as PNG")
    r.add_argument("source", help="a JSONL/JSON record file, or an integer seed to generate a puzzle")
    r.add_argument("--index", type=int, default=0, help="record number in the file")
    r.add_argument("--solution", type=int, default=None, help="draw stored solution number K")
    r.add_argument("--png", default=None)
    r.add_argument("--cell-px", type=int, default=80)
    r.add_argument("--level", default=None, help="with a seed: difficulty level 1..5")
    r.add_argument("--rules", default=None, help="with a seed: rule set, e.g. stars or polys_ylops")
    r.set_defaults(func=cmd_render)

    s = sub.add_parser("solve", help="enumerate every solution of each record in a file")
    s.add_argument("file")
    s.add_argument("--cap", type=int, default=None, help="stop after cap+1 solutions (default: all)")
    s.add_argument("--time-limit", type=float, default=None, help="seconds per puzzle (default: none)")
    s.set_defaults(func=cmd_solve)

    g = sub.add_parser("generate", help="write fresh puzzles in the official record format")
    g.add_argument("--n", type=int, required=True)
    g.add_argument("--out", required=True)
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--level", default=None, help="1..5 (default: a level drawn per puzzle)")
    g.add_argument("--rules", default=None, help="an official config name, e.g. stars, polys_ylops")
    g.add_argument("--width", type=int, default=None)
    g.add_argument("--height", type=int, default=None)
    g.set_defaults(func=cmd_generate)

    e = sub.add_parser("evaluate", help="score answers to records and print the SPaRC metrics")
    e.add_argument("records", help="JSONL of records (e.g. the official test split)")
    e.add_argument("answers", help='JSONL with {"id": record id, "completion": model text}')
    e.add_argument("--json", default=None, help="also write the metrics as JSON")
    e.set_defaults(func=cmd_evaluate)
