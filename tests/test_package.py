"""The package itself: what ``import vecnet`` loads, and its public names."""

import importlib
import subprocess
import sys

import vecnet as vn


def test_import_vecnet_loads_no_heavy_dependency():
    # every public name is imported when first used: the command line and a plain import
    # start without sympy, scipy, networkx or matplotlib
    code = ("import sys, vecnet, vecnet.cli; "
            "print(sorted(m for m in ('sympy', 'scipy', 'networkx', 'matplotlib') "
            "if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"


def test_public_names_resolve_and_the_draw_and_report_functions_stay_functions():
    for name in vn.__all__:
        assert getattr(vn, name) is not None, name
    # the modules of the same names, however late they are imported, do not replace them
    assert importlib.import_module("vecnet.draw").draw is vn.draw
    assert importlib.import_module("vecnet.report").report is vn.report
    assert callable(vn.draw) and callable(vn.report)
    assert {"Network", "Resistor", "planar", "spatial", "limits"} <= set(dir(vn))
