"""Made hostile inputs for ``hostile_corpus.py``, written into a folder when the corpus
runs: large ones that stay under the 10 MB size limit but ask for a great deal of work
(many elements, cards, bodies, outputs, parameters or points; too big to keep in the
tree), and small ones at the ends of double precision or with names that look alike."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path


def _network(name: str, elements: list[dict], outputs: list[str] | None = None,
             parameters: dict | None = None) -> dict:
    doc = {"vecnet": "1", "kind": "network", "name": name, "elements": elements,
           "simulation": {"t_span": [0, 1e-3], "points": 11}}
    if outputs is not None:
        doc["outputs"] = outputs
    if parameters is not None:
        doc["parameters"] = parameters
    return doc


def parallel_network(count: int) -> dict:
    """A source feeding ``count`` resistor-capacitor pairs in parallel."""
    elements = [{"type": "VoltageSource", "name": "Vs", "nodes": ["g", "a"],
                 "parameters": {"V": 1.0}}]
    for k in range(count):
        elements.append({"type": "Resistor", "name": f"R{k}", "nodes": ["a", f"n{k}"],
                         "parameters": {"R": 1.0 + k}})
        elements.append({"type": "Capacitor", "name": f"C{k}", "nodes": [f"n{k}", "g"],
                         "parameters": {"C": 1e-6}})
    return _network(f"parallel {count}", elements)


def resistor_network(count: int) -> dict:
    """A source and ``count`` resistors in a chain (small text, many elements)."""
    elements = [{"type": "VoltageSource", "name": "V", "nodes": ["g", "a0"],
                 "parameters": {"V": 1.0}}]
    elements += [{"type": "Resistor", "name": f"R{k}", "nodes": [f"a{k}", f"a{k + 1}"],
                  "parameters": {"R": 1.0}} for k in range(count)]
    elements.append({"type": "Resistor", "name": "Rg", "nodes": [f"a{count}", "g"],
                     "parameters": {"R": 1.0}})
    return _network(f"chain {count}", elements)


def many_outputs(count: int) -> dict:
    doc = resistor_network(3)
    doc["outputs"] = [f"R{k % 3}.through" for k in range(count)]
    return doc


def many_parameters(count: int) -> dict:
    doc = resistor_network(3)
    doc["parameters"] = {f"p{k}": float(k) for k in range(count)}
    return doc


def parameter_chain(count: int) -> dict:
    doc = resistor_network(3)
    params = {"p0": 1.0}
    params.update({f"p{k}": f"p{k - 1} + 1" for k in range(1, count)})
    doc["parameters"] = params
    doc["elements"][1]["parameters"]["R"] = f"p{count - 1}"
    return doc


def _mechanism(name: str, dimensions: int, bodies: list, joints: list, **more) -> dict:
    doc = {"vecnet": "1", "kind": "mechanism", "name": name, "bodies": bodies,
           "joints": joints, "coordinates": "joint",
           "simulation": {"t_span": [0, 0.1], "points": 11}}
    if dimensions == 3:
        doc["dimensions"] = 3
        doc["gravity"] = [0, 0, -9.81]
        doc["ground"] = {"points": {"O": [0, 0, 0]}}
    else:
        doc["gravity"] = [0, -9.81]
        doc["ground"] = {"points": {"O": [0, 0]}}
    doc.update(more)
    return doc


def chain(count: int, dimensions: int, mass: float = 1.0, rotation=None) -> dict:
    """A hanging chain of ``count`` links joined by revolutes (spatial: about x)."""
    bodies, joints = [], []
    for k in range(count):
        if dimensions == 3:
            body = {"name": f"b{k}", "mass": mass, "inertia": [0.01, 0.01, 0.001],
                    "position": [0, 0, -0.5 - k], "points": {"top": [0, 0, 0.5],
                                                            "bottom": [0, 0, -0.5]}}
            if rotation is not None:
                body["orientation"] = rotation
        else:
            body = {"name": f"b{k}", "mass": mass, "inertia": 0.01,
                    "position": [0, -0.5 - k], "points": {"top": [0, 0.5],
                                                          "bottom": [0, -0.5]}}
        bodies.append(body)
        parent = "ground.O" if k == 0 else f"b{k - 1}.bottom"
        joint = {"type": "revolute", "name": f"J{k}", "between": [parent, f"b{k}.top"]}
        if dimensions == 3:
            joint["axis"] = [1, 0, 0]
        joints.append(joint)
    return _mechanism(f"chain {count}", dimensions, bodies, joints)


def netlist(cards: list[str], analysis: str = ".tran 1u 1m") -> str:
    return "\n".join(["large netlist", *cards, analysis, ".end", ""])


def netlist_cards(count: int) -> str:
    """``count`` resistor cards in a chain."""
    cards = ["V1 n0 0 1"] + [f"R{k} n{k} n{k + 1} 1" for k in range(count)] + \
        [f"Rg n{count} 0 1"]
    return netlist(cards, ".op")


def coupled_inductors(count: int) -> str:
    cards = ["V1 a 0 SIN(0 1 1k)"]
    cards += [f"L{k} a n{k} 1m" for k in range(count)]
    cards += [f"R{k} n{k} 0 1" for k in range(count)]
    cards += [f"K{k} L{k} L{k + 1} 0.5" for k in range(count - 1)]
    return netlist(cards)


def ac_points(count: int) -> str:
    return netlist(["V1 in 0 AC 1", "R1 in out 1k", "C1 out 0 1u"], f".ac lin {count} 1 1meg")


def opamp_chain(count: int) -> str:
    cards = ["V1 n0 0 SIN(0 1 1k)"]
    for k in range(count):
        cards += [f"R{k}a n{k} m{k} 1k", f"R{k}b m{k} n{k + 1} 1k",
                  f"E{k} n{k + 1} 0 0 m{k} 1e5"]
    return netlist(cards)


def param_chain_netlist(count: int) -> str:
    cards = [".param p0=1"] + [f".param p{k}={{p{k - 1}+1}}" for k in range(1, count)]
    cards += ["V1 a 0 1", f"R1 a 0 {{p{count - 1}}}"]
    return netlist(cards, ".op")


#: file name -> how to make it; each stays under the 10 MB limit on model files
LARGE: dict[str, Callable[[], str | dict]] = {
    "spatial_chain_100.json": lambda: chain(100, 3),
    "spatial_chain_1000.json": lambda: chain(1000, 3),
    "planar_chain_10000.json": lambda: chain(10_000, 2),
    "spatial_zero_mass.json": lambda: chain(3, 3, mass=0.0),
    "spatial_near_singular_rotation.json":
        lambda: chain(3, 3, rotation=[[1, 0, 0], [0, 1, 1e-9], [0, 1e-9, 1]]),
    "network_parallel_2000.json": lambda: parallel_network(1000),
    "network_100000.json": lambda: resistor_network(100_000),
    "network_outputs_100000.json": lambda: many_outputs(100_000),
    "network_parameters_100000.json": lambda: many_parameters(100_000),
    "network_parameter_chain.json": lambda: parameter_chain(5_000),
    "netlist_390000_cards.cir": lambda: netlist_cards(390_000),
    "netlist_coupled_500.cir": lambda: coupled_inductors(500),
    "netlist_ac_99999.cir": lambda: ac_points(99_999),
    "netlist_opamps_100.cir": lambda: opamp_chain(100),
    "netlist_param_chain.cir": lambda: param_chain_netlist(5_000),
}


RC = "rc\nV1 1 0 {source}\nR1 1 2 1k\nC1 2 0 1u\n{card}\n.end\n"


def dangling() -> dict:
    """A network whose only element dangles: no loop, no state."""
    return _network("dangling", [{"type": "Resistor", "name": "R1", "nodes": ["a", "b"],
                                  "parameters": {"R": 1.0}}])


def look_alike() -> dict:
    """Two resistors named P1, one with a Cyrillic capital Er."""
    doc = resistor_network(2)
    doc["elements"][1]["name"], doc["elements"][2]["name"] = "P1", "\u0420" + "1"
    return doc


#: small files at the ends of double precision, and names that look alike
EXTREME: dict[str, Callable[[], str | dict]] = {
    "netlist_tran_1e-300_1e300.cir": lambda: RC.format(source="1", card=".tran 1e-300 1e300"),
    "netlist_ac_1e308_per_decade.cir":
        lambda: RC.format(source="AC 1", card=".ac dec 1e308 1e-300 1e300"),
    "netlist_ac_1e-300_1e300.cir": lambda: RC.format(source="AC 1", card=".ac dec 10 1e-300 1e300"),
    "netlist_sin_1e308_hz.cir": lambda: RC.format(source="SIN(0 1 1e308)", card=".tran 1u 1m"),
    "network_dangling.json": dangling,
    "network_look_alike_names.json": look_alike,
}


def write_large(folder: Path) -> list[Path]:
    """Write every file of :data:`LARGE` and :data:`EXTREME` into ``folder``; returns their
    paths."""
    Path(folder).mkdir(parents=True, exist_ok=True)
    out = []
    for name, make in {**LARGE, **EXTREME}.items():
        content = make()
        text = content if isinstance(content, str) else json.dumps(content)
        path = Path(folder, name)
        path.write_text(text)
        out.append(path)
    return out
