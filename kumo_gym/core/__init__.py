"""Family-agnostic contracts: Task, Instance, Verdict, seeding, extraction, registry."""
from .errors import (
                     ConfigError,
                     ContaminationError,
                     KumoGymError,
                     ParseError,
                     UnsolvableInstanceError,
                     check_choice,
                     check_int,
)
from .instance import Instance, canonical_json
from .seeding import SPLITS, SplitGuard, check_split, derive_seed, item_rng, item_seed, shard_range
from .task import InteractiveTask, StepwiseTask, Task, Transition, scoring_error
from .verdict import STATUSES, Verdict

__all__ = [
    "ConfigError", "ContaminationError", "KumoGymError", "ParseError", "UnsolvableInstanceError",
    "check_choice", "check_int", "Instance", "canonical_json", "SPLITS", "SplitGuard", "check_split",
    "derive_seed", "item_rng", "item_seed", "shard_range", "InteractiveTask", "StepwiseTask", "Task", "Transition", "scoring_error",
    "STATUSES", "Verdict",
]
