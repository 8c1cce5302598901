"""The ``vecnet`` command: matrices, equations, diagrams, simulations and reports of a model.

Usage::

    vecnet matrices MODEL [--tree TREE] [--format text|latex] [--output FILE]
    vecnet equations MODEL [--tree TREE] [--format text|latex] [--output FILE]
                           [--outputs NAMES] [--transfer-function] [--matrix-form]
    vecnet draw MODEL [--tree TREE] [--format svg|png|pdf|dot|tikz] [--output FILE]
    vecnet simulate MODEL [--format csv|png|svg|pdf] [--output FILE] [--t-end T] [--points N]
    vecnet report MODEL [--tree TREE] [--matrix-form] [--output FILE]
    vecnet op MODEL [--output FILE]
    vecnet ac MODEL [--start F] [--stop F] [--points N] [--outputs NAMES]
                    [--format csv|png|svg] [--output FILE]
    vecnet bode MODEL [--start F] [--stop F] [--points N] [--outputs NAMES]
                      [--format csv|png|svg|pdf] [--output FILE]
    vecnet step MODEL [--t-end T] [--points N] [--outputs NAMES]
                      [--format csv|png|svg|pdf] [--output FILE]
    vecnet sweep MODEL --param NAME=VALUES [--param ...] [--analysis ANALYSIS]
                       [--t-end T] [--frequencies F,...] [--outputs NAMES]
                       [--workers N] [--scheduler ADDRESS] [--output FILE]
    vecnet --version

Every command takes ``--param NAME=VALUE`` (a declared parameter's value; a model file's
``"parameters"``, a netlist's ``.param``) and ``--limit NAME=VALUE`` (a bound on the work).

``vecnet COMMAND --help`` lists a command's own options. MODEL is a JSON model
file or a SPICE netlist (``.cir``, ``.sp``, ``.net``, ``.spice``). ``op`` gives
every variable of a linear network at DC (a table; CSV when the output file
ends in ``.csv``); ``ac`` its frequency response in dB and degrees. A netlist's
``.ac`` card gives the frequency grid and its sources' ``AC`` amplitudes the
excitation, its ``.tran`` card the span and spacing of ``simulate``; options
given on the command line win. ``equations`` lists ``y = C x + D u`` after
``x' = A x + B u`` for the declared outputs (a model file's ``"outputs"`` or
``--outputs``) and with ``--transfer-function`` each ``H(s)``, output over input;
for a mechanism, ``M`` and ``Q`` when they fit on a page (``--matrix-form`` lists them
however large, ``--no-matrix-form`` the recursive form alone; ``report`` too).
``bode`` and ``step`` give the frequency response over the frequencies of the
model's poles and the response to a unit step of each input from rest (a table,
or a plot when the output file ends in ``.png``, ``.svg`` or ``.pdf``); a
mechanism is linearized about its static equilibrium first. Errors in the model
print one line with its location and exit with status 2; no partial output file
is left behind.
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import gc
import io
import math
import os
import signal
import sys
import warnings
from collections.abc import Sequence

from .errors import ModelError, StudyInterrupted, VecnetError

NETLIST_SUFFIXES = (".cir", ".sp", ".net", ".spice")


def _load(path: str, parameters: dict[str, float] | None = None):
    from .builders.model import Model
    from .io import load_model, load_netlist

    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path}: no such file" if not os.path.exists(path) else
                                f"{path}: not a file")
    if path.lower().endswith(NETLIST_SUFFIXES):
        net = load_netlist(path, parameters=parameters)
        tran, initial = net.analyses.tran, net.analyses.initial_states(net)
        if tran is None:
            return Model("network", net, initial=initial)
        return Model("network", net, t_span=(0.0, tran.stop), points=_tran_points(tran),
                     initial=initial)
    return load_model(path, parameters=parameters)


def _tran_points(tran) -> int:
    """Output points of a ``.tran`` card: one every ``tstep``, within ``max_points``."""
    from .core.bounds import get_limits

    limit = get_limits().max_points
    steps = tran.stop / tran.step   # inf when the ratio leaves double precision
    return 2 if steps <= 1 else int(min(math.floor(steps + 1e-9) + 1, limit)) \
        if steps < limit else limit


def _tree(model, spec: str | None):
    if spec is None:
        return model.tree or ("normal" if model.kind == "network" else model.coordinates)
    if spec in ("normal", "auto", "joint", "absolute"):
        return spec
    return [name.strip() for name in spec.split(",") if name.strip()]


def _topology(model, tree):
    if model.kind == "network":
        return model.system.equations(tree=tree).topology
    coordinates = tree if isinstance(tree, str) else "joint"
    return model.system.formulate(coordinates=coordinates,
                                  tree=None if isinstance(tree, str) else tree).topology


def _emit(text: str | bytes, output: str | None) -> str | None:
    from .core.files import write_atomically

    if output is None:
        sys.stdout.write(text if isinstance(text, str) else text.decode())
        return None
    write_atomically(output, text)
    return output


def _matrices(model, args) -> str | None:
    from .output.teaching import latex, text

    topo = _topology(model, _tree(model, args.tree))
    show = latex if args.format == "latex" else text
    parts = [("[IN] incidence", topo.incidence),
             (f"[A] reduced incidence (datum {', '.join(map(str, topo.datum))})",
              topo.reduced_incidence),
             ("[CU] fundamental cutsets", topo.cutset), ("[CI] fundamental circuits", topo.circuit)]
    body = f"tree: {', '.join(topo.branches)}\ncotree: {', '.join(topo.chords)}\n\n" + "\n\n".join(
        f"{title}\n{show(m)}" for title, m in parts) + "\n"
    return _emit(body, args.output)


def _equations(model, args) -> str | None:
    from .output.report import shown_state_space
    from .output.teaching import latex, text

    show = latex if args.format == "latex" else text
    tree = _tree(model, args.tree)
    if model.kind == "network":
        _refuse_matrix_form(model, args)
        eqs = model.system.equations(tree=tree)
        # in the same symbols as the cutset, circuit and terminal equations above it (with
        # the parameters' values when the network is large: a summary, see vecnet.output.teaching);
        # with the declared outputs, y = C x + D u follows x' = A x + B u
        outputs = _declared_outputs(model, args)
        ss = shown_state_space(model.system, tree, eqs.order, outputs=outputs,
                               parameters=model.element_values or None)
        body = show(eqs) + "\n\n" + show(ss) + "\n"
        if args.transfer_function:
            body += "\n" + _transfer_functions(model, ss, args) + "\n"
    else:
        if args.transfer_function:
            raise ModelError(f"--transfer-function lists H(s) of networks; {model.name!r} is a "
                             "mechanism (vecnet bode and vecnet step linearize it about its "
                             "equilibrium)")
        coordinates = tree if isinstance(tree, str) else "joint"
        body = show(model.system.formulate(**model.formulation(
            coordinates, None if isinstance(tree, str) else tree)),
            matrix_form=args.matrix_form) + "\n"
    return _emit(body, args.output)


def _refuse_matrix_form(model, args) -> None:
    """``--matrix-form`` is about a mechanism's ``M`` and ``Q``: refused for a network."""
    if args.matrix_form is not None and model.kind == "network":
        raise ModelError(f"--matrix-form lists a mechanism's M and Q; {model.name!r} is a "
                         "network (its state equations are always listed)")


def _declared_outputs(model, args) -> list[str]:
    """``--outputs`` (names separated by commas), else the model file's outputs."""
    if getattr(args, "outputs", None):
        return [name.strip() for name in args.outputs.split(",") if name.strip()]
    return list(model.outputs)


def _transfer_functions(model, ss, args) -> str:
    """H(s) from each input to each declared output, in the parameters' symbols and with
    their values (:func:`vecnet.output.teaching.transfer_functions`)."""
    from .formulation.lumped import StateSpace
    from .output.teaching import SUMMARY_STATES, transfer_functions

    if not ss.outputs:
        raise ModelError("--transfer-function needs outputs: declare them in the model file "
                         "(\"outputs\": [\"C1.across\"]) or give --outputs C1.across")
    if not ss.inputs:
        raise ModelError(f"network {model.name!r} has no sources: it has no transfer function")
    if not isinstance(ss, StateSpace):
        raise ModelError(f"--transfer-function lists H(s) of networks of up to {SUMMARY_STATES} "
                         f"states; this one has {len(ss.states):,} (vecnet bode plots its "
                         "frequency response)")
    if not ss.is_linear or ss.z:
        raise ModelError(f"network {model.name!r} is nonlinear: it has no transfer function "
                         "(linearize it in Python: StateSpace.linearize)")
    return transfer_functions(ss, "latex" if args.format == "latex" else "text",
                              values=model.values)


def _draw(model, args) -> str | None:
    from .output.draw import draw, to_dot

    tree = list(_topology(model, _tree(model, args.tree)).branches)
    fmt = args.format or (os.path.splitext(args.output)[1].lstrip(".") if args.output else "dot")
    if fmt == "dot":
        return _emit(to_dot(model.system, tree=tree), args.output)
    if fmt in ("tikz", "tex"):     # LaTeX text: standard output, or a .tex file
        from .output.draw import to_tikz

        return _emit(to_tikz(model.system, tree=tree), args.output)
    if args.output is None:
        raise VecnetError("--output FILE is needed for a rendered diagram (or use --format dot)")
    draw(model.system, tree=tree, path=args.output, format=fmt)
    return args.output


class _Progress:
    """A progress bar on standard error when it is a terminal; a message that follows an
    unfinished bar starts on a line of its own."""

    def __init__(self, label: str, t_end: float) -> None:
        self.label, self.t_end, self.shown = label, t_end, -1

    def __call__(self, time: float) -> None:
        t_end = self.t_end
        percent = int(100 * min(max(time / t_end, 0.0), 1.0)) if t_end else 100
        if percent != self.shown:
            self.shown = percent
            bar = "#" * (percent // 4)
            sys.stderr.write(f"\r{self.label} [{bar:<25}] {percent:3d}%")
            if percent == 100:
                sys.stderr.write("\n")
            sys.stderr.flush()

    def end_line(self) -> None:
        if 0 <= self.shown < 100:
            sys.stderr.write("\n")
            self.shown = 100


def _progress(args, label: str, t_end: float) -> _Progress | None:
    """The progress bar of this run (kept on ``args`` so errors can end its line)."""
    args.progress = _Progress(label, t_end) if sys.stderr.isatty() else None
    return args.progress


def _simulate(model, args) -> str | None:
    t_span = model.t_span or (0.0, 1.0)
    if args.t_end is not None:
        if not math.isfinite(args.t_end) or args.t_end <= float(t_span[0]):
            raise ModelError(f"--t-end {args.t_end:g} must be a finite time after the start "
                             f"t = {float(t_span[0]):g}")
        t_span = (t_span[0], args.t_end)
    res = model.simulate(t_span=t_span, points=_points(args.points),
                         progress=_progress(args, "simulating", t_span[1]))
    names = list(model.outputs or list(res.names)[:6])
    fmt = args.format or (os.path.splitext(args.output)[1].lstrip(".") if args.output else "csv")
    if fmt == "csv":
        return _emit(_csv(res, names), args.output)
    if fmt in ("png", "svg", "pdf"):
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        if args.output is None:
            raise VecnetError(f"--output FILE is needed for a {fmt} plot")
        ax = res.plot(names)
        ax.set_title(model.name)
        buffer = io.BytesIO()
        ax.figure.savefig(buffer, format=fmt, bbox_inches="tight")
        plt.close(ax.figure)
        return _emit(buffer.getvalue(), args.output)
    raise VecnetError(f"unknown simulation format {fmt!r}: use csv, png, svg or pdf")


def _points(points: int | None) -> int | None:
    """``--points``, within the bound ``max_points`` in force (``--limit`` may raise it)."""
    from .core.bounds import get_limits

    limit = get_limits().max_points
    if points is not None and points > limit:
        raise ModelError(f"--points {points} is more than max_points = {limit}; raise it with "
                         f"--limit max_points={points}")
    return points


def _network(model, command: str):
    if model.kind != "network":
        raise ModelError(f"vecnet {command} works on networks; {model.name!r} is a {model.kind} "
                         "(use simulate, or equilibrium() and linearize() in Python)")
    return model.system


def _network_inputs(model) -> dict:
    """Each input's value from the model file: its expression under ``inputs`` or the
    declared parameter its source is set to, with the declared values put in."""
    from .formulation.lumped import network_inputs

    values = model.values
    inputs = {}
    for source in network_inputs(model.system):
        if source.name in model.inputs:
            inputs[source.name] = model.inputs[source.name].xreplace(values)
        elif source.symbol in values:
            inputs[source.name] = values[source.symbol]
    return inputs


def _operating_point(model, args) -> str | None:
    from .numerics.analysis import operating_point

    net = _network(model, "op")
    op = operating_point(net, inputs=_network_inputs(model), parameters=model.element_values or None)
    rows = list(op.variables.items())
    if args.output and args.output.lower().endswith(".csv"):
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["variable", "value"])
        writer.writerows([_csv_text(name), f"{value:.10g}"] for name, value in rows)
        return _emit(buffer.getvalue(), args.output)
    width = max((len(name) for name, _ in rows), default=8)
    body = f"DC operating point of {model.name}\n" + "".join(
        f"{name:<{width}}  {value: .10g}\n" for name, value in rows)
    return _emit(body, args.output)


def _ac_grid(net, args):
    """The frequencies: the netlist's ``.ac`` card, the options over it, or the defaults
    (10 points a decade from 1 Hz to 1 MHz)."""
    from .io.spice import AcSweep

    card = net.analyses.ac if net.analyses is not None else None
    sweep = card or AcSweep("dec", 10, 1.0, 1e6)
    start = sweep.start if args.start is None else args.start
    stop = sweep.stop if args.stop is None else args.stop
    if not start < stop and not (start == stop and args.start is None and args.stop is None):
        raise ModelError(f"the frequencies run from --start {start:g} Hz to --stop {stop:g} Hz: "
                         "the start must be below the stop")
    if sweep.variation != "lin" and start <= 0:
        raise ModelError(f"a logarithmic grid starts above 0 Hz; got --start {start:g}")
    points = sweep.points if args.points is None else args.points
    return AcSweep(sweep.variation, points, start, stop).frequencies()


def _ac_outputs(model, net, args) -> list[str]:
    from .formulation.lumped import network_inputs

    if args.outputs:
        return [name.strip() for name in args.outputs.split(",") if name.strip()]
    if model.outputs:
        return list(model.outputs)
    sources = {source.name.rpartition(".")[0] for source in network_inputs(net)}
    # the across variable of every element but the sources: node voltages, velocities...
    return [f"{edge}.across" for el in net.elements for edge in (e.name for e in el.edges)
            if edge not in sources][:6]


def _frequency_response(model, args) -> str | None:
    from .numerics.analysis import frequency_response

    net = _network(model, "ac")
    ss = net.sparse_state_space(parameters=model.element_values or None)
    frequencies = _ac_grid(net, args)
    phasors = net.analyses.ac_sources if net.analyses is not None else {}
    res = frequency_response(ss, frequencies, inputs=phasors or None,
                             outputs=_ac_outputs(model, net, args))
    return _frequency_output(res, model, args, "frequency-response", ("png", "svg"))


def _frequency_output(res, model, args, what: str, plots: tuple[str, ...]) -> str | None:
    """A frequency response as CSV (magnitude in dB and phase in degrees of each output and
    input) or as a Bode plot in one of the ``plots`` formats."""
    keys = [(out, src) for out in res.outputs for src in res.inputs]
    label = (lambda o, i: o) if len(res.inputs) == 1 else (lambda o, i: f"{o}/{i}")
    fmt = args.format or (os.path.splitext(args.output)[1].lstrip(".") if args.output else "csv")
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["f", *(_csv_text(f"{label(*k)} {unit}") for k in keys
                                for unit in ("dB", "deg"))])
        columns = [c for k in keys for c in (res.magnitude_db(k), res.phase_deg(k))]
        writer.writerows([f"{v:.10g}" for v in row] for row in zip(res.frequencies, *columns))
        return _emit(buffer.getvalue(), args.output)
    if fmt in plots:
        if args.output is None:
            raise VecnetError(f"--output FILE is needed for a {fmt} plot")
        from .output.response_plots import bode_file

        return _emit(bode_file(res, keys, model.name, fmt), args.output)
    raise VecnetError(f"unknown {what} format {fmt!r}: use csv, {', '.join(plots[:-1])} or "
                      f"{plots[-1]}")


def _linear(model, args, command: str):
    """The model's :class:`~vecnet.formulation.linear_model.LinearModel`
    (:func:`vecnet.linear_model`): a network's with its declared outputs (``--outputs``,
    the file's, or the across variables of its elements), a mechanism's linearized about
    its static equilibrium."""
    from .numerics.analysis import linear_model

    if model.kind == "network":
        outputs = _ac_outputs(model, model.system, args)
    elif args.outputs:
        raise ModelError(f"vecnet {command}: --outputs names network variables; a mechanism's "
                         "outputs are its coordinates")
    else:
        outputs = None
    try:
        return linear_model(model, outputs)
    except ModelError as exc:
        raise ModelError(f"vecnet {command}: {exc}") from None


def _bode_command(model, args) -> str | None:
    import numpy as np

    from .numerics.analysis import frequency_response, pole_frequencies

    linear = _linear(model, args, "bode")
    if (args.start is None) != (args.stop is None):
        raise ModelError("give both --start and --stop, or neither (the grid then spans the "
                         "model's poles)")
    if args.start is not None:
        if not args.start < args.stop:
            raise ModelError(f"the frequencies run from --start {args.start:g} Hz to --stop "
                             f"{args.stop:g} Hz: the start must be below the stop")
        decades = np.log10(args.stop / args.start)
        count = max(2, int(np.ceil(decades * (args.points or 50))) + 1)
        frequencies = np.logspace(np.log10(args.start), np.log10(args.stop), count)
    else:
        frequencies = pole_frequencies(linear, args.points or 50)
    res = frequency_response(linear, frequencies)
    return _frequency_output(res, model, args, "bode", ("png", "svg", "pdf"))


def _step_command(model, args) -> str | None:
    import numpy as np

    from .numerics.analysis import DENSE_POLES, step_response, step_span
    from .output.response_plots import step_file

    linear = _linear(model, args, "step")
    if len(linear.states) > DENSE_POLES:
        raise ModelError(f"vecnet step works on models of up to {DENSE_POLES:,} states "
                         "(dense matrix exponentials); simulate a larger one with a step input")
    points = _points(args.points) or model.points or 501
    fallback = float(model.t_span[1]) - float(model.t_span[0]) if model.t_span else 1.0
    span = float(args.t_end) if args.t_end is not None else step_span(linear, fallback)
    times = np.linspace(0.0, span, max(int(points), 2))
    y = step_response(linear, times)
    outputs, inputs = list(linear.outputs), list(linear.inputs)
    keys = [(i, j) for i in range(len(outputs)) for j in range(len(inputs))]
    single = len(inputs) == 1
    names = [outputs[i] if single else f"{outputs[i]}/{inputs[j]}" for i, j in keys]
    fmt = args.format or (os.path.splitext(args.output)[1].lstrip(".") if args.output else "csv")
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["t", *map(_csv_text, names)])
        columns = [y[:, i, j] for i, j in keys]
        writer.writerows([f"{v:.10g}" for v in row] for row in zip(times, *columns))
        return _emit(buffer.getvalue(), args.output)
    if fmt in ("png", "svg", "pdf"):
        if args.output is None:
            raise VecnetError(f"--output FILE is needed for a {fmt} plot")
        return _emit(step_file(times, y, outputs, inputs, model.name, fmt), args.output)
    raise VecnetError(f"unknown step format {fmt!r}: use csv, png, svg or pdf")


def _csv_text(cell: str) -> str:
    """A header cell that a spreadsheet cannot read as a formula."""
    return "'" + cell if cell[:1] in ("=", "+", "-", "@", "\t", "\r") else cell


def _columns(res, names: Sequence[str]):
    """``(header, values)`` of each variable; a vector or quaternion (of a spatial
    mechanism) gives a column a component, named as :meth:`Result.plot` labels them
    (``"b.omega.x"``, ``"b.orientation.w"``)."""
    for name in names:
        import numpy as np

        values = np.asarray(res[name])
        if values.ndim == 1:
            yield name, values
            continue
        parts = {3: "xyz", 4: "wxyz"}.get(values.shape[1], range(values.shape[1]))
        for column, part in zip(values.T, parts):
            yield f"{name}.{part}", column


def _csv(res, names: Sequence[str]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    headers, columns = zip(*_columns(res, names)) if names else ((), ())
    writer.writerow(["t", *map(_csv_text, headers)])
    writer.writerows([f"{v:.10g}" for v in row] for row in zip(res.t, *columns))
    return buffer.getvalue()


def _output(args) -> str:
    """The output file: ``--output``, or a report's default ``report.html``."""
    return args.output if args.output is not None else "report.html"


def _report(model, args) -> str | None:
    from .output.report import report

    _refuse_matrix_form(model, args)
    output = _output(args)
    report(model, output, tree=args.tree if args.tree in ("normal", "auto", "joint", "absolute")
           else (_tree(model, args.tree) if args.tree else None),
           matrix_form=args.matrix_form)
    return output


def _fixed(args) -> dict[str, float]:
    """The ``--param`` values that replace declared ones (all but ``sweep``'s, which vary)."""
    names = [name for name, _ in args.param]
    repeated = sorted({name for name in names if names.count(name) > 1})
    if repeated:
        raise ModelError(f"--param {repeated[0]} is given {names.count(repeated[0])} times: "
                         "give each parameter once (its values in one --param)")
    if args.command == "sweep":
        if not args.param:
            raise ModelError("sweep needs at least one --param NAME=START:STOP:COUNT or "
                             "NAME=V1,V2,...")
        return {}
    several = [name for name, values in args.param if len(values) != 1]
    if several:
        raise ModelError(f"--param {several[0]} has several values: give one (several are "
                         "for vecnet sweep)")
    return {name: values[0] for name, values in args.param}


#: seconds to wait for a Dask scheduler to answer before the sweep is refused in words
SCHEDULER_TIMEOUT = 10


def _sweep(model, args) -> str | None:
    from .io.spice import parse_value
    from .studies.sweep import sweep

    options: dict = {}
    if args.analysis == "simulate":
        options["t_end"] = args.t_end or (model.t_span[1] if model.t_span else 1.0)
    elif args.t_end is not None:
        raise ModelError(f"--t-end is for --analysis simulate, not {args.analysis}")
    if args.analysis == "frequency_response":
        if not args.frequencies:
            raise ModelError("--analysis frequency_response needs --frequencies F1,F2,... "
                             "in hertz (e.g. 1,10,100 or 1k)")
        options["frequencies"] = [parse_value(f.strip()) for f in args.frequencies.split(",")]
    elif args.frequencies:
        raise ModelError("--frequencies is for --analysis frequency_response")
    if args.outputs:
        if args.analysis == "eigenvalues":
            raise ModelError("--outputs: the eigenvalues analysis has no outputs")
        options["outputs"] = [o.strip() for o in args.outputs.split(",") if o.strip()]
    samples = dict(args.param)
    if args.scheduler:
        try:
            from distributed import Client
        except ImportError:
            raise ModelError("--scheduler needs Dask: pip install vecnet[distributed]") from None
        try:
            client = Client(args.scheduler, timeout=SCHEDULER_TIMEOUT)
        except OSError as exc:   # a connection that fails or times out: the scheduler's
            raise ModelError(f"--scheduler {args.scheduler}: cannot reach the Dask scheduler "
                             f"there ({_one_line(exc)})") from None
        options["client"] = running = client
    else:
        options["workers"], running = args.workers, contextlib.nullcontext()
    try:
        with running:
            frame = sweep(model, samples, args.analysis, progress=_counts_cases(), **options)
    except StudyInterrupted as stop:   # the finished rows are written, then the interrupt
        _write_frame(stop.frame, args.output)
        stop.args = (f"{stop.args[0]}; their rows are in {args.output}" if args.output else
                     stop.args[0],)
        raise
    return _write_frame(frame, args.output)


def _counts_cases() -> bool:
    """Whether a sweep draws its progress bar (cases done, rate, time left): on a terminal,
    with tqdm installed."""
    if not sys.stderr.isatty():
        return False
    try:
        import tqdm  # noqa: F401
    except ImportError:
        return False
    return True


def _write_frame(frame, output: str | None) -> str | None:
    if output and output.lower().endswith(".parquet"):
        buffer = io.BytesIO()
        try:
            frame.to_parquet(buffer)
        except ImportError:
            raise ModelError("Parquet output needs pyarrow: pip install pyarrow, or write "
                             "--output study.csv") from None
        return _emit(buffer.getvalue(), output)
    return _emit(frame.to_csv(index=False), output)


def _param(text: str) -> tuple[str, list[float]]:
    """``NAME=START:STOP:COUNT`` (evenly spaced, ends included) or ``NAME=V1,V2,...``, values
    as in netlists (``1k``, ``2u``)."""
    from .io.spice import parse_value

    name, sep, spec = text.partition("=")
    try:
        if not sep or not name.strip():
            raise ValueError
        if ":" in spec:
            start, stop, count = spec.split(":")
            if not 1 <= int(count) <= 100_000:
                raise ValueError
            import numpy as np

            values = np.linspace(parse_value(start), parse_value(stop), int(count)).tolist()
        else:
            values = [parse_value(v.strip()) for v in spec.split(",")]
    except (ValueError, VecnetError):
        raise argparse.ArgumentTypeError(
            f"--param takes NAME=VALUE, or for sweep NAME=START:STOP:COUNT (COUNT up to "
            f"100000) or NAME=V1,V2,... (e.g. R1=4.7k, R1=1k:10k:20, C1=1u,2u); got "
            f"{text!r}") from None
    return name.strip(), values


def _export(model, args) -> str:
    """``vecnet export MODEL --fmu FILE``: the model as an FMU (:func:`vecnet.export_fmu`)."""
    from .output.fmu import export_fmu

    outputs = [name.strip() for name in args.outputs.split(",")] if args.outputs else None
    done = export_fmu(model, args.output, kind=args.kind, fmi_version=args.fmi_version,
                      outputs=outputs)
    if not done.compiled:
        sys.stderr.write(f"vecnet: warning: {done.reason}: the FMU holds its C sources "
                         "only, for the importer to compile\n")
    return args.output


#: the commands that take a system file
SYSTEM_COMMANDS = ("simulate", "sweep")

COMMANDS = {"matrices": _matrices, "equations": _equations, "draw": _draw,
            "simulate": _simulate, "report": _report, "op": _operating_point,
            "ac": _frequency_response, "bode": _bode_command, "step": _step_command,
            "sweep": _sweep, "export": _export}


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line with exit status 2 like every other error."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"vecnet: error: {message}{self._closest(message)} "
                     f"(see {self.prog} --help)\n")

    def _closest(self, message: str) -> str:
        """``"; did you mean ...?"`` for a misspelt command, choice or option, or nothing."""
        import difflib
        import re

        choice = re.search(r"invalid choice: '([^']*)' \(choose from (.*)\)", message)
        if choice:
            word, choices = choice.group(1), re.findall(r"'([^']*)'", choice.group(2))
        else:
            unknown = re.match(r"unrecognized arguments: (-\S+)", message)
            if not unknown:
                return ""
            word, choices = unknown.group(1).split("=")[0], self._option_strings()
        close = difflib.get_close_matches(word, choices, n=1)
        return f"; did you mean {close[0]!r}?" if close else ""

    def _option_strings(self) -> list[str]:
        """The options of this parser and of its commands."""
        found = set(self.option_strings())
        for action in self._actions:
            if isinstance(action.choices, dict):   # the commands' parsers
                for sub in action.choices.values():
                    found.update(sub.option_strings())
        return sorted(found)

    def option_strings(self) -> list[str]:
        """This parser's own options (``--output``, ``-o``, ...)."""
        return sorted(self._option_string_actions)


def _positive(kind: type, what: str):
    """An argparse type: a finite number above zero (a whole one for ``int``)."""
    def convert(text: str):
        try:
            value = kind(text)
        except ValueError:
            value = None
        if value is None or not math.isfinite(value) or value <= 0:
            raise argparse.ArgumentTypeError(f"{what} must be a finite "
                                             f"{'whole ' if kind is int else ''}number above "
                                             f"0; got {text!r}")
        return value
    return convert


def _version() -> str:
    from . import __version__
    from .core.version import installed_version

    return installed_version() or __version__   # a source tree that is not installed


class _Version(argparse.Action):
    """``--version``: the installed version, looked up only when asked (the package
    metadata costs every other command its import)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS,
                 help="show the version and exit"):
        super().__init__(option_strings, dest, nargs=0, default=default, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"vecnet {_version()}")
        parser.exit()


def _limit(text: str) -> tuple[str, float]:
    name, sep, value = text.partition("=")
    try:
        number = float(value)
    except ValueError:
        number = None
    if not sep or number is None:
        raise argparse.ArgumentTypeError(f"--limit takes NAME=NUMBER; got {text!r}")
    return name.strip(), number


_SUMMARY = {
    "matrices": "incidence, cutset and circuit matrices of the model's graph",
    "equations": "cutset, circuit and terminal equations, and the state or motion equations "
                 "(with the outputs, y = C x + D u; with --transfer-function, H(s))",
    "draw": "a Graphviz diagram of the graph and its tree",
    "simulate": "a simulation in time (CSV table or plot)",
    "report": "an HTML report of every step from the graph to the equations",
    "op": "the DC operating point of a linear network: every variable",
    "ac": "the frequency response of a linear network: magnitude (dB) and phase (degrees)",
    "bode": "a Bode plot from each input to each output, over the poles' frequencies (a "
            "mechanism linearized about its equilibrium)",
    "step": "the response to a unit step of each input, from rest (a mechanism linearized "
            "about its equilibrium)",
    "sweep": "a parameter study of a network, a mechanism or a system: one row per "
             "parameter set (CSV or Parquet)",
    "export": "the model as an FMU (FMI 2.0 or 3.0, Model Exchange or Co-Simulation) of C "
              "that vecnet writes, built by the system's C compiler",
}


#: where each command writes without --output
_OUTPUT_DEFAULT = {
    "matrices": "standard output", "equations": "standard output",
    "draw": "Graphviz dot text (or with --format tikz LaTeX) on standard output; a "
            "rendered format needs a file",
    "simulate": "CSV on standard output; a plot needs a file",
    "report": "report.html in the current folder",
    "op": "standard output", "ac": "CSV on standard output; a plot needs a file",
    "bode": "CSV on standard output; a plot needs a file",
    "step": "CSV on standard output; a plot needs a file",
    "sweep": "CSV on standard output",
}


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="vecnet", description="Equations of physical systems from "
                "linear graphs: matrices, equations, transfer functions, diagrams, "
                "simulations, operating points, frequency and step responses and reports of "
                "a model file.")
    p.add_argument("--version", action=_Version)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("model", help="JSON model file or SPICE netlist")
    common.add_argument("--limit", type=_limit, action="append", default=[],
                        metavar="NAME=NUMBER", help="raise or lower a bound on the work (see "
                        "vecnet.Limits), e.g. --limit file_work=1e9; may be repeated")
    common.add_argument("--param", type=_param, action="append", default=[],
                        metavar="NAME=VALUE", help="give a declared parameter (a model "
                        "file's \"parameters\", a netlist's .param) another value, e.g. "
                        "--param R1=4.7k; for sweep, the values of a swept parameter: "
                        "START:STOP:COUNT or V1,V2,... (every combination is a case); "
                        "may be repeated")
    commands = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser,
                                required=True)
    sub = {name: commands.add_parser(name, parents=[common], help=_SUMMARY[name],
                                     description=_SUMMARY[name])
           for name in COMMANDS}
    export = sub["export"]
    export.add_argument("--fmu", dest="output", metavar="FILE", required=True,
                        help="the FMU file to write, in an existing folder")
    export.add_argument("--kind", choices=["model-exchange", "co-simulation"],
                        default="model-exchange", help="default model-exchange")
    export.add_argument("--fmi-version", choices=["2.0", "3.0"], default="2.0",
                        help="default 2.0")
    export.add_argument("--outputs", help="output names separated by commas (default: the "
                        "model's outputs)")
    for name, default in _OUTPUT_DEFAULT.items():
        sub[name].add_argument("--output", "-o", metavar="FILE",
                               help=f"output file, in an existing folder (default: {default})")
    tree = "normal, auto, joint, absolute, or branch names separated by commas"
    for name in ("matrices", "equations", "draw", "report"):
        sub[name].add_argument("--tree", help=tree)
    for name in ("matrices", "equations"):
        sub[name].add_argument("--format", choices=["text", "latex"], help="default text")
    sub["draw"].add_argument("--format", choices=["svg", "png", "pdf", "dot", "tikz"],
                             help="default: from the output's suffix (.tex: tikz), else dot; "
                             "tikz is a LaTeX document with a TikZ picture of the same layout "
                             "(pdflatex compiles it)")
    sub["simulate"].add_argument("--format", choices=["csv", "png", "svg", "pdf"],
                                 help="default: from the output's suffix, else csv")
    sub["simulate"].add_argument("--t-end", type=float, help="simulate up to this time "
                                 "(default: the model's, a netlist's .tran, or 1 s)")
    sub["simulate"].add_argument("--points", type=_positive(int, "--points"),
                                 help="output points (default: the model's, one per .tran "
                                 "step, or 501)")
    ac = sub["ac"]
    ac.add_argument("--start", type=_positive(float, "--start"),
                    help="lowest frequency in Hz (default: the .ac card's, or 1)")
    ac.add_argument("--stop", type=_positive(float, "--stop"),
                    help="highest frequency in Hz (default: the .ac card's, or 1e6)")
    ac.add_argument("--points", type=_positive(int, "--points"),
                    help="points per decade (per octave, or in all, as the .ac card says; "
                    "default: the card's, or 10)")
    ac.add_argument("--outputs", help="variables separated by commas, e.g. C1.across "
                    "(default: the model's outputs, or the across variables of its elements)")
    ac.add_argument("--format", choices=["csv", "png", "svg"],
                    help="default: from the output's suffix, else csv")
    sub["equations"].add_argument("--transfer-function", action="store_true",
                                  help="also list H(s) from each input to each output "
                                  "(networks; the outputs are the model's or --outputs)")
    for name in ("equations", "report"):
        sub[name].add_argument("--matrix-form", action=argparse.BooleanOptionalAction,
                               help="mechanisms: list M and Q in full however many speeds "
                               "there are (--no-matrix-form: the recursive form alone; "
                               "default: M and Q when they fit on a page)")
    for name in ("equations", "bode", "step"):
        sub[name].add_argument("--outputs", metavar="NAMES",
                               help="network variables separated by commas, "
                               "e.g. C1.across (default: the model's outputs" +
                               (")" if name == "equations" else
                                ", or the across variables of its elements)"))
    bode = sub["bode"]
    bode.add_argument("--start", type=_positive(float, "--start"),
                      help="lowest frequency in Hz (default: a decade below the slowest pole)")
    bode.add_argument("--stop", type=_positive(float, "--stop"),
                      help="highest frequency in Hz (default: a decade above the fastest pole)")
    bode.add_argument("--points", type=_positive(int, "--points"),
                      help="points per decade (default 50)")
    step = sub["step"]
    step.add_argument("--t-end", type=_positive(float, "--t-end"),
                      help="respond up to this time (default: six time constants of the "
                      "slowest pole, the model's span, or 1 s)")
    step.add_argument("--points", type=_positive(int, "--points"),
                      help="output points (default: the model's, or 501)")
    for name in ("bode", "step"):
        sub[name].add_argument("--format", choices=["csv", "png", "svg", "pdf"],
                               help="default: from the output's suffix, else csv")
    study = sub["sweep"]
    study.add_argument("--analysis", default="simulate",
                       choices=["simulate", "eigenvalues", "frequency_response", "equilibrium"],
                       help="what each case computes: simulate (final value, peak of each "
                       "output), eigenvalues (of the linear model; a mechanism's about its "
                       "equilibrium, with natural frequencies omega<k> and damping ratios "
                       "zeta<k>), frequency_response (gain in dB and phase in degrees at "
                       "--frequencies), equilibrium (each output at rest, a network's DC "
                       "operating point); default simulate")
    study.add_argument("--t-end", type=_positive(float, "--t-end"),
                       help="simulate up to this time (default: the model's, or 1 s)")
    study.add_argument("--frequencies", metavar="F1,F2,...",
                       help="frequencies in hertz of frequency_response, e.g. 1,10,100 or 1k")
    study.add_argument("--outputs", metavar="NAMES",
                       help="outputs separated by commas, e.g. C1.across or pin.angle "
                       "(default: the model's outputs, else its states or coordinates)")
    study.add_argument("--workers", type=_positive(int, "--workers"), default=1,
                       help="local processes (default 1)")
    study.add_argument("--scheduler", metavar="ADDRESS",
                       help="run on this Dask scheduler, e.g. tcp://10.0.0.1:8786")
    words = ("a page in the browser where a graph is drawn, its tree picked and every "
             "matrix and equation follows (a local server until Ctrl-C)")
    studio = commands.add_parser("studio", help=words, description=words)
    studio.add_argument("model", nargs="?", help="JSON model file to open (default: an "
                        "empty network)")
    studio.add_argument("--no-browser", action="store_true",
                        help="print the page's address only (so does BROWSER=true)")
    return p


def _studio(args) -> int:
    """``vecnet studio``: serve the page until Ctrl-C, its address on standard output."""
    import webbrowser

    from .io.json_document import read_document
    from .web.server import start

    try:
        document = read_document(args.model) if args.model else None
        studio = start(document, background=False)
    except VecnetError as exc:
        sys.stderr.write(f"vecnet: error: {args.model}: {_one_line(exc)}\n")
        return 2
    print(studio.url, flush=True)
    if not args.no_browser:
        webbrowser.open(studio.url)
    try:
        studio.serve()
    except KeyboardInterrupt:
        sys.stderr.write("vecnet: studio stopped\n")
    finally:
        studio.stop()
    return 0


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    sys.stderr.write(f"vecnet: warning: {' '.join(str(message).split())}\n")


def _one_line(exc: BaseException) -> str:
    text = str(getattr(exc, "detail", "") or exc) or type(exc).__name__
    return " ".join(text.split())


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status (0 done, 2 error, 130 interrupted).

    Every failure is reported as one line on standard error; no partial output file is
    left behind.
    """
    try:
        args = parser().parse_args(argv)
    except SystemExit as stop:  # --help, or a usage error already reported in one line
        return int(stop.code or 0)
    if args.command == "studio":
        return _studio(args)
    from .core.bounds import interruptible, limits, untrusted  # numpy: not for --help
    from .core.files import check_output

    where = args.model
    try:
        with interruptible(), untrusted(), limits(**dict(args.limit)), \
                warnings.catch_warnings():
            warnings.showwarning = _show_warning
            if args.output is not None or args.command == "report":
                check_output(_output(args), sources=[args.model])
            model = _load(args.model, _fixed(args))
            if _FREEZE:
                gc.freeze()
            if model.kind == "system" and args.command not in SYSTEM_COMMANDS:
                raise ModelError(f"vecnet {args.command} works on networks and mechanisms; "
                                 f"{model.name!r} is a system (a mechanism, a network and "
                                 f"blocks): use {' or '.join(SYSTEM_COMMANDS)}")
            try:
                written = COMMANDS[args.command](model, args)
            except OSError as exc:
                if isinstance(exc, BrokenPipeError) or not args.output:
                    raise
                raise OSError(f"{args.output}: cannot write it: "
                              f"{exc.strerror or _one_line(exc)}") from None
            finally:
                if getattr(args, "progress", None):
                    args.progress.end_line()  # what follows starts on its own line
        if written:
            print(os.path.abspath(written))
    except KeyboardInterrupt as stop:
        sys.stderr.write(f"vecnet: interrupted{': ' + str(stop) if str(stop) else ''}\n")
        return 130
    except VecnetError as exc:
        location = getattr(exc, "location", "")
        sys.stderr.write(f"vecnet: error: {where}{':' + location if location else ''}: "
                         f"{_one_line(exc)}\n")
        return 2
    except OSError as exc:
        if isinstance(exc, BrokenPipeError):  # the reader of standard output went away
            # no flush error at exit either (the Python documentation's recipe)
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            return 2
        reason = f"{exc.filename}: {exc.strerror}" if exc.filename and exc.strerror else \
            _one_line(exc)
        sys.stderr.write(f"vecnet: error: {reason}\n")
        return 2
    except Exception as exc:  # a defect in vecnet: still one line, and the exit status says so
        sys.stderr.write(f"vecnet: error: {where}: internal error, please report it: "
                         f"{type(exc).__name__}: {_one_line(exc)}\n")
        return 2
    return 0


_FREEZE = False  # set by run(): a process that ends with the command


def run() -> int:
    """The console command: :func:`main`, in a process that ends when it returns.

    A Ctrl-C while it starts says ``vecnet: interrupted`` (status 130) as one later does,
    and one after the command is done is ignored, so that none prints a traceback.
    Objects alive once the model is loaded (the imported modules' objects, mostly) are
    frozen out of the garbage collector: they outlive the command, and walking them in
    every full collection, the one at exit included, costs a small command about 0.3 s.
    """
    global _FREEZE
    _FREEZE = True
    try:
        status = main()
    except KeyboardInterrupt:   # before main's own handling began: parsing, first imports
        sys.stderr.write("vecnet: interrupted\n")
        return 130
    # the command is done: a Ctrl-C while the process ends changes nothing, and says nothing
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    gc.freeze()
    return status


if __name__ == "__main__":
    sys.exit(run())
