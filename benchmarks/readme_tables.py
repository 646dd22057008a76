"""Regenerate the performance tables of README.md, docs/performance.md, docs/grid.md,
docs/integrations.md, docs/sparc.md, docs/baselines.md and docs/games.md from the benchmark JSON files.

Each table sits between ``<!-- perf:NAME:start -->`` and ``<!-- perf:NAME:end -->`` and is rewritten
from ``benchmarks/results/*.json`` (written by the ``benchmarks/*.py`` scripts):

* ``headline`` (README): the few figures the front page quotes, each with its target;
* ``coldstart`` (docs/performance.md): first reset in a fresh process with an empty numba cache, CPU
  beside wall;
* ``planning`` (docs/performance.md): interactive steps per second (with resets, and alone) beside
  CartPole-v1 in the same process, and golden-answer scoring beside reasoning-gym's scorer (CPU per
  call);
* ``grid`` (docs/performance.md): CPU (wall) ms per generated instance, ours beside Tatham's per-game
  marginal CPU, one row per puzzle of ``results/grid.json``;
* ``grid-full`` (docs/grid.md): every column of ``results/grid.json``, one row per preset, as
  ``benchmarks/grid.py`` prints it (its ``table``);
* ``serve`` (docs/integrations.md): ``kumo-gym serve`` under load (``benchmarks/serve.py``), one
  row per environment, server, workers and concurrent sessions, and the 16-core projection;
* ``real-model`` (docs/baselines.md): SmolLM2-135M-Instruct on the registry (``benchmarks/real_model.py``),
  answer-found and solved rates, verdicts, tokens and seconds, beside the answer-found rate before the
  prompts and verdicts were rewritten;
* ``games`` (docs/games.md): generation and optimal solves per CPU second for every preset of every game of
  ``results/games.json`` (``benchmarks/games.py``), the mean optimum, the share solved exactly, and Tatham's
  marginal generation CPU beside ours;
* ``generation`` (docs/performance.md): SmolLM2 tokens per second at batch 1, 8 and 32 (prefill and
  decode apart) and ``kumo-gym eval`` with one prompt at a time against batched (``benchmarks/generation.py``);
* ``sparc-enumeration``, ``sparc-generation``, ``sparc-levels`` (docs/sparc.md): the enumeration
  comparison, the generation throughput per level and the level calibration (the official
  table with ours beside it) of ``results/sparc.json``, as ``benchmarks/sparc.py`` prints them.

Usage: ``python benchmarks/readme_tables.py`` (``--check`` exits 1 when a file is stale).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
#: this folder, where the other benchmark scripts are (not moved when ROOT is, as the tests do)
HERE = Path(__file__).resolve().parent
PRESETS = ("trivial", "easy", "normal", "hard")


def _autogroup_note(d: dict) -> str:
    """What the kernel's per-session scheduling (autogroup) let the serve run have."""
    if not d.get("sched_autogroup"):
        return ""
    nice = d.get("autogroup_nice")
    if nice is not None and nice <= -10:
        return (f" The kernel's autogroup scheduling was on and the run's group had nice {nice}, so the run (load "
                "generator and every server process together) got most of the 2 cores beside the machine's other "
                "work.")
    return (" The kernel's autogroup scheduling was on: the run (load generator and every server process together) "
            "got one share of the CPU beside each other busy session on the machine, so a second worker process did "
            "not get the server more CPU.")


def _load(name: str) -> dict:
    return json.loads((RESULTS / f"{name}.json").read_text())


def _n(x: float) -> str:
    """A rate or a time with about three significant digits."""
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.2f}"


def _yes(flag: object) -> str:
    return "yes" if flag else "no"


def _row(*cells: object) -> str:
    """One Markdown table row of ``cells``."""
    return "| " + " | ".join(map(str, cells)) + " |"


def headline() -> str:
    """Three lines for the README: cold start, planning steps beside CartPole, grid generation beside
    Tatham's, each against its target."""
    cold, plan, grid = _load("coldstart"), _load("planning"), _load("grid")
    worst = max(cold["rows"], key=lambda r: r["cpu_s"])
    ratios = [r.get("cartpole_ratio", plan["cartpole_steps_per_s"] / r["interactive_steps_per_s"]) for r in plan["envs"]]
    met = sum(bool(r["meets_target"]) for r in grid["rows"])
    cold_line = (f"* **Cold start**: the first `reset` of every environment in a fresh process with an empty cache "
                 f"takes at most {worst['cpu_s']:.2f} s of CPU ({worst['family']}; target < "
                 f"{cold['target_cpu_s']:g} s), with the kernels that `make install` builds ahead of time.")
    planning_line = (f"* **Planning steps**: {min(ratios):.1f}-{max(ratios):.1f}x the time of a CartPole-v1 step in "
                     "the same process, resets included (target within 3x).")
    grid_line = (f"* **Grid generation**: {met} of {len(grid['rows'])} puzzle presets generate within max(3x "
                 "Tatham's C generator, 1 ms) of CPU per puzzle, uniqueness certified.")
    return f"{cold_line}\n{planning_line}\n{grid_line}"


def coldstart_table() -> str:
    d = _load("coldstart")
    lines = [(f"Method: {d['method']}; target < {d['target_cpu_s']:g} s CPU; "
             f"1-minute load average {d['load_avg_1m']:.1f} on {d['cpus']} cores during the run."), "",
             (f"Kernels built ahead of time by `make install`: SPaRC {'yes' if d.get('sparc_native_build') else 'no'}, "
              f"grid and KUMO {'yes' if d.get('native_kernels_build', d.get('grid_native_build')) else 'no'}. *JIT* is the same first reset with them turned "
              "off (`KUMO_GYM_NATIVE=0`): every kernel it needs compiles from an empty cache."), "",
             ("| family | env | CPU s | wall s | import / make / reset CPU s | numba, pysat ... loaded | < 3 s CPU "
              "| JIT CPU s | JIT < 3 s |"),
             "|---|---|---|---|---|---|---|---|---|"]
    for r in d["rows"]:
        jit = (f"{r['jit_cpu_s']:.2f} | {_yes(r['jit_meets_target'])}" if "jit_cpu_s" in r else "- | -")
        lines.append(_row(r["family"], f"`{r['env']}`", f"{r['cpu_s']:.2f}", f"{r['wall_s']:.2f}",
                          f"{r['import_cpu_s']:.2f} / {r['make_cpu_s']:.2f} / {r['reset_cpu_s']:.2f}",
                          ", ".join(r["heavy_modules"]) or "-", _yes(r["meets_target"]), jit))
    return "\n".join(lines)


def planning_table() -> str:
    d = _load("planning")
    cart = d["cartpole_steps_per_s"]
    lines = [(f"Method: {d.get('method', 'wall-clock rates in one process')}. Gymnasium's CartPole-v1 (random "
             f"actions) ran at {cart:,.0f} steps/s in the same process; target: within 3x of it."), "",
             ("| env | answer episodes/s | interactive steps/s (with resets) | steps/s alone | x CartPole | "
             "structured steps/s |"), "|---|---|---|---|---|---|"]
    for r in d["envs"]:
        s = r.get("structured_steps_per_s")
        alone = r.get("interactive_step_only_per_s")
        ratio = r.get("cartpole_ratio", cart / r["interactive_steps_per_s"])
        lines.append(f"| {r['env'].split('/')[-1].removesuffix('-v0')} | {_n(r['answer_episodes_per_s'])} | "
                     f"{_n(r['interactive_steps_per_s'])} | {'n/a' if alone is None else _n(alone)} | {ratio:.2f} | "
                     f"{'n/a' if s is None else _n(s)} |")
    lines += ["", "| solver (same search) | numba | pure Python | speed-up |", "|---|---|---|---|"]
    for puzzle in ("RiverCrossing", "BlocksWorld"):
        rows = [r for r in d["solvers"] if r["puzzle"] == puzzle]
        if rows:
            r = max(rows, key=lambda r: r["python_ms"])  # the hardest instance of the run
            lines.append(f"| {puzzle}, {r['instance']} | {r['numba_ms']:.2f} ms | {r['python_ms']:.1f} ms | "
                         f"{r['speedup']:.0f}x |")
    v = d["verification"]
    lines += ["", (f"Hanoi N=10 answers ({v['moves_per_answer']:,} moves) verify at {v['hanoi10_text_per_s']:,.0f}/s "
                  f"from raw text, {v['hanoi10_list_per_s']:,.0f}/s from parsed lists.")]
    scoring = d.get("scoring_vs_reasoning_gym")
    lines.append("")
    if scoring is None:
        lines.append("Scoring beside reasoning-gym: skipped (reasoning-gym was not installed for this run).")
    else:
        lines += [("Scoring one golden answer (CPU microseconds per call; ours parses the reply text and checks "
                  "every rule, reasoning-gym compares with its stored answer). *Again* scores the same instance "
                  "object repeatedly, as a GRPO group's correct completions or a repeated evaluation do: a grid "
                  "puzzle's verify reuses a grid it already found solved on that object. *First* scores a fresh "
                  "copy of the instance each call (what a reward function that loads each row's instance pays): "
                  "every rule is checked. *Reward fn* is what our TRL reward function pays per completion on "
                  "dataset rows (instance JSON), 8 correct completions per row with distinct texts, as in a GRPO "
                  "group: the row's instance is loaded once per group. The ratio and the 3x target are for "
                  "*again*."), "",
                  ("| ours | reasoning-gym | ours again us | ours first us | ours reward fn us | reasoning-gym us "
                   "| ratio | within 3x |"),
                  "|---|---|---|---|---|---|---|---|"]
        for r in scoring:
            first = f"{r['ours_first_us']:.1f}" if "ours_first_us" in r else "-"
            group = f"{r['ours_reward_fn_us']:.1f}" if "ours_reward_fn_us" in r else "-"
            lines.append(f"| `{r['ours']}` {r['params']} | `{r['reasoning_gym']}` | {r['ours_us']:.1f} | {first} | "
                         f"{group} | {r['rg_us']:.1f} | {r['ratio']:.1f} | {'yes' if r['meets_target'] else 'no'} |")
    return "\n".join(lines)


def grid_table() -> str:
    d = _load("grid")
    rows = {}
    for r in d["rows"]:
        tatham = "n/a" if r["tatham_cpu_ms"] is None else f"{r['tatham_cpu_ms']:.3f}"
        rows[(r["puzzle"], r["preset"])] = (f"{r['ours_cpu_ms']:.2f} ({r['ours_wall_ms']:.2f})", tatham,
                                            f"{r['verify_per_s']:.0f}")
    puzzles = list(dict.fromkeys(p for p, _ in rows))
    lines = ["Method: " + d["meta"]["method"] + ". Each cell: our CPU ms (wall ms) / Tatham's CPU ms per "
             "instance; target max(3 x Tatham, 1 ms).", "",
             "| puzzle | trivial | easy | normal | hard | verify /s (normal) |", "|---|---|---|---|---|---|"]
    for p in puzzles:
        cells = []
        for preset in PRESETS:
            got = rows.get((p, preset))
            cells.append("n/a" if got is None else f"{got[0]} / {got[1]}")
        normal = rows.get((p, "normal"))
        lines.append(f"| {p} | " + " | ".join(cells) + f" | {normal[2] if normal else 'n/a'} |")
    return "\n".join(lines)


def grid_full_table() -> str:
    if str(HERE) not in sys.path:  # imported rather than run as a script
        sys.path.insert(0, str(HERE))
    from grid import table  # benchmarks/grid.py: the table it prints (imports kumo_gym)

    return table(_load("grid")["rows"])


def games_table() -> str:
    d = _load("games")
    lines = [(f"Machine: {d['machine']}, Python {d['python']}. *exact*: the share of instances whose optimum the solver "
             "proved (else a certified bound and a found solution); Tatham: `sgt-<game> --generate`, marginal CPU "
             "per game."), "",
             ("| game | preset | Tatham params | instances | inst/CPU s | solves/CPU s | mean optimum | exact | "
             "ours ms | Tatham ms |"), "|---|---|---|---|---|---|---|---|---|---|"]
    for game, presets in d["games"].items():
        for preset, m in presets.items():
            t = m.get("tatham_cpu_s_per_game")
            solves = _n(m["solves_per_cpu_s"])
            if "search_budget" in m:  # loaded boards searched under a node budget (benchmarks/games.py SEARCH_BUDGET)
                solves += (f" ({round(m['won_within_budget'] * m['n'])} of {m['n']} won within "
                           f"{m['search_budget'] / 1e6:g}M nodes)")
            lines.append(_row(game, preset, f"`{m['tatham_params']}`", m["n"], _n(m["instances_per_cpu_s"]),
                              solves, f"{m['mean_optimum']:.1f}", f"{m['exact_share']:.2f}",
                              f"{1e3 * m['ours_cpu_s_per_instance']:.3f}", "n/a" if t is None else f"{1e3 * t:.3f}"))
    return "\n".join(lines)


def serve_table() -> str:
    d = _load("serve")
    lines = [(f"Method: {d['method']}. {d['seconds_per_cell']:g} s per cell; 1-minute load average "
              f"{d['load_avg_1m_start']:.1f} at the start and {d['load_avg_1m_end']:.1f} at the end, on "
              f"{d['cpus']} cores shared by the servers, the load generator and the machine's other work. "
              "*server cores*: CPU seconds per second of every server process; *RSS (PSS)*: the server's memory "
              "with all the sessions open."
              + _autogroup_note(d)), "",
             ("| env | server | workers | sessions | episodes/s | p50 / p95 / p99 ms | errors | server cores | "
              "client cores | server CPU ms per episode | RSS (PSS) MB | mismatches |"),
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in d["rows"]:
        head = f"| {r['env']} | {r['server']} | {r['workers']} | {r['sessions']} |"
        if "skipped" in r:
            lines.append(f"{head} skipped: {r['skipped']} | | | | | | | |")
            continue
        per = r["server_cpu_ms_per_episode"]
        lines.append(f"{head} {_n(r['episodes_per_s'])} | {_n(r['p50_ms'])} / {_n(r['p95_ms'])} / {_n(r['p99_ms'])} | "
                     f"{r['errors']} | {r['server_cores']:.2f} | {r['client_cores']:.2f} | "
                     f"{_n(per) if per else '-'} | {r['server_rss_mb']:.0f} ({r['server_pss_mb']:.0f}) | "
                     f"{r['mismatches']} of {r['episodes_checked']} |")
    for env, proj in d.get("projection_16_cores", {}).items():
        lines += ["", (f"Projection for {env} (not measured): {proj['server_cpu_ms_per_episode']:.1f} server CPU ms "
                       f"per episode, so about {proj['episodes_per_s_per_core']:,.0f} episodes/s per core and "
                       f"{proj['episodes_per_s_16_workers']:,} with 16 workers on 16 free cores "
                       f"({proj['assumes']}).")]
    return "\n".join(lines)


def generation_table() -> str:
    d = _load("generation")
    lines = [(f"Method: {d['method']}. {d['cpus']} cores, 1-minute load average {d['load_avg_1m']:.1f} at the end "
              "of the run. *decode*: new tokens of the whole batch per second of `generate` after the prefill."), "",
             ("| batch | prompt tokens | prefill tok/s | prefill wall / CPU s | decode tok/s | decode tok per CPU s |"
             " generate wall / CPU s |"),
             "|---|---|---|---|---|---|---|"]
    for r in d["rows"]:
        lines.append(f"| {r['batch']} | {r['prompt_tokens']:,} | {_n(r['prefill_tokens_per_s'])} | "
                     f"{r['prefill_wall_s']:.1f} / {r['prefill_cpu_s']:.1f} | {_n(r['decode_tokens_per_s'])} | "
                     f"{_n(r['decode_tokens_per_cpu_s'])} | {r['generate_wall_s']:.1f} / {r['generate_cpu_s']:.1f} |")
    if d.get("eval"):
        one = d["eval"][0]
        lines += ["", (f"`kumo-gym eval` end to end ({one['episodes']} episodes of `{d['env']}` {d['difficulty']}, "
                       f"greedy, at most {d['eval_max_tokens']} tokens per reply; greedy completions identical "
                       f"in both runs: {'yes' if d['eval_same_greedy_completions'] else 'no'}):"), "",
                  "| batch size | generate calls | wall s | CPU s | episodes/s | completion tok/s | speedup |",
                  "|---|---|---|---|---|---|---|"]
        for r in d["eval"]:
            lines.append(f"| {r['batch_size']} | {r['generate_calls']} | {r['wall_s']:.1f} | {r['cpu_s']:.1f} | "
                         f"{r['episodes_per_s']:.3f} | {_n(r['completion_tokens_per_s'])} | "
                         f"{one['wall_s'] / r['wall_s']:.2f}x |")
    return "\n".join(lines)


def _sparc(name: str):
    """A table of ``benchmarks/sparc.py`` (the tables it prints) over ``results/sparc.json``."""
    def build() -> str:
        if str(HERE) not in sys.path:  # imported rather than run as a script
            sys.path.insert(0, str(HERE))
        import sparc  # benchmarks/sparc.py (imports kumo_gym)

        return getattr(sparc, name)(_load("sparc"))

    return build


#: the easiest preset per family, as benchmarks/real_model.py runs it
EASIEST = {"grid": "trivial", "planning": "easy", "kumo": "easy", "sparc": "1", "finereason": "easy"}


def real_model_table() -> str:
    """docs/baselines.md: ``benchmarks/real_model.py``'s rows (SmolLM2 on the registry), one per env, mode,
    preset and decoding, with the before-run's answer-found rate beside where one was measured."""
    d = _load("real_model")
    lines = [f"Model: `{d['model']}`; {d['method']}; {d['machine']}; {d['date']}.", "",
             ("| env | mode | preset | decoding | episodes | answer found | answer found before | solved | "
              "mean partial | verdicts | prompt tok | reply tok | s |"),
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    before = d.get("before", {}).get("answer_found", {})
    marked = False
    apart = sorted({r["generated_on"] for r in d["rows"] if r.get("generated_on")})
    for r in d["rows"]:
        # rows written before a cut-off reply had to be read as an answer to count (an upper bound)
        mark = "" if r.get("found_rule") else "*"
        marked |= bool(mark)
        env = r["env"].split("/")[-1]
        verdicts = ", ".join(f"{k} {v}" for k, v in sorted(r["statuses"].items(), key=lambda kv: -kv[1]))
        # the before-run: greedy, the easiest preset, answer mode (KUMO: interactive); unlisted envs found none
        same = (r["decoding"] == "greedy" and r["preset"] == EASIEST.get(r["family"])
                and (r["mode"] == "answer" or r["family"] == "kumo"))
        was = before.get(env.removesuffix("-v0"), 0.0) if same and before else None
        # generated elsewhere (real_model.py --import-replies): the row's generation seconds there
        secs = f"{r['seconds']:.0f}†" if r.get("generated_on") else f"{r['wall_s']:.0f}"
        lines.append(f"| {env} | {r['mode']} | {r['preset']} | {r['decoding']} | {r['episodes']} | "
                     f"{r['answer_found_rate']:.2f}{mark} | {'-' if was is None else f'{was:.2f}'} | {r['solved_rate']:.2f} | "
                     f"{r['mean_partial']:.2f} | {verdicts} | {r['prompt_tokens_mean']:.0f} | "
                     f"{r['completion_tokens_mean']:.0f} | {secs} |")
    if marked:
        lines += ["", ("\\* counted by the first rule, an upper bound: a reply cut off at the token limit counted as an answer "
                       "found when anything could be read from it, even a grid of the wrong shape (later rows count it "
                       "only when what was read was an answer).")]
    if apart:
        lines += ["", (f"† generated apart from the environments on {' and '.join(apart)} "
                       "(`real_model.py --export-prompts`, `benchmarks/offline_generate.py`, `--import-replies`): "
                       "seconds of generation there, the row's share of a batch of rows by tokens generated; "
                       "prompts and scoring on the machine above.")]
    return "\n".join(lines)


TABLES = {"headline": headline, "coldstart": coldstart_table, "planning": planning_table, "grid": grid_table,
          "grid-full": grid_full_table, "serve": serve_table, "generation": generation_table,
          "games": games_table,
          "sparc-enumeration": _sparc("enumeration_table"), "sparc-generation": _sparc("generation_table"),
          "sparc-levels": _sparc("levels_table"), "real-model": real_model_table}
#: the files whose tables are regenerated, relative to the repository root
FILES = ("README.md", "docs/performance.md", "docs/grid.md", "docs/integrations.md", "docs/sparc.md",
         "docs/baselines.md", "docs/games.md")


def regenerate(text: str) -> str:
    for name, build in TABLES.items():
        pattern = re.compile(rf"(<!-- perf:{name}:start -->\n).*?(<!-- perf:{name}:end -->)", re.DOTALL)
        if pattern.search(text):
            table = build()
            text = pattern.sub(lambda m, t=table: m.group(1) + t + "\n" + m.group(2), text)
    return text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when a file differs from the JSON")
    args = ap.parse_args(argv)
    stale = []
    for name in FILES:
        path = ROOT / name
        old = path.read_text()
        new = regenerate(old)
        if new == old:
            continue
        stale.append(name)
        if not args.check:
            path.write_text(new)
    if args.check:
        for name in stale:
            print(f"{name}: performance tables are stale (run benchmarks/readme_tables.py)")
        return 1 if stale else 0
    print(f"regenerated: {', '.join(stale)}" if stale else "performance tables already up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
