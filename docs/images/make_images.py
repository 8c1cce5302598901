"""Draw the pictures of docs/diagrams.md from the bundled models: McPhee's electrical network
(REFERENCE case E1) with the tree {L1, L2, R3, R4, R5}, the four-bar mechanism's vector
network with joint coordinates (the joints P1-P3 in the tree, P4 cut), the spatial
four-bar's (revolute and ball joints), and the four-bar's first two seconds as an SVG that
moves by itself (vn.animation_svg).

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
    rssr = vn.load_model(MODELS / "rssr.json").system
    vn.draw(rssr, tree="joint", path=HERE / "rssr.svg")
    model = vn.load_model(MODELS / "fourbar.json")
    motion = vn.simulate(model, t_span=(0, 2), points=81)
    (HERE / "fourbar-motion.svg").write_text(vn.animation_svg(model, motion, frames=81, size=360),
                                             encoding="utf-8")
    print("wrote " + ", ".join(str(HERE / f) for f in ("e1.svg", "fourbar.svg", "rssr.svg",
                                                       "fourbar-motion.svg")))
