"""LaTeX for a handout: ``vn.latex(..., display=True, width=...)`` breaks across lines and
pages, and wide matrices are cut by columns, in LaTeX and in text.

Facts from outside the code: pdflatex itself, compiling an article (10 pt, whose text is
345 pt = 34.5 em wide) with the RSSR's equations of motion and incidence matrix, reports
no overfull line and sets them on more than one page (``align*`` under
``\\allowdisplaybreaks`` breaks between rows; ``aligned`` never does).
"""

import re
from pathlib import Path

import pytest

import vecnet as vn
from test_tikz import compile_tex, needs_latex
from vecnet.output.teaching import TEXT_WIDTH

MODELS = Path(__file__).parent.parent / "examples" / "models"


def article(body: str) -> str:
    return ("\\documentclass{article}\n\\usepackage{amsmath,amssymb}\n\\allowdisplaybreaks\n"
            "\\begin{document}\n" + body + "\n\\end{document}\n")


@needs_latex
def test_the_rssr_handout_compiles_with_every_line_on_the_page(tmp_path):
    eom = vn.load_model(MODELS / "rssr.json").formulate()
    # a display's default width is the article's column: pasted as it comes, it fits
    equations = vn.latex(eom, display=True)
    assert equations == vn.latex(eom, display=True, width=34.5)
    assert equations.startswith("\\begin{align*}") and equations.endswith("\\end{align*}")
    matrix = vn.latex(eom.topology.incidence, display=True)
    log = compile_tex(article("\\section*{RSSR}\n" + equations + "\n" + matrix), tmp_path)
    assert "Overfull \\hbox" not in log
    pages = int(re.search(r"Output written on d\.pdf \((\d+) pages?", log).group(1))
    assert pages > 1
    # without display, one unbreakable block: pdflatex says so
    log = compile_tex(article("\\[" + vn.latex(eom) + "\\]"), tmp_path)
    assert "Overfull" in log or "Output written on d.pdf (1 page" in log


def test_a_wide_incidence_matrix_prints_as_text_in_blocks_of_columns():
    topo = vn.load_model(MODELS / "rssr.json").formulate().topology
    A = topo.incidence
    assert A.shape[1] >= 14
    listing = vn.text(A)
    assert max(len(line) for line in listing.splitlines()) <= TEXT_WIDTH
    headers = re.findall(r"^columns (\S+) to (\S+):$", listing, re.M)
    assert len(headers) > 1
    # every column once, in order, each block with every row and the matrix's entries
    blocks = listing.split("\n\n")
    seen = []
    for block in blocks:
        lines = block.splitlines()[1:]
        columns = lines[0].split()
        seen += columns
        for line in lines[1:]:
            row, *entries = line.split()
            for column, entry in zip(columns, entries):
                assert float(entry) == A[row, column]
    assert seen == [str(c) for c in A.columns]


def test_a_width_cuts_a_typeset_matrix_and_a_bad_width_is_refused():
    A = vn.load_model(MODELS / "rssr.json").formulate().topology.incidence
    assert "gathered" not in vn.latex(A)                    # a report's: one array
    cut = vn.latex(A, width=20)
    assert cut.count("\\begin{array}") > 2
    with pytest.raises(vn.OutputError, match="width"):
        vn.latex(A, width=-1)
