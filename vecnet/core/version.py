"""The version of vecnet as installed (its package metadata)."""

from __future__ import annotations

__all__ = ["installed_version"]


def installed_version() -> str | None:
    """The installed distribution's version, or ``None`` for a source tree that is not
    installed.

    >>> version = installed_version()
    >>> version is None or isinstance(version, str)
    True
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("vecnet")
    except PackageNotFoundError:
        return None
