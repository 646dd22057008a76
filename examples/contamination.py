"""The KUMO contamination experiment (docs/specs/kumo.md §12; KUMO paper, "Can LLMs memorise the benchmark?").

Protocol:

1. Pick a domain ``D`` and split it into an in-distribution half ``IND`` and an
   out-of-distribution half ``OOD`` with ``kumo_gym.analysis.kumo.split_domain`` (disjoint
   truths). The halves are ``Domain`` objects, passed to the environment as they are
   (``domain=split.ind``); each stands in parameters, records and traces as its fingerprint.
2. Declare a domain ``H`` held out. The held-out guard is exercised: building training data from
   ``H`` raises ``ContaminationError``, and training refuses any instance of the evaluation sets.
3. SFT on golden (oracle) trajectories of ``IND`` at one difficulty (``--difficulty``).
4. Evaluate the base and the fine-tuned model on: the training instances themselves (``seen``,
   the contamination upper bound), fresh ``IND`` instances, ``OOD``, the held-out domain ``H``
   and the other difficulty. A contaminated model wins on ``seen``; real skill shows on the rest.

With the tiny local model on a CPU the whole run takes minutes and the numbers mean nothing (the
model is a few hundred thousand parameters); with ``--model Qwen/Qwen2.5-7B-Instruct`` and
``--n-train 100000`` it is the paper's experiment (use the LoRA/optimiser recipe of docs/specs/kumo.md §10 through
``--lr`` and an ``accelerate`` launch). Run: ``python examples/contamination.py --out runs/contamination``.
"""
from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

ENV = "kumo_gym/KUMO-v0"


def domain_sets(domain: str, out: Path) -> tuple[dict, dict, str]:
    """Env kwargs for IND and OOD: the two halves of the KUMO IND/OOD split of ``domain`` (also
    written to ``out`` as JSON, so that the run's records can be replayed and inspected later)."""
    from kumo_gym.analysis.kumo import split_domain
    from kumo_gym.envs.kumo.domain import load_domain

    split = split_domain(load_domain(domain))
    out.mkdir(parents=True, exist_ok=True)
    for name, half in (("ind", split.ind), ("ood", split.ood)):
        (out / f"{domain}-{name}.json").write_text(json.dumps(half.to_dict(), indent=1))
    return ({"domain": split.ind}, {"domain": split.ood},
            (f"IND/OOD: split_domain halves of {domain!r} by truth {split.units} "
            f"({len(split.ind.truths)} / {len(split.ood.truths)} truths, {len(split.cut_actions)} cut actions; "
            f"fingerprints {split.ind.fingerprint[:12]} / {split.ood.fingerprint[:12]})"))


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", default="tiny")
    ap.add_argument("--domain", default="car_faults", help="the domain D")
    ap.add_argument("--heldout", default="network_faults", help="the held-out domain H")
    ap.add_argument("--difficulty", default="easy", choices=("easy", "hard"))
    ap.add_argument("--n-train", type=int, default=8, help="golden trajectories for SFT")
    ap.add_argument("--n-eval", type=int, default=3, help="instances per evaluation set")
    ap.add_argument("--max-steps", type=int, default=8)
    ap.add_argument("--batch-size", type=int, default=2)
    ap.add_argument("--lr", type=float, default=5e-3)
    ap.add_argument("--max-tokens", type=int, default=24, help="tokens per model turn in evaluation")
    ap.add_argument("--out", default="runs/contamination")
    args = ap.parse_args(argv)

    from kumo_gym.analysis.results import summarize
    from kumo_gym.core.errors import ContaminationError
    from kumo_gym.core.tables import format_table
    from kumo_gym.training.backends import TransformersBackend
    from kumo_gym.training.evaluate import EvalSpec, Evaluator
    from kumo_gym.training.grpo import load_model_and_tokenizer
    from kumo_gym.training.sft import golden_records, train_sft
    from kumo_gym.wrappers.trace import read_traces

    t0 = time.time()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    other = "hard" if args.difficulty == "easy" else "easy"
    ind_kw, ood_kw, note = domain_sets(args.domain, out)
    guard = {"heldout_domains": [args.heldout]}
    train_spec = EvalSpec(ENV, {**ind_kw, **guard, "difficulty": args.difficulty})
    print(note)

    # -- the held-out guard -----------------------------------------------------------------
    try:
        golden_records([EvalSpec(ENV, {"domain": args.heldout, **guard, "difficulty": args.difficulty})], 1)
        raise SystemExit("the held-out guard did not refuse the held-out domain")
    except ContaminationError as e:
        print(f"held-out guard: refused {args.heldout!r} for training ({e})")

    # -- evaluation sets (validation split: disjoint from training by construction) ----------
    seen_rows = golden_records([train_spec], args.n_train)
    sets = {
        "fresh IND": (EvalSpec(ENV, {**ind_kw, "difficulty": args.difficulty}), "validation"),
        "OOD": (EvalSpec(ENV, {**ood_kw, "difficulty": args.difficulty}), "validation"),
        "held-out domain": (EvalSpec(ENV, {"domain": args.heldout, "difficulty": args.difficulty}), "validation"),
        # a half-domain has too few actions for Hard (16), so the other difficulty uses all of D
        f"whole domain, {other}": (EvalSpec(ENV, {"domain": args.domain, "difficulty": other}), "validation"),
    }
    eval_ids = set()
    from kumo_gym.training.data import generate_instances

    for spec, split in sets.values():
        eval_ids.update(i.instance_id for i in generate_instances(ENV, args.n_eval, split=split,
                                                                  env_kwargs=spec.generation_params()))

    # -- SFT on IND golden trajectories, refusing anything in the evaluation sets --------------
    trainer = train_sft([train_spec], model=args.model, rows=seen_rows, output_dir=str(out / "sft"),
                        max_steps=args.max_steps, batch_size=args.batch_size, learning_rate=args.lr, exclude_ids=eval_ids)
    tuned = str(out / "sft" / "model")

    # -- evaluation ---------------------------------------------------------------------------
    results = []
    base_path = load_model_and_tokenizer(args.model)[2]
    for label, path in (("base", base_path), ("sft", tuned)):
        backend = TransformersBackend(path, max_tokens=args.max_tokens, temperature=0.0, device="cpu")
        runs = [("seen (trained on)", train_spec, "train")] + [(k, s, sp) for k, (s, sp) in sets.items()]
        for name, spec, split in runs:
            run_dir = out / "eval" / label / name.replace(" ", "_").replace(",", "").replace("(", "").replace(")", "")
            ev = Evaluator(backend, run_dir, model_name=label, split=split, max_tokens=args.max_tokens,
                           temperature=0.0, progress=False)
            n = args.n_eval if split != "train" else min(args.n_eval, args.n_train)
            summary = summarize(read_traces(ev.run([spec], n)))
            row = summary["by_env"][0]
            results.append({"model": label, "set": name, "episodes": row["episodes"], "success": f"{row['success']:.3f}",
                            "parse_error": f"{row['parse_error']:.3f}", "steps": f"{row['steps'] or 0:.1f}",
                            "optimal_steps": f"{row['optimal_steps'] or 0:.1f}"})
    cols = ["model", "set", "episodes", "success", "parse_error", "steps", "optimal_steps"]
    table = format_table(results, cols)
    print("\n" + table)
    final_loss = next((h["loss"] for h in reversed(trainer.state.log_history) if "loss" in h), None)
    report = ["# KUMO contamination experiment", "", note + ".", "",
              (f"SFT of `{args.model}` on {len(seen_rows)} golden trajectories of `{args.domain}` ({args.difficulty}), "
              f"{trainer.state.global_step} steps, final loss {final_loss}. Held-out domain: `{args.heldout}` "
              "(the guard refused it for training)."), "", format_table(results, cols, markdown=True), "",
              f"Time: {time.time() - t0:.0f} s."]
    (out / "report.md").write_text("\n".join(report) + "\n")
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")
    print(f"\nwrote {out / 'report.md'} ({time.time() - t0:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
