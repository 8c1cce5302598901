"""The HTML report in a real browser: headless Chromium renders it without console errors."""

import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

import vecnet as vn
from vecnet.output.report import report

ROOT = Path(__file__).parent.parent
CHROMIUM = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome")
                 if shutil.which(b)), None)
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--enable-logging=stderr", "--v=0"]

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed "
                                "(make test installs it where apt-get is available)")


def chromium(*args):
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args],
                              capture_output=True, text=True, timeout=120)


def console_errors(log: str) -> list[str]:
    return [line for line in log.splitlines()
            if "CONSOLE" in line and ("error" in line.lower() or "uncaught" in line.lower())]


@pytest.mark.parametrize("name", ["motor_pump", "fourbar"])
def test_report_renders_in_chromium(tmp_path, name):
    page = tmp_path / f"{name}.html"
    report(vn.load_model(ROOT / "examples" / "models" / f"{name}.json"), page)
    url = page.resolve().as_uri()

    dom = chromium("--dump-dom", url)
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert "<svg" in dom.stdout                                  # the diagram and the plots
    assert dom.stdout.count('<pre class="tex typeset"') >= 5    # [IN], [A], [CU], [CI], equations
    assert "Fundamental cutset matrix" in dom.stdout
    assert console_errors(dom.stderr) == []

    shot = tmp_path / f"report-{name}.png"
    run = chromium("--window-size=1200,2200", f"--screenshot={shot}", url)
    assert run.returncode == 0 and shot.stat().st_size > 20_000, run.stderr[-2000:]
    import matplotlib.image

    pixels = matplotlib.image.imread(shot)
    assert pixels.std() > 0.05                                   # not a blank page
    assert console_errors(run.stderr) == []
