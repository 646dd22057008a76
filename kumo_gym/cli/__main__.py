"""``python -m kumo_gym.cli`` (and ``accelerate launch -m kumo_gym.cli``): the ``kumo-gym`` command."""
import sys

from . import main

sys.exit(main())
