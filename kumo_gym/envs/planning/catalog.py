"""Catalogue rows of the planning family ("The Illusion of Thinking", planning spec §9)."""
from ...core.registry import EnvEntry

_PAPER = "The Illusion of Thinking (Shojaee et al., 2025)"
_MODES = ("answer", "interactive")
# the generic envs plus N, k, solvability and compositional depth in ``info`` (spec §9)
_ENVS = {"answer": "kumo_gym.envs.planning.base:PlanningAnswerEnv",
         "interactive": "kumo_gym.envs.planning.base:PlanningInteractiveEnv"}

ENTRIES = [
    EnvEntry(name="Hanoi", task="kumo_gym.envs.planning.hanoi:HanoiTask", family="planning",
             summary="Tower of Hanoi: move N disks from peg 0 to peg 2 (optimum 2^N - 1 moves)",
             modes=_MODES, env_classes=_ENVS, paper=_PAPER),
    EnvEntry(name="CheckerJumping", task="kumo_gym.envs.planning.checkers:CheckerJumpingTask", family="planning",
             summary="Checker Jumping: swap N red and N blue checkers by slides and jumps ((N+1)^2 - 1 moves)",
             modes=_MODES, env_classes=_ENVS, paper=_PAPER),
    EnvEntry(name="RiverCrossing", task="kumo_gym.envs.planning.river:RiverCrossingTask", family="planning",
             summary="River Crossing: N actor/agent pairs cross in a boat of capacity k without unsafe groups",
             modes=_MODES, env_classes=_ENVS, paper=_PAPER),
    EnvEntry(name="BlocksWorld", task="kumo_gym.envs.planning.blocks:BlocksWorldTask", family="planning",
             summary="Blocks World: restack N blocks into an interleaved goal tower (2N - 1 moves for even N)",
             modes=_MODES, env_classes=_ENVS, paper=_PAPER),
]
