"""Screenshots of the studio for docs/studio.md: McPhee's E1, the motor-pump network and the
four-bar, each open in headless Chromium as ``vecnet studio MODEL`` opens it.

Run with ``python docs/images/make_studio_images.py`` (needs Chromium); the PNG files are
written next to this script.
"""

import shutil
import subprocess
import tempfile
from pathlib import Path

from vecnet.web.server import studio

HERE = Path(__file__).parent
MODELS = HERE.parent.parent / "examples" / "models"

if __name__ == "__main__":
    browser = next(filter(None, map(shutil.which, ("chromium", "chromium-browser",
                                                     "google-chrome"))))
    for name in ("e1", "motor_pump", "fourbar"):
        running = studio(MODELS / f"{name}.json")
        try:
            with tempfile.TemporaryDirectory() as profile:
                subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu",
                                f"--user-data-dir={profile}", "--window-size=1400,950",
                                "--virtual-time-budget=10000", "--hide-scrollbars",
                                f"--screenshot={HERE / f'studio-{name}.png'}", running.url],
                               check=True, capture_output=True, timeout=300)
        finally:
            running.stop()
        print("wrote", HERE / f"studio-{name}.png")
