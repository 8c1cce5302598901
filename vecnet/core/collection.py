"""Bulk work with Python's cyclic garbage collector paused.

Reading or formulating a network of 10^5 elements makes millions of objects that all live
on; every full collection the allocations trigger walks all of them again, about a third
of such a run's time. Nothing made there forms a cycle that must be freed before the work
ends, so the collector waits until it does.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block (or, as a decorator, the function) with the cyclic garbage collector
    paused, and leave it as it was afterwards, also when the block raises (paused uses nest:
    only the outermost turns it back on).

    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()
