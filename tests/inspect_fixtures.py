"""What the inspector's tests share: a staged third-party file or a clean skip, and a
headless GL context or a clean skip."""
from __future__ import annotations

from pathlib import Path

import pytest


def staged(path: Path) -> Path:
    if not path.is_file():
        pytest.skip(f"{path} is not staged (the test data lives in ../shared)")
    return path


def needs_headless_gl() -> None:
    import moderngl
    try:
        moderngl.create_standalone_context(backend="egl").release()
    except Exception as e:         # no EGL here: the render half cannot run
        pytest.skip(f"no headless GL: {e}")
