import os

from hypothesis import settings

# A bounded, deterministic profile for CI; `HYPOTHESIS_PROFILE=dev` explores more.
settings.register_profile("ci", max_examples=60, deadline=None, derandomize=True)
settings.register_profile("dev", max_examples=300, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
