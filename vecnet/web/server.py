"""The studio's local server: the page, and the answers to its edits.

The server listens on 127.0.0.1 alone, on a free port the system gives, and answers only
requests that carry the run's token (a random 128-bit word in the page's URL, sent back
by the page in the ``X-Vecnet-Token`` header), that name this server as their ``Host``
(no DNS rebinding) and, when they say an ``Origin``, come from the page itself. A body
is at most :data:`MAX_BODY` bytes; a model is read as a model file is, under the bounds
of :func:`vecnet.limits` in force where the studio was started (no text evaluated). A bad request gets an error in words and
the server goes on. It is Python's own ``http.server`` (threads, one a request): nothing
to install, and a page's edits are small and few.

>>> running = start()
>>> running.url.startswith("http://127.0.0.1:")
True
>>> running.stop()
"""

from __future__ import annotations

import json
import secrets
import threading
from dataclasses import fields
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from ..core.bounds import Limits, get_limits, limits, untrusted
from ..errors import VecnetError

__all__ = ["Studio", "studio", "start", "MAX_BODY", "EMPTY_NETWORK"]

#: The largest request body the server reads (bytes): a model document of a few hundred
#: elements with room to spare.
MAX_BODY = 1 << 20

#: The document a studio opened without a model starts from.
EMPTY_NETWORK: dict[str, Any] = {"vecnet": "1", "kind": "network", "name": "network",
                                 "elements": []}


class Studio:
    """A running studio server: its :attr:`url` (with the token), :meth:`stop`; in a
    notebook it shows itself as the page in an ``<iframe>``."""

    def __init__(self, server: ThreadingHTTPServer, thread: threading.Thread | None,
                 token: str) -> None:
        self._server, self._thread, self.token = server, thread, token
        self.port = int(server.server_address[1])
        self.origin = f"http://127.0.0.1:{self.port}"   # the server listens there alone
        self.url = f"{self.origin}/?token={token}"

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._thread is not None:   # serving in its thread: ask it to stop, and wait
            self._server.shutdown()
            self._thread.join()
        self._server.server_close()

    def _repr_html_(self) -> str:
        import html

        return (f'<iframe src="{html.escape(self.url)}" width="100%" height="820" '
                'style="border: 1px solid #ccc"></iframe>')

    def __repr__(self) -> str:
        return f"<Studio {self.url}>"


def studio(model: Any = None) -> Studio:
    """The studio in a notebook (or a script): a server in a background thread showing
    ``model``; in Jupyter the returned object shows the page in an ``<iframe>``, elsewhere
    open its ``url``. ``studio.stop()`` ends it.

    Parameters
    ----------
    model : path, dict, Model, Network or Mechanism, optional
        A model file, a parsed model document, or a model built in Python (written as
        its document by :func:`vecnet.model_to_dict`); default an empty network.

    Returns
    -------
    Studio

    Raises
    ------
    ModelFileError
        The model is no valid model document.

    >>> import vecnet as vn
    >>> net = vn.Network("rc")
    >>> _ = net.add(vn.VoltageSource("V", "g", "a", V=1.0), vn.Resistor("R", "a", "g", R=1.0))
    >>> running = studio(net)
    >>> running.url.startswith("http://127.0.0.1:") and "token=" in running.url
    True
    >>> running.stop()
    """
    import os

    from ..io import model_to_dict
    from ..io.json_document import read_document

    if model is None or isinstance(model, dict):
        document = model
    elif isinstance(model, (str, os.PathLike)):
        document = read_document(model)
    elif getattr(model, "document", None) is not None:   # a loaded model file
        document = model.document
    else:
        document = model_to_dict(model)
    return start(document)


def start(document: dict[str, Any] | None = None, background: bool = True) -> Studio:
    """Start a studio server on 127.0.0.1 and a free port, showing ``document`` (a model
    document, as parsed; default an empty network), in a background thread unless told.

    Returns
    -------
    Studio
        Its ``url`` opens the page; with ``background=False`` call
        ``studio.serve()`` (until Ctrl-C) yourself.
    """
    from .view import studio_view

    token = secrets.token_urlsafe(16)
    bounds = get_limits()          # the requests' threads work under the caller's bounds
    initial = dict(document or EMPTY_NETWORK)
    if document is not None:
        with untrusted():
            studio_view(initial)           # a bad model is refused before serving it
    server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(token, initial, bounds))
    server.daemon_threads = True
    thread = None
    if background:
        thread = threading.Thread(target=server.serve_forever, name="vecnet-studio",
                                  daemon=True)
        thread.start()
    studio = Studio(server, thread, token)
    studio.serve = server.serve_forever   # type: ignore[attr-defined]
    return studio


def _handler(token: str, initial: dict[str, Any],
             bounds: Limits) -> type[BaseHTTPRequestHandler]:
    from .page import studio_page

    class Handler(BaseHTTPRequestHandler):
        server_version = "vecnet-studio"
        sys_version = ""

        def log_message(self, format: str, *args: Any) -> None:   # quiet: no request log
            pass

        # -- checks ---------------------------------------------------------------------
        def _ours(self) -> bool:
            """The Host is this server's and an Origin, if any, the page's."""
            port = self.server.server_address[1]   # type: ignore[index]  # an (host, port)
            own = {f"127.0.0.1:{port}", f"localhost:{port}"}
            origin = self.headers.get("Origin")
            return self.headers.get("Host") in own and (
                origin is None or origin in {f"http://{h}" for h in own})

        def _send(self, status: int, body: bytes, kind: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            self.end_headers()
            self.wfile.write(body)

        def _json(self, status: int, data: Any) -> None:
            self._send(status, json.dumps(data).encode("utf-8"),
                       "application/json; charset=utf-8")

        def _refuse(self, status: int, words: str) -> None:
            self._json(status, {"error": words})

        # -- requests -------------------------------------------------------------------
        def do_GET(self) -> None:  # noqa: N802 - http.server's name
            url = urlparse(self.path)
            given = parse_qs(url.query).get("token", [""])[0]
            if not self._ours():
                return self._refuse(HTTPStatus.FORBIDDEN, "not this server's page")
            if url.path != "/":
                return self._refuse(HTTPStatus.NOT_FOUND, "no such page")
            if not secrets.compare_digest(given, token):
                return self._refuse(HTTPStatus.FORBIDDEN, "the page needs the token of "
                                    "this run (the URL vecnet studio printed)")
            page = studio_page(token)
            self._send(HTTPStatus.OK, page.html.encode("utf-8"), "text/html; charset=utf-8")

        def do_POST(self) -> None:  # noqa: N802
            if not self._ours():
                return self._refuse(HTTPStatus.FORBIDDEN, "not this server's page")
            if not secrets.compare_digest(self.headers.get("X-Vecnet-Token", ""), token):
                return self._refuse(HTTPStatus.FORBIDDEN, "no token, or not this run's")
            try:
                length = int(self.headers.get("Content-Length", ""))
            except ValueError:
                return self._refuse(HTTPStatus.LENGTH_REQUIRED, "a body needs its length")
            if not 0 <= length <= MAX_BODY:
                self.close_connection = True    # the body is not read
                return self._refuse(HTTPStatus.REQUEST_ENTITY_TOO_LARGE,
                                    f"a request is at most {MAX_BODY:,} bytes")
            try:
                request = json.loads(self.rfile.read(length).decode("utf-8"))
                if not isinstance(request, dict):
                    raise ValueError("not an object")
            except (ValueError, UnicodeDecodeError) as exc:
                return self._refuse(HTTPStatus.BAD_REQUEST, f"the body is no JSON object: {exc}")
            try:
                with untrusted(), limits(**{f.name: getattr(bounds, f.name)
                                            for f in fields(bounds)}):
                    answer = _answer(urlparse(self.path).path, request, initial)
            except KeyError as exc:
                return self._refuse(HTTPStatus.NOT_FOUND, str(exc.args[0]))
            except VecnetError as exc:
                return self._refuse(HTTPStatus.UNPROCESSABLE_ENTITY, str(exc))
            except Exception as exc:   # a fault of vecnet's: said, and the server goes on
                return self._refuse(HTTPStatus.INTERNAL_SERVER_ERROR,
                                    f"vecnet failed on this request ({type(exc).__name__}: "
                                    f"{exc}); the studio goes on")
            self._json(HTTPStatus.OK, answer)

    return Handler


def _answer(path: str, request: dict[str, Any], initial: dict[str, Any]) -> Any:
    """What a POST to ``path`` answers: ``/api/start`` the first document and the element
    catalogue, ``/api/view`` the view of a document and tree, ``/api/steps.tex`` the
    steps as LaTeX, ``/api/tikz`` the diagram as TikZ, ``/api/report`` the full report,
    ``/api/simulate`` a plot of a simulation (SVG)."""
    from .view import element_catalogue, layout, steps_latex, studio_view

    if path == "/api/start":
        return {"document": initial, "catalogue": element_catalogue()}
    document = request.get("document")
    if not isinstance(document, dict):
        raise VecnetError("the request needs the model document")
    tree = request.get("tree")
    if tree is not None and not (tree == "normal" or (isinstance(tree, list) and all(
            isinstance(b, str) for b in tree))):
        raise VecnetError("a tree is a list of branch names, or \"normal\"")
    outputs = request.get("outputs")
    if outputs is not None and not (isinstance(outputs, list)
                                    and all(isinstance(o, str) for o in outputs)):
        raise VecnetError("outputs are a list of variable names")
    if path == "/api/view":
        view = studio_view(document, tree, outputs)
        if request.get("layout"):
            view["layout"] = layout(view)
        return view
    if path == "/api/steps.tex":
        return {"latex": steps_latex(studio_view(document, tree, outputs))}
    if path in ("/api/tikz", "/api/report", "/api/simulate"):
        return _output(path, document, tree)
    raise KeyError(f"no request {path!r}")


def _output(path: str, document: dict[str, Any], tree: Any) -> dict[str, str]:
    from ..io.model import load_model
    from ..output.draw import to_tikz
    from ..output.html_pieces import plot_svg, safe_svg
    from ..output.report import report

    model = load_model(document)
    if path == "/api/tikz":
        return {"tikz": to_tikz(model, tree=tree or None)}
    if path == "/api/report":
        return {"html": report(model, tree=tree or None)}
    result = model.simulate(t_span=model.t_span or (0.0, 1.0))
    names = list(model.outputs) or list(result.names)[:4]
    return {"svg": safe_svg(plot_svg(result, names))}
