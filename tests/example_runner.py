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
from vecnet.builders.mechanism import MechanismBuilder  # noqa: E402

#: systems checked per script: the first ones built (later ones are variations)
CHECKED = 4


def main(script: str) -> None:
    built: list = []
    for cls in (vn.Network, MechanismBuilder, vn.System):
        original = cls.__init__

        def init(self, *args, _original=original, **kwargs):
            _original(self, *args, **kwargs)
            built.append(self)

        cls.__init__ = init
    sys.argv = [script]
    runpy.run_path(script, run_name="__main__")
    # a mechanism's own network is part of it; a system's parts are checked with it
    inner = {id(m.network) for m in built if isinstance(m, MechanismBuilder)} | \
        {id(s.network) for s in built if isinstance(s, vn.System)}
    systems = [s for s in built if id(s) not in inner]
    for system in [s for s in systems if isinstance(s, vn.System)][:CHECKED] + \
            [s for s in systems if not isinstance(s, vn.System)][:CHECKED]:
        if isinstance(system, vn.System):
            try:  # a system made to read a sensor, never meant to run, is no model
                system.formulate()
            except vn.VecnetError as exc:
                print(f"round trip: {name(system)} skipped, it does not formulate: {exc}")
                continue
        try:
            check_round_trip(system)
        except vn.ModelFileError as exc:
            if "Python function" not in str(exc):
                raise
            print(f"round trip: {name(system)} refused: {exc}")
            continue
        print(f"round trip: {name(system)} same equations")


def name(system) -> str:
    if isinstance(system, vn.System):
        return f"system of {system.mechanism.name!r}"
    return repr(system.name)


if __name__ == "__main__":
    main(sys.argv[1])
