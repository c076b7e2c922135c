"""The viewer's debugger on Dear ImGui (imgui-bundle): panels, a moderngl renderer of
ImGui's draw data that serves a window and headless screenshots alike, and pygame input."""


def available() -> bool:
    """Whether imgui-bundle can be imported here."""
    try:
        import imgui_bundle  # noqa: F401
    except ImportError:
        return False
    return True


def DebugUI(*args, **kwargs):
    from .panels import DebugUI as _DebugUI

    return _DebugUI(*args, **kwargs)
