"""Catalogue rows of the KUMO family (registration is data; nothing heavy is imported here)."""
from ...core.registry import EnvEntry

ENTRIES = [
    EnvEntry(
        name="KUMO",
        task="kumo_gym.envs.kumo.game:KumoTask",
        family="kumo",
        summary="Multi-turn diagnosis game: run tests whose outcomes rule truths out, then name the valid truth",
        modes=("interactive",),
        env_classes={"interactive": "kumo_gym.envs.kumo.game:KumoEnv"},
        paper="KUMO (Lin et al. 2025)",
    ),
]
