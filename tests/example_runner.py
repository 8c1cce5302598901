"""Run an example script as ``python example.py`` would, then save every network and
mechanism it built (the first few of each script), load them back and check that the
equations are the same (:mod:`roundtrip`). Prints one line per system."""

from __future__ import annotations

import runpy
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import vecnet as vn  # noqa: E402
from roundtrip import check_round_trip  # noqa: E402
from vecnet.multibody import MechanismBuilder  # noqa: E402

#: systems checked per script: the first ones built (later ones are variations)
CHECKED = 4


def main(script: str) -> None:
    built: list = []
    for cls in (vn.Network, MechanismBuilder):
        original = cls.__init__

        def init(self, *args, _original=original, **kwargs):
            _original(self, *args, **kwargs)
            built.append(self)

        cls.__init__ = init
    sys.argv = [script]
    runpy.run_path(script, run_name="__main__")
    inner = {id(m.network) for m in built if isinstance(m, MechanismBuilder)}
    systems = [s for s in built if id(s) not in inner]
    for system in systems[:CHECKED]:
        try:
            check_round_trip(system)
        except vn.ModelFileError as exc:
            if "Python function" not in str(exc):
                raise
            print(f"round trip: {system.name!r} refused: {exc}")
            continue
        print(f"round trip: {system.name!r} same equations")


if __name__ == "__main__":
    main(sys.argv[1])
