"""The linear-graph studio: a page in the browser where a graph is drawn, its tree picked
and every matrix and equation follows (``vecnet studio``, :func:`vecnet.studio`).

vecnet computes everything (:mod:`vecnet.web.view`); the page only draws and sends edits
to a local server (:mod:`vecnet.web.server`) that serves it (:mod:`vecnet.web.page`).
"""
