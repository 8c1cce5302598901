"""Nothing is ever lost: an output path is checked whole before any work, an input is never
overwritten, and only regular files are written (never a device, a FIFO or a directory)."""

import os
import shutil
import socket
import stat
from pathlib import Path

import pytest

import vecnet as vn
from vecnet.cli import main
from vecnet.core.files import check_output
from vecnet.errors import OutputError

MODELS = Path(__file__).resolve().parents[1] / "examples" / "models"


@pytest.fixture
def model(tmp_path):
    """A copy of a small model file, and its bytes."""
    path = tmp_path / "rlc.json"
    shutil.copy(MODELS / "rlc.json", path)
    return path, path.read_bytes()


def _run(capsys, *argv):
    status = main([str(a) for a in argv])
    return status, capsys.readouterr().err


@pytest.mark.parametrize("command", ["report", "simulate", "equations", "draw"])
def test_an_output_that_is_the_input_is_refused_and_the_input_kept(model, capsys, command):
    path, before = model
    status, err = _run(capsys, command, path, "--output", path)
    assert status == 2 and "is the input file" in err
    assert path.read_bytes() == before


def test_an_output_reaching_the_input_through_a_link_is_refused(model, capsys, tmp_path):
    path, before = model
    (tmp_path / "soft.json").symlink_to(path)
    os.link(path, tmp_path / "hard.json")
    for other in ("soft.json", "hard.json"):
        status, err = _run(capsys, "report", path, "-o", tmp_path / other)
        assert status == 2 and "is the input file" in err, other
    assert path.read_bytes() == before and (tmp_path / "soft.json").is_symlink()


def _special_files(tmp_path):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    sock = tmp_path / "sock"
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(sock))
    made = {"a FIFO": fifo, "a socket": sock}
    try:   # a device node of its own (the null device's numbers), where this user may make one
        os.mknod(tmp_path / "device", stat.S_IFCHR | 0o600, os.makedev(1, 3))
        made["a device"] = tmp_path / "device"
    except (PermissionError, OSError):
        pass
    return made, server


@pytest.mark.parametrize("command", ["report", "simulate"])
def test_devices_fifos_and_sockets_are_never_replaced(model, capsys, tmp_path, command):
    path, _ = model
    special, server = _special_files(tmp_path)
    try:
        for kind, target in special.items():
            before = os.stat(target).st_mode
            status, err = _run(capsys, command, path, "-o", target)
            assert status == 2 and f"is {kind}, not a regular file" in err, kind
            assert os.stat(target).st_mode == before, kind     # still what it was
    finally:
        server.close()


def test_the_python_api_refuses_them_too(tmp_path):
    special, server = _special_files(tmp_path)
    net = vn.Network("rc")
    net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "g", R=1.0))
    try:
        for target in special.values():
            with pytest.raises(OutputError, match="not a regular file"):
                vn.draw(net, path=target, format="dot")
            with pytest.raises(OutputError, match="not a regular file"):
                vn.report(net, path=target, simulate=False)
    finally:
        server.close()
    with pytest.raises(OutputError, match="is a directory"):
        vn.report(net, path=tmp_path, simulate=False)


@pytest.mark.parametrize("name, message", [
    ("", "the output file name is empty"),
    ("two\nlines.html", "control characters (U+000A)"),
    ("tab\there.csv", "control characters (U+0009)"),
    ("report\u202elmth.csv", "control characters (U+202E; a direction control"),
    ("x" * 300 + ".html", "bytes long, more than the"),
])
def test_bad_output_names_are_refused_before_any_work(model, capsys, tmp_path, monkeypatch,
                                                      name, message):
    path, _ = model
    monkeypatch.chdir(tmp_path)
    for command in ("report", "simulate"):
        status, err = _run(capsys, command, path, "--output", name)
        assert status == 2 and message in err, (command, err)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["rlc.json"]   # nothing written


def test_a_report_without_output_still_writes_report_html(model, capsys, tmp_path, monkeypatch):
    path, _ = model
    monkeypatch.chdir(tmp_path)
    assert _run(capsys, "report", path)[0] == 0
    assert (tmp_path / "report.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_an_ordinary_file_is_replaced_whole(tmp_path):
    target = tmp_path / "out.csv"
    target.write_text("old")
    check_output(target, sources=[MODELS / "rlc.json"])   # a regular file that is no input
    vn.draw(vn.LinearGraph([("a", 1, 2)]), path=target, format="dot")
    assert target.read_text().startswith("digraph")


# -- the one atomic writer, for every file vecnet writes ---------------------------------------
@pytest.fixture(scope="module")
def movie():
    """A five-frame animation of a swinging pendulum (small frames)."""
    import matplotlib.pyplot as plt

    mech = vn.planar.Mechanism("swing", gravity=(0, -9.81))
    bob = mech.body("bob", mass=1.0, inertia=0.01, position=(1, 0))
    mech.revolute("pin", mech.ground.point(0, 0), bob.point(-1, 0))
    res = mech.formulate().simulate(0.2, t_eval=[0.0, 0.05, 0.1, 0.15, 0.2])
    ax = plt.figure(figsize=(2, 2)).add_subplot()
    return vn.animate(mech, res, frames=5, interval=100, ax=ax)


def _others(folder: Path, *keep: str) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name not in keep)


def test_a_gif_saved_over_a_symlink_replaces_the_link_not_its_target(movie, tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("keep me")
    link = tmp_path / "a.gif"
    link.symlink_to(victim)
    movie.save(link, writer="pillow", dpi=30)
    assert victim.read_text() == "keep me"
    assert not link.is_symlink() and link.read_bytes().startswith(b"GIF89a")
    assert _others(tmp_path, "a.gif", "victim.txt") == []


@pytest.mark.parametrize("where", ["fifo", "device", "missing folder"])
def test_a_gif_to_a_path_that_cannot_be_written_is_refused_before_any_frame(movie, tmp_path,
                                                                             where):
    drawn = []
    if where == "fifo":
        path = tmp_path / "pipe.gif"
        os.mkfifo(path)
    elif where == "device":
        path = Path("/dev/full")
    else:
        path = tmp_path / "nowhere" / "a.gif"
    with pytest.raises(OutputError):
        movie.save(path, writer="pillow", dpi=30,
                   progress_callback=lambda k, n: drawn.append(k))
    assert drawn == []


def test_an_interrupted_gif_keeps_the_old_file_and_leaves_no_temporary_one(movie, tmp_path):
    path = tmp_path / "a.gif"
    path.write_bytes(b"old movie")

    def interrupt(k, n):
        if k == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        movie.save(path, writer="pillow", dpi=30, progress_callback=interrupt)
    assert path.read_bytes() == b"old movie"
    assert _others(tmp_path, "a.gif") == []


@pytest.mark.parametrize("kind", ["fifo", "newline"])
def test_save_model_refuses_a_fifo_and_a_control_character_in_words(tmp_path, kind):
    path = tmp_path / ("m.json" if kind == "fifo" else "m\n.json")
    if kind == "fifo":
        os.mkfifo(path)
    model = vn.load_model(MODELS / "rlc.json")
    with pytest.raises(vn.VecnetError, match="FIFO" if kind == "fifo" else "control"):
        vn.save_model(model, path)
    assert stat.S_ISFIFO(os.stat(path).st_mode) if kind == "fifo" else not path.exists()


def test_a_killed_writer_s_temporary_file_is_removed_at_the_next_write(tmp_path):
    """A process killed while writing leaves its temporary file (nothing of it can run);
    the next write in that folder removes it, and leaves a live process's alone."""
    import subprocess
    import sys

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True).stdout.strip()
    stale = tmp_path / f".vecnet-{dead}-abc.json"
    stale.write_text("half")
    live = tmp_path / f".vecnet-{os.getppid()}-def.json"
    live.write_text("being written")
    vn.save_model(vn.load_model(MODELS / "rlc.json"), tmp_path / "m.json")
    assert not stale.exists() and live.exists()
    assert vn.load_model(tmp_path / "m.json").system.name == "series RLC"
