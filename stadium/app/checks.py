"""The files the command line reads, checked whole before anything runs: a scripted
battle and a saved one. A problem is a BadFile naming the file, the place in it and what
is wrong, so that nothing later meets a value it cannot use."""
from __future__ import annotations

import json
import math
import re
from pathlib import Path

from ..battle.battle import MAX_TEAM, PHASES
from ..battle.battler import POSE_PATHS
from ..battle.battler_graph import BLENDS
from ..battle.match import SAVE_VERSION
from ..battle.trainer import GESTURES
from ..errors import BadFile

CONTROLLERS = ("human", "ai", "script")
SEED_RANGE = (-(1 << 63), (1 << 64) - 1)
COUNT_MAX = (1 << 53)          # steps, turns, frames: whole numbers a float also holds
MAX_ROAM_STEP = 60 * 60 * 10        # ten minutes of 1/60 s steps
SCRIPT_KEYS = ("teams", "seed", "moves", "pose_paths", "blend", "roam")
_HEX = re.compile(r"(?:[0-9a-fA-F]{2})*")


class _Wrong(Exception):
    """A value in a file that cannot be used: where it is (a path of keys) and why."""

    def __init__(self, where: str, problem: str):
        super().__init__(f"{where or 'the whole file'}: {problem}")


def read_json(path: Path, what: str):
    """The file's JSON; BadFile when it is missing, unreadable or not JSON (with where)."""
    path = Path(path)
    if path.is_dir():
        raise BadFile(path, f"is a folder, not {what}")
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise BadFile(path, f"no such file ({what} was wanted)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise BadFile(path, f"cannot be read as {what} ({getattr(error, 'strerror', None) or error})") from None
    try:
        return json.loads(text, parse_constant=_no_constant)
    except json.JSONDecodeError as error:
        raise BadFile(path, f"not JSON: {error.msg} at line {error.lineno}, column {error.colno}") from None
    except _Wrong as error:
        raise BadFile(path, f"not JSON: {error}") from None


def _no_constant(name: str):
    raise _Wrong("", f"{name} is not a number")


# ------------------------------------------------------------ values


def _whole(v, where: str, lo: int = 0, hi: int = COUNT_MAX) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise _Wrong(where, f"wants a whole number, got {_shown(v)}")
    if not lo <= v <= hi:
        raise _Wrong(where, f"is {v}, outside {lo} .. {hi}")
    return v


def _real(v, where: str, lo: float = -math.inf, hi: float = math.inf) -> float:
    if isinstance(v, bool) or not isinstance(v, (int, float)) or not math.isfinite(v):
        raise _Wrong(where, f"wants a finite number, got {_shown(v)}")
    if not lo <= v <= hi:
        raise _Wrong(where, f"is {v}, outside {lo} .. {hi}")
    return float(v)


def _flag(v, where: str) -> bool:
    if not isinstance(v, bool):
        raise _Wrong(where, f"wants true or false, got {_shown(v)}")
    return v


def _text(v, where: str, choices=None) -> str:
    if not isinstance(v, str) or (choices is None and not v.strip()):
        raise _Wrong(where, f"wants a name, got {_shown(v)}")
    if choices is not None and v not in choices:
        raise _Wrong(where, f"is {v!r}, not one of {', '.join(choices)}")
    return v


def _list(v, where: str, length: int | None = None, most: int | None = None) -> list:
    if not isinstance(v, list):
        raise _Wrong(where, f"wants a list, got {_shown(v)}")
    if length is not None and len(v) != length:
        raise _Wrong(where, f"wants {length} items, got {len(v)}")
    if most is not None and len(v) > most:
        raise _Wrong(where, f"wants at most {most} items, got {len(v)}")
    return v


def _object(v, where: str, keys) -> dict:
    if not isinstance(v, dict):
        raise _Wrong(where, f"wants an object, got {_shown(v)}")
    missing = [k for k in keys if k not in v]
    if missing:
        raise _Wrong(where, f"has no {missing[0]!r}")
    return v


def _optional(v, check, where: str, *args):
    return None if v is None else check(v, where, *args)


def _shown(v) -> str:
    text = json.dumps(v) if not isinstance(v, float) or math.isfinite(v) else str(v)
    return text if len(text) <= 24 else text[:21] + "..."


def _teams(v, where: str) -> list:
    teams = _list(v, where, 2)
    for side, team in enumerate(teams):
        at = f"{where}[{side}]"
        if not _list(team, at, most=MAX_TEAM):
            raise _Wrong(at, f"is an empty team (a team is 1 to {MAX_TEAM} species)")
        for k, name in enumerate(team):
            _text(name, f"{at}[{k}]")
    return teams


def _moves(v, where: str) -> list:
    for k, move in enumerate(_list(v, where)):
        _whole(move, f"{where}[{k}]", 0, 1)
    return v


# ------------------------------------------------------------ a script


def _roam_keys(v, where: str) -> None:
    """[[step, "keys"], ...]: steps whole and rising, keys as roam.scene.parse_keys reads them."""
    from ..roam.scene import parse_keys

    last = -1
    for k, pair in enumerate(_list(v, where)):
        at = f"{where}[{k}]"
        step, keys = _list(pair, at, 2)
        _whole(step, f"{at}[0]", 0, MAX_ROAM_STEP)
        if step <= last:
            raise _Wrong(f"{at}[0]", f"is step {step}, not after the step before ({last})")
        last = step
        if not isinstance(keys, str):
            raise _Wrong(f"{at}[1]", f"wants the keys held, as \"up+shift\" (\"\" for none), got {_shown(keys)}")
        try:
            parse_keys(keys)
        except ValueError as error:
            raise _Wrong(f"{at}[1]", str(error)) from None


def check_script(data, path: Path) -> dict:
    """A scripted battle (stadium.battle.match.script_setup's keys, each optional), checked."""
    try:
        _object(data, "", ())
        unknown = [k for k in data if k not in SCRIPT_KEYS]
        if unknown:
            raise _Wrong(unknown[0], f"is not a script's key ({', '.join(SCRIPT_KEYS)})")
        if "teams" in data:
            _teams(data["teams"], "teams")
        if "seed" in data:
            _whole(data["seed"], "seed", *SEED_RANGE)
        if "moves" in data:
            for side, moves in enumerate(_list(data["moves"], "moves", most=2)):
                for k, move in enumerate(_list(moves, f"moves[{side}]")):
                    _whole(move, f"moves[{side}][{k}]", 1, 2)
        if "pose_paths" in data:
            for side, p in enumerate(_list(data["pose_paths"], "pose_paths", 2)):
                _text(p, f"pose_paths[{side}]", POSE_PATHS)
        if "blend" in data:
            _text(data["blend"], "blend", BLENDS)
        if "roam" in data:
            _roam_keys(data["roam"], "roam")
    except _Wrong as error:
        raise BadFile(path, f"not a usable script: {error}") from None
    return data


def read_script(path: Path) -> dict:
    return check_script(read_json(path, "a script"), path)


# ------------------------------------------------------------ a saved battle


def check_save(data, path: Path) -> dict:
    """A saved match (stadium.battle.match.Match.save's form), checked: every key there,
    every value of its kind and range, and the battle consistent with its battlers."""
    try:
        _object(data, "", ("version",))
        if data["version"] != SAVE_VERSION:
            raise _Wrong("version", f"is {_shown(data['version'])}; this reads version {SAVE_VERSION}")
        _object(data, "", ("setup", "frame", "time", "battle", "battlers", "vacant", "graph_log"))
        _setup(data["setup"])
        _whole(data["frame"], "frame")
        _real(data["time"], "time", 0.0)
        _battle(data["battle"])
        for side, name in enumerate(_list(data["vacant"], "vacant", 2)):
            _text(name, f"vacant[{side}]")
        for k, e in enumerate(_list(data["graph_log"], "graph_log")):
            at = f"graph_log[{k}]"
            _object(e, at, ("frame", "side", "name", "time"))
            _whole(e["frame"], f"{at}.frame")
            _whole(e["side"], f"{at}.side", 0, 1)
            _text(e["name"], f"{at}.name")
            _real(e["time"], f"{at}.time")
        for side, t in enumerate(_list(data.get("trainers", []), "trainers", most=2)):
            at = f"trainers[{side}]"
            if _list(t, at, 2)[0] is not None and t[0] not in GESTURES:
                raise _Wrong(f"{at}[0]", f"is no trainer gesture (null, {', '.join(GESTURES)})")
            _real(t[1], f"{at}[1]", 0.0)
        sides = data["battle"]["sides"]
        for side, saved in enumerate(_list(data["battlers"], "battlers", 2)):
            s = sides[side]
            at = f"battlers[{side}]"
            if (saved is None) != (s["active"] < 0):
                raise _Wrong(at, f"does not match battle.sides[{side}].active")
            if saved is not None:
                _battler(saved, at)
    except _Wrong as error:
        raise BadFile(path, f"not a usable saved battle: {error}") from None
    return data


def read_save(path: Path) -> dict:
    return check_save(read_json(path, "a saved battle"), path)


def _setup(v) -> None:
    _object(v, "setup", ("teams", "seed", "controllers", "scripts", "pose_paths", "blend"))
    _teams(v["teams"], "setup.teams")
    _whole(v["seed"], "setup.seed", *SEED_RANGE)
    for side, c in enumerate(_list(v["controllers"], "setup.controllers", 2)):
        _text(c, f"setup.controllers[{side}]", CONTROLLERS)
    for side, moves in enumerate(_list(v["scripts"], "setup.scripts", 2)):
        _moves(moves, f"setup.scripts[{side}]")
    for side, p in enumerate(_list(v["pose_paths"], "setup.pose_paths", 2)):
        _text(p, f"setup.pose_paths[{side}]", POSE_PATHS)
    _text(v["blend"], "setup.blend", BLENDS)


_BATTLE_KEYS = ("seed", "rng", "frame", "turn", "phase", "timer", "pending", "order", "attacker",
                "move", "landed", "impacted", "defender_struck", "winner", "message", "sides", "log")
_SIDE_KEYS = ("team", "hp", "active", "shown_hp", "choice", "controller", "script")


def _battle(v) -> None:
    _object(v, "battle", _BATTLE_KEYS)
    _whole(v["seed"], "battle.seed", *SEED_RANGE)
    _whole(v["rng"], "battle.rng", 1, (1 << 64) - 1)
    for key in ("frame", "turn", "timer"):
        _whole(v[key], f"battle.{key}")
    _text(v["phase"], "battle.phase", PHASES)
    for key in ("pending", "order"):
        for k, side in enumerate(_list(v[key], f"battle.{key}", most=2)):
            _whole(side, f"battle.{key}[{k}]", 0, 1)
    _whole(v["attacker"], "battle.attacker", -1, 1)
    _whole(v["move"], "battle.move", -1, 1)
    _optional(v["landed"], _flag, "battle.landed")
    _flag(v["impacted"], "battle.impacted")
    _flag(v["defender_struck"], "battle.defender_struck")
    _optional(v["winner"], _whole, "battle.winner", 0, 1)
    if not isinstance(v["message"], str):
        raise _Wrong("battle.message", f"wants text, got {_shown(v['message'])}")
    for side, s in enumerate(_list(v["sides"], "battle.sides", 2)):
        _side(s, f"battle.sides[{side}]")
    fighting = v["phase"] not in ("sendout", "result")
    if fighting and any(s["active"] < 0 for s in v["sides"]):
        raise _Wrong("battle.phase", f"is {v['phase']!r} with a side that has nobody on the field")
    if v["phase"] in ("attack", "resolve", "faint") and v["attacker"] < 0:
        raise _Wrong("battle.attacker", f"is -1 in phase {v['phase']!r}")
    if v["phase"] == "attack" and v["move"] < 0:
        raise _Wrong("battle.move", "is -1 in phase 'attack'")
    for k, e in enumerate(_list(v["log"], "battle.log")):
        at = f"battle.log[{k}]"
        _object(e, at, ("frame", "kind", "side", "text", "data"))
        _whole(e["frame"], f"{at}.frame")
        _text(e["kind"], f"{at}.kind")
        _whole(e["side"], f"{at}.side", -1, 1)
        if not isinstance(e["text"], str) or not isinstance(e["data"], dict):
            raise _Wrong(at, "wants a text and a data object")


def _side(s, at: str) -> None:
    _object(s, at, _SIDE_KEYS)
    team = _list(s["team"], f"{at}.team", most=MAX_TEAM)
    if not team:
        raise _Wrong(f"{at}.team", f"is an empty team (a team is 1 to {MAX_TEAM} species)")
    for k, name in enumerate(team):
        _text(name, f"{at}.team[{k}]")
    for k, hp in enumerate(_list(s["hp"], f"{at}.hp", len(team))):
        _whole(hp, f"{at}.hp[{k}]", 0, 1 << 20)
    _whole(s["active"], f"{at}.active", -1, len(team) - 1)
    _real(s["shown_hp"], f"{at}.shown_hp", 0.0)
    _optional(s["choice"], _whole, f"{at}.choice", 0, 1)
    _text(s["controller"], f"{at}.controller", CONTROLLERS)
    _moves(s["script"], f"{at}.script")


_BATTLER_KEYS = ("species", "pose_path", "blend", "graph", "visible", "flash_time", "flash",
                 "steps", "dt", "anchor_before", "anchor_after", "secondary", "look_target")
_SECONDARY_KEYS = ("look_level", "contact", "locks", "locked", "last_feet", "has_last", "springs")
LEGS_MOST = 8


def _battler(b, at: str) -> None:
    _object(b, at, _BATTLER_KEYS)
    _text(b["species"], f"{at}.species")
    _text(b["pose_path"], f"{at}.pose_path", POSE_PATHS)
    _text(b["blend"], f"{at}.blend", BLENDS)
    if not isinstance(b["graph"], str) or not b["graph"] or not _HEX.fullmatch(b["graph"]):
        raise _Wrong(f"{at}.graph", "wants a graph instance's save as hexadecimal bytes")
    _flag(b["visible"], f"{at}.visible")
    _optional(b["flash_time"], _real, f"{at}.flash_time", 0.0)
    _real(b["flash"], f"{at}.flash", 0.0, 1.0)
    _whole(b["steps"], f"{at}.steps")
    _real(b["dt"], f"{at}.dt", 0.0, 1.0)
    for key in ("anchor_before", "anchor_after"):
        if b[key] is not None:
            for k, x in enumerate(_list(b[key], f"{at}.{key}", 3)):
                _real(x, f"{at}.{key}[{k}]")
    if b["look_target"] is not None:
        for k, x in enumerate(_list(b["look_target"], f"{at}.look_target", 3)):
            _real(x, f"{at}.look_target[{k}]")
    if b["secondary"] is not None:
        _secondary(b["secondary"], f"{at}.secondary")
    if b.get("fall") is not None:
        _fall(b["fall"], f"{at}.fall")
    previous = b.get("previous")
    if previous is not None and (not isinstance(previous, str) or not previous
                                 or not _HEX.fullmatch(previous)):
        raise _Wrong(f"{at}.previous", "wants the last pose's bytes in hexadecimal")


_FALL_KEYS = ("state", "time", "remainder", "strength", "faint", "ground", "seconds",
              "settling", "kinematic", "still")


def _fall(v, at: str) -> None:
    """A battler's fall (stadium.battle.fall): the engine's state as hexadecimal binary64
    words, its clock, the faint's fade (start, seconds, strength it started from), its
    ground, the seconds since the faint and since it came to rest, whether the clip took
    over from an unstable engine, and whether it lies still."""
    _object(v, at, _FALL_KEYS)
    state = v["state"]
    if not isinstance(state, str) or not state or len(state) % 16 or not _HEX.fullmatch(state):
        raise _Wrong(f"{at}.state", "wants the engine's state as hexadecimal binary64 words")
    _real(v["time"], f"{at}.time", 0.0)
    _real(v["remainder"], f"{at}.remainder", 0.0, 1.0)
    _real(v["strength"], f"{at}.strength", 0.0, 1.0)
    _real(v["ground"], f"{at}.ground", hi=0.0)
    _real(v["seconds"], f"{at}.seconds", 0.0)
    if v["settling"] is not None:
        _real(v["settling"], f"{at}.settling", 0.0)
    _flag(v["kinematic"], f"{at}.kinematic")
    _flag(v["still"], f"{at}.still")
    if v["faint"] is not None:
        start, seconds, was = _list(v["faint"], f"{at}.faint", 3)
        _real(start, f"{at}.faint[0]", 0.0)
        _real(seconds, f"{at}.faint[1]", 0.0)
        _real(was, f"{at}.faint[2]", 0.0, 1.0)


def _secondary(v, at: str) -> None:
    """A battler's secondary motion (stadium.battle.secondary): its weights, its feet (as
    many of each as the species has legs) and its springs' saved state."""
    _object(v, at, _SECONDARY_KEYS)
    _real(v["look_level"], f"{at}.look_level", 0.0, 1.0)
    legs = len(_list(v["contact"], f"{at}.contact", most=LEGS_MOST))
    for k, c in enumerate(v["contact"]):
        _real(c, f"{at}.contact[{k}]", 0.0, 1.0)
    for k, f in enumerate(_list(v["locked"], f"{at}.locked", legs)):
        _flag(f, f"{at}.locked[{k}]")
    for key in ("locks", "last_feet"):
        for k, point in enumerate(_list(v[key], f"{at}.{key}", legs)):
            for j, x in enumerate(_list(point, f"{at}.{key}[{k}]", 3)):
                _real(x, f"{at}.{key}[{k}][{j}]")
    _flag(v["has_last"], f"{at}.has_last")
    springs = v["springs"]
    if springs is not None and (not isinstance(springs, str) or not _HEX.fullmatch(springs)):
        raise _Wrong(f"{at}.springs", "wants a spring state's save as hexadecimal bytes")
