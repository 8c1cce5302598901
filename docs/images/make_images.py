"""Draw the pictures of docs/diagrams.md from the bundled models: McPhee's electrical network
(REFERENCE case E1) with the tree {L1, L2, R3, R4, R5}, and the four-bar mechanism's vector
network with joint coordinates (the joints P1-P3 in the tree, P4 cut).

Run with ``python docs/images/make_images.py``; the SVG files are written next to this
script. Needs the Graphviz ``dot`` program.
"""

from pathlib import Path

import vecnet as vn

HERE = Path(__file__).parent
MODELS = HERE.parent.parent / "examples" / "models"

if __name__ == "__main__":
    e1 = vn.load_model(MODELS / "e1.json").system
    four_bar = vn.load_model(MODELS / "fourbar.json").system
    vn.draw(e1, tree=["L1", "L2", "R3", "R4", "R5"], labels="both", path=HERE / "e1.svg")
    vn.draw(four_bar, tree="joint", path=HERE / "fourbar.svg")
    print(f"wrote {HERE / 'e1.svg'} and {HERE / 'fourbar.svg'}")
