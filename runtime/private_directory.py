"""Directories that only this user may write: where compiled code is kept between runs.

What such a directory holds is loaded and run (kernels, compiled Python), so it must not be a
place another user could plant a file in: it is created with mode 0700, and an existing one is
refused if it is a symbolic link, not a directory, owned by another user, or writable by others.
"""

from __future__ import annotations

import os
import stat


def private_directory(path: str, what: str, setting: str) -> str:
    """``path``, created if missing, after checking that only this user can write to it.
    ``what`` names the cache and ``setting`` the call that moves it, for the error."""
    os.makedirs(path, mode=0o700, exist_ok=True)
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode) or not stat.S_ISDIR(info.st_mode):
        raise PermissionError(f"the {what} {path} is not a plain directory; remove it or point "
                              f"{setting} elsewhere.")
    if hasattr(os, "getuid") and (info.st_uid != os.getuid() or info.st_mode & 0o022):
        raise PermissionError(f"the {what} {path} belongs to another user or others can write "
                              f"to it; remove it or point {setting} elsewhere.")
    return path
