"""Hypothesis profiles: ``default`` runs in ``make test`` within minutes; ``long`` (``make fuzz``,
``HYPOTHESIS_PROFILE=long``) draws many more examples."""
import os

from hypothesis import HealthCheck, settings

settings.register_profile("default", max_examples=12, deadline=None, derandomize=True,
                          suppress_health_check=list(HealthCheck))
settings.register_profile("long", max_examples=400, deadline=None, suppress_health_check=list(HealthCheck))
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
