"""Parameter studies against the RC circuit's closed forms, on one process and on Dask."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest

import vecnet as vn
import vecnet.formulation.lumped as lumped

pandas = pytest.importorskip("pandas")

C = 1e-3
T = 1e-3
RESISTANCES = [0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0]
TIGHT = {"rtol": 1e-11, "atol": 1e-13}


def rc_network() -> vn.Network:
    """A unit step (a constant source from rest) through R1 into C1."""
    net = vn.Network("rc")
    net.add(vn.VoltageSource("V1", "g", "a", V=1.0), vn.Resistor("R1", "a", "b", R=1.0),
            vn.Capacitor("C1", "g", "b", C=C))
    return net


def charged(R: float) -> float:
    return 1.0 - math.exp(-T / (R * C))


def rc_sweep(resistances, **execution):
    return vn.sweep(rc_network(), {"R1": resistances}, "simulate", t_end=T,
                    outputs=["C1.across"], **TIGHT, **execution)


def check_rc(frame, resistances) -> None:
    assert list(frame["R1"]) == list(resistances)
    for R, value, error in zip(frame["R1"], frame["C1.across.final"], frame["error"]):
        if R > 0:
            assert error is None
            assert value == pytest.approx(charged(R), rel=0, abs=1e-8)
    assert (frame["time"] >= 0).all()


@pytest.fixture(scope="module")
def client():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as dask_client:
        yield dask_client


def test_rc_sweep_in_process_matches_closed_form():
    check_rc(rc_sweep(RESISTANCES), RESISTANCES)


def test_rc_sweep_on_dask_matches_closed_form(client):
    check_rc(rc_sweep(RESISTANCES, client=client, batch_size=3), RESISTANCES)


@pytest.mark.parametrize("on_dask", [False, True])
def test_negative_resistance_fails_alone_with_the_elements_message(on_dask, request):
    resistances = [*RESISTANCES[:3], -1.0, *RESISTANCES[4:]]
    execution = {"client": request.getfixturevalue("client")} if on_dask else {}
    frame = rc_sweep(resistances, **execution)
    failed = frame[frame["error"].notna()]
    assert list(failed["R1"]) == [-1.0]
    with pytest.raises(vn.ModelError) as refused:
        vn.Resistor("R1", "a", "b", R=-1.0)
    assert failed["error"].iloc[0] == str(refused.value)
    check_rc(frame, resistances)


def test_local_processes_give_the_same_rows():
    check_rc(rc_sweep(RESISTANCES[:4], workers=2), RESISTANCES[:4])


def test_eigenvalue_and_frequency_response_of_rc():
    frame = vn.sweep(rc_network(), {"R1": [0.5, 2.0]}, "eigenvalues")
    assert np.allclose(frame["eig0.real"], [-1 / (0.5 * C), -1 / (2.0 * C)])
    f = 100.0
    frame = vn.sweep(rc_network(), {"R1": [0.5, 2.0]}, "frequency_response", frequencies=[f],
                     outputs=["C1.across"])
    gain = 1 / np.sqrt(1 + (2 * np.pi * f * np.array([0.5, 2.0]) * C) ** 2)
    assert np.allclose(frame["C1.across/V1.across@100Hz.dB"], 20 * np.log10(gain))


def test_source_values_and_grids_combine():
    frame = vn.sweep(rc_network(), {"R1": [1.0, 2.0], "V1": [1.0, 3.0]}, "simulate", t_end=T,
                     outputs=["C1.across"], **TIGHT)
    assert len(frame) == 4
    expected = [V * charged(R) for R in (1.0, 2.0) for V in (1.0, 3.0)]
    assert np.allclose(frame["C1.across.final"], expected, rtol=0, atol=1e-8)


def test_the_network_is_formulated_once_per_study(monkeypatch):
    calls = []
    formulate = lumped.state_space

    def counted(*args, **kwargs):
        calls.append(1)
        return formulate(*args, **kwargs)

    monkeypatch.setattr(lumped, "state_space", counted)
    monkeypatch.setattr(vn, "state_space", counted)   # net.state_space() forwards to it
    frame = rc_sweep(RESISTANCES)
    assert len(frame) == len(RESISTANCES) and frame["error"].isna().all()
    assert len(calls) == 1


def test_unknown_parameter_is_refused_with_the_known_names():
    with pytest.raises(vn.UnknownNameError, match="R1"):
        vn.sweep(rc_network(), {"R9": [1.0]}, "eigenvalues")


def test_a_killed_worker_loses_no_case(tmp_path):
    distributed = pytest.importorskip("distributed")
    marker = str(tmp_path / "killed")

    def doubled(model, values):
        # the first case to arrive takes its worker process down, once
        if not os.path.exists(marker):
            Path(marker).write_text("x")
            os._exit(1)
        return {"double": 2 * values["R1"]}

    with distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                  dashboard_address=":0") as cluster, \
            distributed.Client(cluster) as client:
        frame = vn.sweep(rc_network(), {"R1": RESISTANCES}, doubled, client=client,
                         batch_size=2)
    assert os.path.exists(marker)
    assert list(frame["R1"]) == RESISTANCES
    assert frame["error"].isna().all()
    assert np.allclose(frame["double"], 2 * np.array(RESISTANCES))


def test_samples_are_reproducible_and_recorded():
    first = vn.samples.normal({"R1": 1.0, "C1": 1e-3}, 0.1, 50, seed=7)
    again = vn.samples.normal({"R1": 1.0, "C1": 1e-3}, 0.1, 50, seed=7)
    other = vn.samples.normal({"R1": 1.0, "C1": 1e-3}, 0.1, 50, seed=8)
    assert first.equals(again) and not first.equals(other)
    assert vn.samples.uniform({"R1": (1, 2)}, 5, seed=3).equals(
        vn.samples.uniform({"R1": (1, 2)}, 5, seed=3))
    frame = vn.sweep(rc_network(), first[["R1"]].assign(R1=first["R1"].abs()), "eigenvalues")
    assert len(frame) == 50


def test_sweep_keeps_the_seed_of_its_samples():
    cases = vn.samples.uniform({"R1": (0.5, 2.0)}, 4, seed=11)
    frame = vn.sweep(rc_network(), cases, "eigenvalues")
    assert frame.attrs["seed"] == 11 and frame.attrs["method"] == "uniform"
    assert np.allclose(frame["eig0.real"], -1 / (cases["R1"] * C))


def test_normal_samples_have_the_asked_spread():
    draws = vn.samples.normal({"R1": 100.0}, 0.05, 20_000, seed=1)["R1"]
    assert abs(draws.mean() - 100.0) < 4 * 5.0 / math.sqrt(20_000)
    assert draws.std() == pytest.approx(5.0, rel=0.03)


def test_latin_hypercube_columns_are_stratified():
    n = 16
    frame = vn.samples.latin_hypercube({"R1": (1.0, 3.0), "C1": (-1.0, 0.0)}, n, seed=5)
    for name, (low, high) in {"R1": (1.0, 3.0), "C1": (-1.0, 0.0)}.items():
        slices = np.floor((frame[name] - low) / (high - low) * n).astype(int)
        assert sorted(slices) == list(range(n))
    assert frame.equals(vn.samples.latin_hypercube({"R1": (1.0, 3.0), "C1": (-1.0, 0.0)}, n,
                                                   seed=5))


def test_command_line_sweep_of_a_model_file(tmp_path):
    import json

    from vecnet.cli import main

    model = {"vecnet": "1", "kind": "network", "name": "rc",
             "parameters": {"R": 1000.0, "C": 1e-6},
             "elements": [
                 {"type": "VoltageSource", "name": "Vs", "nodes": ["g", "a"], "parameters": {"V": 1.0}},
                 {"type": "Resistor", "name": "R1", "nodes": ["a", "b"], "parameters": {"R": "R"}},
                 {"type": "Capacitor", "name": "C1", "nodes": ["g", "b"], "parameters": {"C": "C"}}],
             "outputs": ["C1.across"]}
    path = tmp_path / "rc.json"
    path.write_text(json.dumps(model))
    out = tmp_path / "study.csv"
    assert main(["sweep", str(path), "--param", "R=1k:2k:3", "--param", "C=1u,2u",
                 "--t-end", "1e-3", "--output", str(out)]) == 0
    frame = pandas.read_csv(out)
    assert len(frame) == 6 and frame["error"].isna().all()
    expected = [1 - math.exp(-1e-3 / (R * C)) for R in (1e3, 1.5e3, 2e3) for C in (1e-6, 2e-6)]
    assert np.allclose(frame["C1.across.final"], expected, rtol=0, atol=1e-6)


def test_traces_of_the_rc_sweep_are_the_charging_curve():
    grid = np.linspace(0.0, T, 41)
    frame, traces = vn.sweep(rc_network(), {"R1": [0.5, 1.0, -1.0, 2.0]}, "simulate", t_end=T,
                             t_eval=grid, outputs=["C1.across"], traces=True, **TIGHT)
    assert traces["C1.across"].dims == ("case", "time")
    assert np.array_equal(traces["time"], grid)
    assert list(traces["R1"].values) == list(frame["R1"])
    for k, R in enumerate(frame["R1"]):
        samples = traces["C1.across"].sel(case=k).values
        if R < 0:
            assert frame["error"][k] is not None and np.isnan(samples).all()
        else:
            expected = 1.0 - np.exp(-grid / (R * C))
            assert np.max(np.abs(samples - expected)) < 1e-8


def test_settling_time_of_rc_is_rc_ln_50():
    # the 2 % settling time of a first-order lag is tau ln(1 / 0.02)
    resistances = [0.5, 1.0, 2.0]
    t_end = 20 * max(resistances) * C
    grid = np.linspace(0.0, t_end, 2001)
    frame = vn.sweep(rc_network(), {"R1": resistances}, "simulate", t_end=t_end, t_eval=grid,
                     outputs=["C1.across"], settle=0.02, **TIGHT)
    spacing = grid[1] - grid[0]
    for R, settled in zip(frame["R1"], frame["C1.across.settling"]):
        assert abs(settled - R * C * math.log(50)) <= spacing


def divider_network() -> vn.Network:
    net = vn.Network("divider")
    net.add(vn.VoltageSource("V1", "g", "a", V=10.0), vn.Resistor("R1", "a", "b", R=1.0),
            vn.Resistor("R2", "g", "b", R=1.0), vn.Capacitor("C1", "g", "b", C=C))
    return net


def test_equilibrium_of_a_divider_is_r2_over_r1_plus_r2():
    frame = vn.sweep(divider_network(), {"R1": [1.0, 3.0], "R2": [1.0, 2.0], "V1": [10.0]},
                     "equilibrium", outputs=["R2.across", "C1.through"])
    assert frame["error"].isna().all()
    expected = frame["V1"] * frame["R2"] / (frame["R1"] + frame["R2"])
    assert np.allclose(frame["R2.across"], expected, rtol=1e-12, atol=0)
    assert np.allclose(frame["C1.through"], 0.0, atol=1e-12)


def test_a_case_without_operating_point_keeps_its_message():
    # a capacitor charged by a current source has no DC value: A x = -B u has no solution
    net = vn.Network("charging")
    net.add(vn.CurrentSource("I1", "g", "a", I=1.0), vn.Capacitor("C1", "a", "g", C=C),
            vn.Resistor("R1", "a", "b", R=1.0), vn.Capacitor("C2", "b", "g", C=C))
    frame = vn.sweep(net, {"R1": [1.0, 2.0]}, "equilibrium", outputs=["C2.across"])
    assert frame["error"].notna().all()
    assert all("C1" in message or "C2" in message for message in frame["error"])


def test_progress_bar_counts_every_case(capsys):
    vn.sweep(rc_network(), {"R1": RESISTANCES}, "eigenvalues", progress=True)
    err = capsys.readouterr().err
    assert "100%" in err and f"{len(RESISTANCES)}/{len(RESISTANCES)}" in err


def test_an_interrupted_sweep_keeps_the_rows_that_finished():
    def charge_or_interrupt(ss, values):
        if values["R1"] == 1.25:          # the fifth case: Ctrl-C
            raise KeyboardInterrupt
        return {"charged": charged(values["R1"])}

    with pytest.raises(vn.StudyInterrupted) as stop:
        vn.sweep(rc_network(), {"R1": RESISTANCES}, charge_or_interrupt)
    assert isinstance(stop.value, KeyboardInterrupt) and (stop.value.done, stop.value.total) \
        == (4, 8)
    frame = stop.value.frame
    assert list(frame["R1"]) == RESISTANCES[:4]
    assert list(frame["charged"]) == [charged(R) for R in RESISTANCES[:4]]


def test_the_command_line_writes_the_finished_rows_of_an_interrupted_sweep(
        tmp_path, capsys, monkeypatch):
    from vecnet.cli import main
    from vecnet.studies.networks import Study

    run = Study.run

    def interrupted_at_the_fourth(self, case):
        if case["R1"] == 4.0:
            raise KeyboardInterrupt
        return run(self, case)

    monkeypatch.setattr(Study, "run", interrupted_at_the_fourth)
    model = tmp_path / "rc.json"
    vn.save_model(rc_network(), model)
    out = tmp_path / "study.csv"
    status = main(["sweep", str(model), "--param", "R1=1:8:8", "--analysis", "eigenvalues",
                   "-o", str(out)])
    err = capsys.readouterr().err
    assert status == 130
    assert f"interrupted: 3 of 8 cases finished before the interrupt; their rows are in {out}" \
        in err
    rows = pandas.read_csv(out)
    assert list(rows["R1"]) == [1.0, 2.0, 3.0]
    # the eigenvalue of an RC charge is -1/(R C)
    assert np.allclose(rows["eig0.real"], [-1 / (R * C) for R in (1.0, 2.0, 3.0)], rtol=1e-12)


def test_a_study_s_cases_are_bounded_before_any_is_made():
    from vecnet.studies.study import cases_of

    grid = {"a": range(1000), "b": range(1000), "c": range(1000)}   # 10^9 cases
    with pytest.raises(vn.ModelError, match=r"1000000000 cases .* max_cases"):
        cases_of(grid)
    with vn.limits(max_cases=10):
        assert len(cases_of({"a": range(2), "b": range(5)})) == 10
        with pytest.raises(vn.ModelError, match="11 cases"):
            cases_of({"a": range(11)})


def _dies_at_two(model, values):
    """An analysis whose process dies (as a crash in compiled code or the kernel's
    out-of-memory killer would end it) for R1 = 2."""
    import signal

    if values["R1"] == 2.0:
        os.kill(os.getpid(), signal.SIGKILL)
    return {"R1 twice": 2 * values["R1"]}


@pytest.mark.parametrize("on_dask", [False, True])
def test_a_case_that_kills_its_worker_fails_alone_and_the_good_rows_are_kept(on_dask):
    values = [0.5, 1.0, 1.5, 2.0, 2.5, 3.0, 3.5, 4.0]
    if on_dask:
        # a nested copy, which Dask's pickling ships by value to its spawned workers
        def dies(model, values):
            return _dies_at_two(model, values)

        distributed = pytest.importorskip("distributed")
        import dask

        # a cluster of its own, whose scheduler gives up on a task at its first killed
        # worker: three kills in all (the batch, the case, the case alone) instead of
        # four times as many, each a worker its nanny must start again
        with dask.config.set({"distributed.scheduler.allowed-failures": 0}), \
                distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1,
                                         dashboard_address=":0") as cluster, \
                distributed.Client(cluster) as own:
            frame = vn.sweep(rc_network(), {"R1": values}, dies, client=own, batch_size=4)
    else:
        frame = vn.sweep(rc_network(), {"R1": values}, _dies_at_two, workers=2,
                         batch_size=4)
    assert list(frame["R1"]) == values
    for R, twice, error in zip(frame["R1"], frame["R1 twice"], frame["error"]):
        if R == 2.0:
            assert "the process running this case died" in error
        else:
            assert error is None and twice == 2 * R
