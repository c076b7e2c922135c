"""One creature in a battle, animated by its graph: the graph instance, the rig it
drives, and the two ways a pose gets from one to the other.

Each battler is an instance of the battler graph (stadium.battle.battler_graph) built for its
species. Every step the instance is updated (which moves its state machine and lists
the events its clips pass, such as an attack's "impact"), and then the rig is posed by
one of two paths:

    "stadium"   the rig poses itself at the current state's playhead, with its own
                30 Hz frames, half-frame blending and guards: faithful to the original
                game, a state change is a cut
    "runtime"   the graph's evaluated pose drives the rig's pivot and draw matrices
                (StadiumRig.set_chains), so a state change is inertialized (or crossfaded)
                by the graph, then gets its secondary motion (stadium.battle.secondary:
                planted feet, a look at the opponent, springs) before it drives the rig

Either way the rig then anchors, skins and picks its textures as it always does.

A developer may look at a battler differently without changing it: ``present(view)``
re-poses the last step with another pose path, without the half-frame blend, without
anchoring, or with the current state's playhead scrubbed, and the next step continues
exactly as if it had not looked (the graph's state and the anchor's smoothing are put
back afterwards).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

import runtime as rt
from runtime.graph.source import ParameterType

from ..errors import BadInput
from ..rig import pack
from .battler_graph import SPEED, BattlerGraph, battler_graph
from .fall import Fall
from .secondary import SecondaryMotion, secondary_rig
from .scene import FLASH_BLINKS_PER_SECOND, FLASH_SECONDS, FLASH_STRENGTH, anchor_limit, place
from ..rig.convert import ROLES, SLOT_OF, RuntimeSpecies, runtime_species
from ..rig.rig import StadiumRig

POSE_PATHS = ("runtime", "stadium")
SETTLED = ("standby_intro", "standby")


@dataclass(frozen=True)
class PoseView:
    """How to show a battler other than as it plays (debugging): None fields leave that
    part as it is."""

    pose_path: str | None = None
    interpolate: bool = True
    anchor: bool = True
    scrub: float | None = None       # the current state's playhead, in seconds

    @property
    def plain(self) -> bool:
        return self.pose_path is None and self.interpolate and self.anchor and self.scrub is None


class Battler:
    """A species on a cell, played by its graph; what the renderer draws (species, rig,
    matrix, flash, visible) and what the battle asks of it."""

    def __init__(self, species: pack.Species, position, yaw: float, *, pose_path: str = "runtime",
                 blend: str = "inertialize", secondary: bool = True):
        """`secondary` False leaves the runtime path the graph's pose alone (no feet,
        look-at or springs, and a faint plays its clip rather than falling): what it is
        compared with the Stadium path as."""
        if pose_path not in POSE_PATHS:
            raise ValueError(f"pose path is one of {POSE_PATHS}, not {pose_path!r}")
        self.species = species
        self.rts: RuntimeSpecies = runtime_species(species)
        self.graph: BattlerGraph = battler_graph(self.rts, blend)
        self.blend = blend
        self.instance = self.graph.new_instance()
        self.pose_buffer = rt.Pose(self.rts.skeleton)
        self.rig = StadiumRig(species)
        self.pose_path = pose_path
        self.position = np.asarray(position, float)
        self.yaw = float(yaw)
        self.visible = True
        self.flash = 0.0
        self.flash_time: float | None = None     # seconds since the flash started
        self.events: list = []                   # what the last update listed
        self.steps = 0
        self.matrix = np.zeros((4, 4), np.float32)   # GL byte order: the transpose
        self._place()
        rig = secondary_rig(self.rts) if secondary else None
        self.secondary = (SecondaryMotion(rig, self.position, self.yaw, species.root_scale)
                          if rig is not None else None)
        self.look_target = None                  # the opponent's head in the world, or None
        self.falls = secondary                   # a faint on the runtime path is a ragdoll's
        self.fall: Fall | None = None
        self._previous = rt.Pose(self.rts.skeleton)     # the last step's pose (a fall's start)
        self._has_previous = False
        self._param = self.graph.parameters
        self._dt = 0.0
        self._anchor_before = None
        self._anchor_after = None
        self._shown = None

    def _place(self) -> None:
        place(self.matrix, self.position, self.yaw, self.species.root_scale)

    # ------------------------------------------------------------ the graph

    def trigger(self, name: str) -> None:
        """Set one of the graph's triggers ("sendOut", "attack1", "attack2", "hit", "faint")."""
        self.instance.set_parameter(self._param[name], ParameterType.trigger, True)
        if name == "sendOut" and self.secondary is not None:
            self.secondary.reset()

    def set_speed(self, value: float) -> None:
        self.instance.set_parameter(self._param[SPEED], ParameterType.float_, float(value))

    def state(self) -> tuple[str, float, int]:
        """(role of the current state, its clip's playhead, the transition under way or
        GRAPH_NONE)."""
        view = self.instance.inspect(self.graph.machine)
        role = ROLES[view.state]
        return role, self.instance.playhead(self.graph.clip_nodes[role]), view.transition

    @property
    def role(self) -> str:
        return ROLES[self.instance.inspect(self.graph.machine).state]

    def settled(self) -> bool:
        """Standing by, or settling into it: an action is over once the machine is back
        in standby, whether its blend there has finished or not (so the battle's timing
        is the same whichever way the graph blends)."""
        return self.role in SETTLED

    def fainted(self) -> bool:
        """The faint is over: its fall has come to rest (stadium.battle.fall), or, where it
        does not fall, its clip has played to its end and holds there."""
        if self.fall is not None:
            return self.fall.resting()
        role, playhead, _ = self.state()
        return role == "faint" and playhead >= self.rts.clip("faint").duration and \
            not self._falling_path()

    def _falling_path(self) -> bool:
        return self.falls and self.pose_path == "runtime"

    def head_world(self) -> tuple[float, float, float]:
        """Where an opponent looks: this battler's head (its first look chain's last bone)
        as last drawn, in the world; without a look chain, three quarters up its body."""
        sec = self.secondary
        if sec is None or not sec.rig.looks:
            x, y, z = self.position.tolist()
            return x, y + 0.75 * self.species.height, z
        return sec.point_to_world(self.rig.pivot[sec.rig.resolved.looks[0][0][-1], :, 3].tolist())

    def strike_flash(self) -> None:
        self.flash_time = 0.0
        self._flash()

    def _flash(self) -> None:
        since = self.flash_time
        if since is not None and 0.0 <= since < FLASH_SECONDS:
            blink = math.floor(since * FLASH_BLINKS_PER_SECOND * 2.0) % 2 == 0
            self.flash = FLASH_STRENGTH * (1.0 - since / FLASH_SECONDS) if blink else 0.0
        else:
            self.flash = 0.0
            self.flash_time = None

    def update(self, dt: float) -> list:
        """One step of the graph: returns (and keeps) the events it listed."""
        events, _, _ = self.instance.update(dt)
        self.events = events
        self.steps += 1
        if self.flash_time is not None:
            self.flash_time += dt
            self._flash()
        return events

    # ------------------------------------------------------------ posing

    def pose(self, dt: float, view: PoseView | None = None) -> None:
        """Pose the rig for this step (anchored, smoothing over dt), skin it, pick its
        textures; then, if a view is given, show it that way instead (see present)."""
        self._dt = dt
        self._anchor_before = self.rig.anchor_state
        self._pose_once(self.pose_path, True, None, True)
        if self.fall is None:                    # the engine keeps a fall on the ground
            self.rig.anchor(anchor_limit(SLOT_OF[self.role]), dt)
        self._anchor_after = self.rig.anchor_state
        self._finish()
        if view is not None and not view.plain:
            self.present(view)

    def present(self, view: PoseView | None) -> None:
        """Re-pose the last step as `view` asks (None: as it plays). The graph's state and
        the anchor's smoothing are left exactly as the step left them."""
        rig = self.rig
        view = view or PoseView()
        saved = self.instance.buffer.copy()        # the instance's bytes are the instance
        try:
            rig.anchor_state = self._anchor_before
            rig.forget_pose()
            self._pose_once(view.pose_path or self.pose_path, view.interpolate, view.scrub, False)
            if view.anchor:
                rig.anchor(anchor_limit(SLOT_OF[self.role]), self._dt)
        finally:
            self.instance.buffer[:] = saved
            rig.anchor_state = self._anchor_after
        self._finish()

    def _finish(self) -> None:
        self.rig.skin(self.yaw)
        self.rig.textures(self._shown)

    def _pose_once(self, path: str, interpolate: bool, scrub: float | None, advance: bool) -> None:
        role, playhead, _ = self.state()
        clip = self.rts.clips[role]
        if scrub is not None:
            playhead = min(max(float(scrub), 0.0), clip.clip.duration)
        frame = clip.frame(playhead)
        if not interpolate:
            frame = math.floor(frame + 1e-6)
        self._shown = clip.anim
        if path == "stadium":
            self.rig.pose(clip.anim, frame, clip.wrap)
            return
        if scrub is not None:
            self.instance.set_playhead(self.graph.clip_nodes[role], playhead)
        if not interpolate:
            # every clip's playhead on its 30 Hz frame: what the rig would show unblended
            for r, k in self.graph.clip_nodes.items():
                t = math.floor(self.instance.playhead(k) * pack.FPS + 1e-6) / pack.FPS
                self.instance.set_playhead(k, min(t, self.rts.clips[r].clip.duration))
        pose = self.pose_buffer
        self.instance.evaluate(pose)
        pose.compute_model(self.rts.skeleton)
        falling = role == "faint" and self._falling_path() and path == "runtime"
        if self.secondary is not None and not (falling and self.fall is not None):
            # a held faint holds: its springs stay where they came to rest; a fall starts
            # from the pose as it would be shown, springs and all, moving as the last did
            held = role == "faint" and playhead >= clip.clip.duration
            self.secondary.apply(pose, self._dt, role, self.look_target, advance and not held)
        if falling:
            self._fall_step(pose, advance)
        if advance:
            self._previous.copy_from(pose)
            self._has_previous = True
        self.rig.set_chains(*self.rts.chains(pose), self.rig.shown_frame(clip.anim, frame, clip.wrap))

    def _fall_step(self, pose: rt.Pose, advance: bool) -> None:
        """The faint's pose from the engine: started on the first faint step from this pose
        moving as the last step's was, stepped (advancing steps only) toward the clip."""
        if self.fall is None:
            self.fall = Fall(self.rts, pose, self._previous if self._has_previous else None,
                             self._dt)
        paused = self.secondary is not None and self.secondary.switches.paused
        if advance and not paused:              # the debugger's pause holds the fall too
            self.fall.step(pose, self._dt)
        self.fall.pose_into(pose)

    def release(self) -> None:
        self.rig.release()

    # ------------------------------------------------------------ saving

    def save(self) -> dict:
        return {"species": self.species.name, "pose_path": self.pose_path, "blend": self.blend,
                "graph": bytes(self.instance.save()).hex(), "visible": self.visible,
                "flash_time": self.flash_time, "flash": self.flash, "steps": self.steps,
                "dt": self._dt, "anchor_before": self._anchor_before,
                "anchor_after": self._anchor_after,
                "secondary": None if self.secondary is None else self.secondary.save(),
                "look_target": None if self.look_target is None else
                [float(v) for v in self.look_target],
                "fall": None if self.fall is None else self.fall.save(),
                "previous": bytes(self._previous.buffer).hex() if self._has_previous else None}

    def restore(self, state: dict) -> None:
        self.instance.restore(bytes.fromhex(state["graph"]))
        self.visible = bool(state["visible"])
        self.flash_time = state["flash_time"]
        self.flash = float(state["flash"])
        self.steps = int(state["steps"])
        self._dt = float(state["dt"])
        self._anchor_before = state["anchor_before"]
        self._anchor_after = state["anchor_after"]
        target = state.get("look_target")
        self.look_target = None if target is None else tuple(float(v) for v in target)
        if self.secondary is not None and state.get("secondary") is not None:
            self.secondary.restore(state["secondary"])
        previous = state.get("previous")
        self._has_previous = previous is not None
        if previous is not None:
            saved = np.frombuffer(bytes.fromhex(previous), np.uint8)
            if saved.size != self._previous.buffer.size:
                raise BadInput(f"a saved {self.species.name}'s last pose of {saved.size} bytes, "
                               f"not {self._previous.buffer.size}")
            self._previous.buffer[...] = saved
        self.fall = None
        if state.get("fall") is not None:
            sk = self.rts.skeleton
            self.pose_buffer.set_rest(sk)
            self.pose_buffer.compute_model(sk)
            self.fall = Fall(self.rts, self.pose_buffer, None, 0.0)
            self.fall.restore(state["fall"])
        # the rig holds no pose yet: show the saved step again (no time passes)
        self.present(None)
