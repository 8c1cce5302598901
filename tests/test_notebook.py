"""What a notebook shows and hands on: the rich displays, Result as arrays and tables,
networkx and sympy.physics.control objects, and a progress bar."""

import networkx as nx
import numpy as np
import pytest
import sympy

import vecnet as vn
from test_reference_topology import e1_graph


def rc(sections=3):
    net = vn.Network("ladder")
    net.add(vn.VoltageSource("V", "g", "n0", V=1.0))
    for k in range(sections):
        net.add(vn.Resistor(f"R{k}", f"n{k}", f"n{k + 1}", R=1.0),
                vn.Capacitor(f"C{k}", "g", f"n{k + 1}", C=1.0))
    return net


def test_result_as_arrays_and_tables():
    res = rc().simulate((0, 1), t_eval=np.linspace(0, 1, 11))
    assert res.y.shape == (len(res.columns), 11)
    for name, row in zip(res.columns, res.y):
        assert np.array_equal(row, res[name])
    frame = res.to_pandas()
    assert list(frame.columns) == list(res.columns) and np.array_equal(frame.index, res.t)
    data = res.to_xarray()
    assert np.array_equal(data["C2.across"].values, res["C2.across"])
    html = res._repr_html_()
    assert "C0.across" in html and "<table>" in html


def test_vector_series_are_one_column_per_component():
    from vecnet.numerics.result import Result

    t = np.linspace(0, 1, 5)
    omega = np.column_stack([t, 2 * t, 3 * t])
    res = Result(t, {"b.omega": omega, "b.orientation": np.tile([1.0, 0, 0, 0], (5, 1))})
    assert res.columns == ("b.omega.x", "b.omega.y", "b.omega.z", "b.orientation.w",
                           "b.orientation.x", "b.orientation.y", "b.orientation.z")
    assert np.array_equal(res.to_pandas()["b.omega.z"], 3 * t)
    assert res.to_xarray()["b.omega"].dims == ("t", "b.omega.component")


def test_networkx_graph_has_the_incidence_of_the_topology():
    net = rc(4)
    graph = net.to_networkx()
    topo = net.topology()
    assert graph.number_of_edges() == len(topo.edges)
    # networkx's oriented incidence is -1 at the tail and +1 at the head, as [IN]
    edges = list(graph.edges(keys=True))
    nodes = list(topo.nodes)
    theirs = nx.incidence_matrix(graph, nodelist=nodes, edgelist=edges, oriented=True).toarray()
    ours = np.array(topo.incidence.to_sympy().tolist(), dtype=float)
    order = [list(topo.edges).index(key) for _, _, key in edges]
    assert np.array_equal(theirs, ours[:, order])


def test_topology_shows_its_tree_in_a_notebook():
    pytest.importorskip("graphviz")
    topo = e1_graph().topology(tree="auto")
    svg = topo._repr_svg_()
    if svg is None:
        pytest.skip("Graphviz dot is not installed")
    # one dashed edge per chord: e - (v - 1) of them in a connected graph
    assert svg.count('stroke-dasharray') >= len(topo.edges) - (len(topo.nodes) - 1)


def test_transfer_functions_as_sympy_control_objects():
    net = vn.Network("divider")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R1", "a", "b", R=3.0),
            vn.Resistor("R2", "b", "g", R=1.0), vn.Capacitor("C", "g", "b", C=0.5))
    H = net.state_space(outputs=["C.across"]).transfer_function(control=True)
    from sympy.physics.control import TransferFunctionMatrix

    assert isinstance(H, TransferFunctionMatrix)
    s = H.var
    # the divider's gain R2 / (R1 + R2) at s = 0, and the pole at -(R1 + R2) / (R1 R2 C)
    expr = H.args[0][0][0].to_expr()
    assert sympy.simplify(expr.subs(s, 0)) == sympy.Rational(1, 4)
    assert sympy.solve(sympy.denom(sympy.cancel(expr)), s) == [sympy.Rational(-8, 3)]


def test_progress_true_draws_a_bar(capsys):
    pytest.importorskip("tqdm")
    rc().simulate((0, 1), progress=True)
    assert "100%" in capsys.readouterr().err
