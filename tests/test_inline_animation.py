"""An animation in a notebook plays inline: ``_repr_html_`` is its GIF in an ``<img>``
(every frame, looping, no script), smaller than matplotlib's ``to_jshtml()`` player, and
the figure is closed so that no still frame shows beside it; titles read the time to the
digits the frames tell apart."""

import base64
import io
import re
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from PIL import Image

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import vecnet as vn  # noqa: E402
from vecnet.output.picture import time_labels  # noqa: E402

MODELS = Path(__file__).parent.parent / "examples" / "models"


@pytest.fixture(scope="module")
def fourbar():
    model = vn.load_model(MODELS / "fourbar.json")
    return model, model.simulate(points=41)


def test_the_notebook_player_is_the_gif_inline(fourbar):
    model, res = fourbar
    movie = vn.animate(model, res, frames=20)
    figure = plt.gcf()
    page = movie._repr_html_()
    assert "<script" not in page
    data = re.fullmatch(r'<img src="data:image/gif;base64,([A-Za-z0-9+/=]+)" alt="fourbar, '
                        r'animated">', page).group(1)
    with Image.open(io.BytesIO(base64.b64decode(data))) as gif:
        assert gif.format == "GIF" and gif.n_frames == 20
        assert gif.info.get("loop") == 0                      # loops for ever
    assert not plt.fignum_exists(figure.number)              # no still frame beside it
    player = vn.animate(model, res, frames=20).to_jshtml()
    assert len(page) < len(player) / 2


def test_titles_read_the_time_to_the_frames_digits():
    labels = time_labels(np.linspace(0.0, 1.0, 200))          # a frame every 5 ms
    assert labels[50] == "0.251 s" and len(set(labels)) == 200
    assert time_labels(np.linspace(0.0, 10.0, 11)) == [f"{k}.0 s" for k in range(11)]
