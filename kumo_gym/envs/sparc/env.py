"""The SPaRC environments: the generic ones, plus the contamination guard of ``records=``.

``gym.make("kumo_gym/SPaRC-v0", records=FILE, split="train")`` would otherwise train on whatever
the file holds: here every record of the file is checked when the environment is made, and a
file holding official test puzzles (recognised by content, docs/specs/sparc.md §13) is refused at once.
"""
from __future__ import annotations

from ...core.deprecation import renamed
from ...core.errors import ContaminationError
from ..answer import AnswerEnv
from ..interactive import InteractiveEnv
from .official import is_official
from .puzzle import SparcPuzzle


def refuse_official_records(env) -> None:
    """Raise ContaminationError when a training env draws from a file of official test records."""
    path = env.params.get("records")
    if env.split != "train" or not path:
        return
    from .task import _records_of

    official = [r.get("id") for r in _records_of(str(path)) if is_official(SparcPuzzle.from_record(r))]
    if official:
        raise ContaminationError(f"records file {path!r} holds {len(official)} official SPaRC test puzzle(s) "
                                 f"(e.g. {official[0]}); they are evaluation-only: use split='test'")


class PathPuzzleAnswerEnv(AnswerEnv):
    __doc__ = AnswerEnv.__doc__

    def __init__(self, task, env_id: str, **kwargs):
        super().__init__(task, env_id, **kwargs)
        refuse_official_records(self)


class PathPuzzleInteractiveEnv(InteractiveEnv):
    __doc__ = InteractiveEnv.__doc__

    def __init__(self, task, env_id: str, **kwargs):
        super().__init__(task, env_id, **kwargs)
        refuse_official_records(self)


#: the old names: ``SparcInteractiveEnv`` differed only in case from ``SPaRCInteractiveEnv``, the documented
#: class of ``gym.make("kumo_gym/SPaRC-v0", mode="interactive")`` (a subclass of this one)
__getattr__ = renamed(__name__, {"SparcAnswerEnv": "PathPuzzleAnswerEnv",
                                 "SparcInteractiveEnv": "PathPuzzleInteractiveEnv"})
