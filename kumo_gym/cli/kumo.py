"""``kumo-gym kumo``: list and validate domains, draw procedural ones (docs/specs/kumo.md §4, §14)."""
from __future__ import annotations

import json
import sys


def register(subparsers) -> None:
    p = subparsers.add_parser("kumo", help="KUMO domains: list, validate, draw procedural ones")
    sub = p.add_subparsers(dest="kumo_command", required=True)
    d = sub.add_parser("domains", help="list the built-in domains and validate them (or the given files)")
    d.add_argument("paths", nargs="*", help="domain JSON files (ours or KUMO-style) to validate instead")
    d.set_defaults(func=_domains)
    n = sub.add_parser("new-domain", help="draw a procedural domain (no language model) and print its JSON")
    n.add_argument("--seed", type=int, required=True)
    n.add_argument("--keyspace", choices=("train", "heldout"), default="train")
    n.add_argument("--n-truths", type=int, default=50)
    n.add_argument("--n-actions", type=int, default=30)
    n.add_argument("--theme", default="ailment")
    n.add_argument("--out", help="write the JSON here instead of stdout")
    n.set_defaults(func=_new_domain)
    a = sub.add_parser("anonymize", help="rename a domain's truths, actions and string states to neutral tokens "
                                         "(KUMO's anonymous control) and print its JSON")
    a.add_argument("domain", help="a built-in name or a domain JSON file")
    a.add_argument("--seed", type=int, default=0)
    a.add_argument("--out", help="write the JSON here instead of stdout")
    a.set_defaults(func=_anonymize)


def _domains(args) -> int:
    from ..envs.kumo.domain import builtin_domain_names, domain_issues, errors

    names = args.paths or builtin_domain_names()
    bad = 0
    for name in names:
        domain, issues = domain_issues(name)
        n_float = sum(1 for o in domain.outcomes.values() if o.type == "float")
        print(f"{name}: {domain.name!r} [{domain.label}] {len(domain.truths)} truths, {len(domain.actions)} actions "
              f"({n_float} float), {len(issues)} issue(s)")
        for i in issues:
            print(f"    {i}")
        bad += bool(errors(issues))
    return 1 if bad else 0


def _new_domain(args) -> int:
    from ..envs.kumo.procedural import new_domain

    return _emit(new_domain(args.seed, keyspace=args.keyspace, n_truths=args.n_truths, n_actions=args.n_actions,
                            theme=args.theme), args.out)


def _anonymize(args) -> int:
    from ..envs.kumo.domain import load_domain
    from ..envs.kumo.procedural import anonymize

    return _emit(anonymize(load_domain(args.domain), args.seed), args.out)


def _emit(domain, out) -> int:
    text = json.dumps(domain.to_dict(), indent=1)
    if out:
        with open(out, "w", encoding="utf-8") as fh:
            fh.write(text + "\n")
        print(f"wrote {out}: {domain.name} ({domain.fingerprint[:12]})", file=sys.stderr)
    else:
        print(text)
    return 0
