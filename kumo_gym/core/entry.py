"""One row of the environment table (:mod:`kumo_gym.core.catalog`): a record, importing nothing."""
from __future__ import annotations

from dataclasses import dataclass, field

NAMESPACE = "kumo_gym"


@dataclass(frozen=True)
class EnvEntry:
    """One registered environment.

    ``task`` is ``"module:Class"`` of its Task; ``modes`` the interaction modes it supports
    (the first is the default); ``env_classes`` optional ``{mode: "module:Class"}`` overrides of
    the generic AnswerEnv/InteractiveEnv; ``summary`` one line for ``kumo-gym list``; ``version``
    the ``-vN`` of the id, raised whenever what the id generates changes (docs/versioning.md).
    """

    name: str
    task: str
    family: str
    summary: str
    modes: tuple[str, ...] = ("answer",)
    env_classes: dict = field(default_factory=dict)
    paper: str = ""
    version: int = 0

    @property
    def id(self) -> str:
        return f"{NAMESPACE}/{self.name}-v{self.version}"
