"""Malformed and hostile model files and netlists are refused, quickly, with their location.

Each file in ``tests/data/bad_models/`` must raise :class:`vecnet.ModelFileError`
whose ``location`` is the one recorded in ``tests/data/bad_models_expected.json``
(a JSON pointer, a line of the file, or a netlist line) and whose message
starts with it; where the record is ``{"location": ..., "says": ...}``, the message
also says that. Files that load but must be refused when they run are in
``tests/data/bad_runs`` (see ``tests/test_bad_runs.py``). None may take more than about a second: the expression parser
bounds sizes and exponents instead of computing them.
"""

import copy
import json
import time
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import vecnet as vn

DATA = Path(__file__).parent / "data"
BAD = DATA / "bad_models"
EXPECTED = json.loads((DATA / "bad_models_expected.json").read_text())
FILES = sorted(p for p in BAD.iterdir() if p.suffix in (".json", ".cir"))
EXAMPLES = Path(__file__).parent.parent / "examples" / "models"


def load(path: Path):
    return vn.load_netlist(path) if path.suffix == ".cir" else vn.load_model(path)


def expected(name: str) -> tuple[str, str]:
    """The location and a part of the message (``""``: any) that a file's error gives."""
    record = EXPECTED[name]
    return (record, "") if isinstance(record, str) else (record["location"], record["says"])


def test_the_corpus_is_large_and_every_file_has_an_expected_location():
    assert len(FILES) >= 30
    assert sum(p.suffix == ".cir" for p in FILES) >= 10
    assert {p.name for p in FILES} == set(EXPECTED)


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_bad_input_raises_model_file_error_naming_the_location(path):
    with pytest.raises(vn.ModelFileError) as info:
        load(path)
    error = info.value
    location, says = expected(path.name)
    assert error.location == location, str(error)
    assert str(error).startswith(error.location + ": ") and says in str(error)
    assert "\n" not in str(error)                       # one line
    assert isinstance(error, vn.ModelError) and isinstance(error, vn.VecnetError)


def test_no_bad_input_takes_more_than_a_second():
    vn.load_model(EXAMPLES / "rlc.json")                # imports and schema compiled once
    slow = {}
    for path in FILES:
        # the processor time of this process: the work a file causes, whatever else runs
        start = time.process_time()
        with pytest.raises(vn.ModelFileError):
            load(path)
        elapsed = time.process_time() - start
        if elapsed > 1.0:
            slow[path.name] = elapsed
    assert not slow, slow


def test_hostile_expressions_never_run_code(tmp_path, monkeypatch):
    # if anything evaluated the text, this would create a file
    marker = tmp_path / "owned"
    attacks = [f"__import__('pathlib').Path({str(marker)!r}).touch()",
               f"open({str(marker)!r}, 'w')",
               "().__class__.__base__.__subclasses__()",
               "[c for c in ().__class__.__base__.__subclasses__()]"]
    for text in attacks:
        with pytest.raises(vn.ModelFileError):
            vn.parse_expression(text, {}, "/x")
    assert not marker.exists()


# -- random damage to good models: a ModelFileError or a model, nothing else ----------------

GOOD = {p.name: json.loads(p.read_text()) for p in sorted(EXAMPLES.glob("*.json"))}
JUNK = st.one_of(st.none(), st.booleans(), st.integers(-10**6, 10**6),
                 st.floats(allow_nan=False, allow_infinity=False),
                 st.text(max_size=30), st.sampled_from(["9**9**9**9", "().__class__", "t", "-",
                                                         "sin(", "ground.O", "R1.across", ""]),
                 st.lists(st.integers(), max_size=3), st.dictionaries(st.text(max_size=5),
                                                                      st.integers(), max_size=2))


def _paths(doc, prefix=()):
    yield prefix
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield from _paths(value, prefix + (key,))
    elif isinstance(doc, list):
        for k, value in enumerate(doc):
            yield from _paths(value, prefix + (k,))


@given(name=st.sampled_from(sorted(GOOD)), data=st.data(), junk=JUNK)
def test_damaged_models_fail_cleanly(name, data, junk):
    doc = copy.deepcopy(GOOD[name])
    paths = [p for p in _paths(doc) if p]
    path = data.draw(st.sampled_from(paths))
    target = doc
    for key in path[:-1]:
        target = target[key]
    if data.draw(st.booleans()) and isinstance(target, dict):
        del target[path[-1]]
    else:
        target[path[-1]] = junk
    try:
        vn.load_model(doc)
    except vn.ModelFileError as exc:
        assert exc.location and str(exc).startswith(exc.location)


@given(st.text(alphabet="RLCVIQXD0123456789 abn.+-*()=;\nkmuMEGpfPULSEIN", max_size=200))
def test_random_netlists_fail_cleanly(text):
    try:
        vn.load_netlist("title\n" + text + "\n")
    except vn.ModelFileError as exc:
        assert exc.location.startswith("netlist line ")
