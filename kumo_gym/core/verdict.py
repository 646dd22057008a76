"""Verdict: the result of checking an answer or a move."""
from __future__ import annotations

from dataclasses import dataclass, field

STATUSES = ("solved", "wrong", "illegal_move", "incomplete", "parse_error", "truncated", "too_long", "hedge",
            "ended", "error")
#: statuses that mean the model's text could not be read as an answer (format failures)
UNREADABLE = ("parse_error", "truncated", "too_long", "hedge")

#: The longest answer (characters of the completion, and of a separate reasoning channel) any
#: environment reads. Longer ones are refused unread, in constant time, with the status
#: ``too_long`` (docs/security.md): no step of any environment scans megabytes of hostile text.
#: Environments take ``max_answer_chars=`` to change it.
MAX_ANSWER_CHARS = 1_000_000


def too_long(completion, reasoning=None, limit: int | None = None) -> Verdict | None:
    """The ``too_long`` verdict when ``completion`` (or the ``reasoning`` channel) is a string
    longer than ``limit`` characters (default :data:`MAX_ANSWER_CHARS`), else None. Constant
    time: only ``len`` of each string is read."""
    limit = MAX_ANSWER_CHARS if limit is None else limit
    for what, text in (("answer", completion), ("reasoning", reasoning)):
        if isinstance(text, str) and len(text) > limit:
            return Verdict("too_long", f"The {what} has {len(text):,} characters, more than the limit of {limit:,}; "
                           "it was not read.", details={"reason": "too_long", "chars": len(text), "limit": limit,
                                                        "part": what, "truncated": False})
    return None


@dataclass
class Verdict:
    """What a verifier says about an answer.

    ``status`` is one of :data:`STATUSES`: ``solved``, ``wrong`` (readable but breaks a rule),
    ``illegal_move``, ``incomplete``, ``parse_error``, ``truncated`` (cut off by a token limit),
    ``too_long`` (longer than the answer size limit, refused unread), ``hedge`` (names more than
    one option where one is asked for), ``ended`` (a step after the episode ended; pays 0) and ``error`` (the scorer itself failed: a
    bug or a bad instance, never the model's fault, never a silent zero); ``score`` is the fraction of constraints met (partial
    credit, in [0, 1], 1 when solved); ``reward`` is the binary reward (1.0 iff solved) unless a
    caller sets another; ``first_error`` the index of the first failing move or cell where the
    family defines one (1-based for moves, as the planning spec reports); ``message`` one human
    sentence; ``details`` any JSON-safe extras (reason codes, parsed answer, counts).
    """

    status: str
    message: str = ""
    score: float = 0.0
    reward: float | None = None
    first_error: int | None = None
    details: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.status not in STATUSES:
            raise ValueError(f"status {self.status!r} is not one of: {', '.join(STATUSES)}")
        if self.status == "solved":
            self.score = 1.0
        self.score = float(min(1.0, max(0.0, self.score)))
        if self.reward is None:
            self.reward = 1.0 if self.status == "solved" else 0.0

    @property
    def solved(self) -> bool:
        return self.status == "solved"

    @property
    def rules(self) -> list[str]:
        """The rule codes this verdict reports as broken, in order, without repeats.

        Verifiers list each broken rule as ``details["violations"] = [{"rule": code, ...}, ...]``
        (codes from the Task's ``rule_codes``); a verdict about one move may instead carry a
        single ``details["rule"]``.
        """
        out: list[str] = []
        for v in self.details.get("violations") or ():
            code = v.get("rule") if isinstance(v, dict) else None
            if isinstance(code, str) and code not in out:
                out.append(code)
        code = self.details.get("rule")
        if isinstance(code, str) and code not in out:
            out.append(code)
        return out

    @classmethod
    def success(cls, message: str = "The answer is correct.", **details) -> Verdict:
        return cls("solved", message, 1.0, details=details)

    @classmethod
    def failure(cls, status: str, message: str, score: float = 0.0, first_error: int | None = None,
                **details) -> Verdict:
        return cls(status, message, score, first_error=first_error, details=details)

    def to_dict(self) -> dict:
        """The verdict as plain data; ``details`` is deep-copied (as ``dataclasses.asdict`` would),
        without asdict's per-field recursion, since interactive envs build one on every step."""
        return {"status": self.status, "message": self.message, "score": self.score, "reward": self.reward,
                "first_error": self.first_error, "details": _deep_copy(self.details), "solved": self.solved}

    @classmethod
    def from_dict(cls, d: dict) -> Verdict:
        return cls(status=d["status"], message=d.get("message", ""), score=d.get("score", 0.0),
                   reward=d.get("reward"), first_error=d.get("first_error"),
                   details=d.get("details") or {})


_ATOMS = (str, int, float, bool, type(None))


def _deep_copy(value):
    """A deep copy of JSON-like data (dicts, lists, tuples of atoms); anything else via ``copy``."""
    if isinstance(value, _ATOMS):
        return value
    if type(value) is dict:
        return {k: _deep_copy(v) for k, v in value.items()}
    if type(value) in (list, tuple):
        return type(value)(_deep_copy(v) for v in value)
    import copy

    return copy.deepcopy(value)
