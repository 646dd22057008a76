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
    "SPLITS", "STATUSES", "ConfigError", "ContaminationError", "Instance", "InteractiveTask", "KumoGymError",
    "ParseError", "SplitGuard", "StepwiseTask", "Task", "Transition", "UnsolvableInstanceError", "Verdict",
    "canonical_json", "check_choice", "check_int", "check_split", "derive_seed", "item_rng", "item_seed",
    "scoring_error", "shard_range",
]
