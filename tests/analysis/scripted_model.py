"""A deterministic stand-in for an extraction model, served over real HTTP in the cassette tests.

It reads each request the way a careful model would and answers every stage of
docs/specs/reasoning_graphs.md §5 in the requested JSON shape: the indexing question, stage 4b (it returns
only what it adds, a short reply, and one invalid item), stage 4c (the tent cells it finds in
the text), stage 6 (keeps everything, normalises nothing), stage 8 (the same-sentence clues as
premises, a C_MISSING premise for Remaining claims). It is a ChatBackend, so it can stand
behind ``kumo_gym.training.backends.serve_openai``.
"""
import json
import re

from kumo_gym.core.backend import ChatResult


def stage_of(system: str) -> str:
    if "decide how it numbers" in system:
        return "indexing"
    if "audit claim extraction" in system:
        return "complete"
    if "extract every claim" in system:
        return "scratch"
    if "check extracted claims" in system:
        return "screen"
    return "rules"


def _sentences(user: str) -> dict[int, str]:
    return {int(m.group(1)): m.group(2) for m in re.finditer(r"^\[S(\d+)\] (.*)$", user, flags=re.MULTILINE)}


class ScriptedModel:
    model = "scripted-extractor"

    def __init__(self):
        self.calls: list[str] = []

    def chat(self, messages, *, max_tokens=None, temperature=None, n=1, **kwargs):
        system, user = messages[0]["content"], messages[-1]["content"]
        stage = stage_of(system)
        self.calls.append(stage)
        reply = getattr(self, stage)(user)
        text = reply if isinstance(reply, str) else "```json\n" + json.dumps(reply) + "\n```"
        return [ChatResult(text=text, finish_reason="stop", prompt_tokens=len(user) // 4,
                           completion_tokens=len(text) // 4) for _ in range(n)]

    def indexing(self, user):
        return "0-based"

    def complete(self, user):
        # a short reply: only the claim it adds (a tree's candidate cells), plus one invalid item
        # that validation must drop
        added = []
        for i, s in _sentences(user).items():
            m = re.search(r"^The tree at \((\d), (\d)\) needs a tent", s)
            if m:  # the candidates of a tree named with its need: the cell below and the cell right
                r, c = int(m.group(1)), int(m.group(2))
                added.append({"kind": "TreeCandidate", "payload": {"tree_r": r, "tree_c": c, "cell_r": [r + 1, r],
                                                                   "cell_c": [c, c + 1]},
                              "status": "stated", "scope": "MAIN", "source_sents": [i]})
        added.append({"kind": "Tent", "payload": {"r": 99, "c": 0}, "status": "stated", "scope": "MAIN",
                      "source_sents": [1]})
        return {"claims": added}

    def scratch(self, user):
        out = []
        for i, s in _sentences(user).items():
            for m in re.finditer(r"tent at \((\d), (\d)\)", s):
                if "cannot" not in s[max(0, m.start() - 12):m.start()] and not s.lower().startswith("suppose"):
                    out.append({"kind": "Tent", "payload": {"r": int(m.group(1)), "c": int(m.group(2))},
                                "status": "stated", "scope": "MAIN", "source_sents": [i]})
        return {"claims": out}

    def screen(self, user):
        listing = user.split("Claims:\n", 1)[1].splitlines()
        return {"decisions": [{"i": int(line.split(":", 1)[0]), "action": "keep"} for line in listing]}

    def rules(self, user):
        target = re.search(r"Target: (C\d+): (.*)", user)
        tid, claim = target.group(1), json.loads(target.group(2))
        earlier = [(cid, json.loads(body)) for cid, body in
                   re.findall(r"^(C\d+): (.*)$", user.split("Earlier claims:\n", 1)[1], flags=re.MULTILINE)]
        same = [(cid, c) for cid, c in earlier if c["source_sents"][0] == claim["source_sents"][0]
                and c["scope"] == claim["scope"]]
        if claim["kind"] == "Tent":
            ids = [cid for cid, c in same if c["kind"] in ("Tree", "Quota")]
            return {"rule": "R_ONLY_CAND", "inputs": ids, "output": tid} if ids else []
        if claim["kind"] == "NotTent":
            ids = [cid for cid, c in same if c["kind"] == "Tent"]
            return {"rule": "R_NO_TOUCH", "inputs": ids, "output": tid} if ids else []
        if claim["kind"] == "Remaining":
            ids = [cid for cid, c in same if c["kind"] in ("Tent", "Quota")]
            return {"rule": "R_COUNT_REMAINING", "inputs": ["C_MISSING", *ids], "output": tid}
        return []
