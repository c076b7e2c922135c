"""The BVH reader: forward kinematics through the built skeleton and clip against forward
kinematics straight from the file's Euler angles (a plain numpy reference), on every frame
of the staged Bandai Namco mocap and on a hand-written file of odd channel orders; hostile
text refused with a FormatError placed at its line and column."""
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

import runtime as rt
from runtime.importers import BvhFormatError, BvhImport, load_bvh, read_bvh

MOCAP = Path(__file__).resolve().parents[1].parent / "shared" / "testdata" / "mocap" / "bandai-namco-2"
FILES = sorted(MOCAP.glob("*.bvh")) if MOCAP.is_dir() else []
POSITION_TOLERANCE = 1e-4      # centimetres, the bound
ROTATION_TOLERANCE = 1e-6      # model rotation matrices' entries: binary32 keys, 7 deep
# The runtime composes its model in binary32, whose spacing at the 460 cm the walks reach is
# 3.05e-5 cm, and a toe's position is rounded at each of its six ancestors: 8 such spacings.
RUNTIME32_TOLERANCE = 2.5e-4

ODD = """HIERARCHY
ROOT hips
{
  OFFSET 1 2 3
  CHANNELS 6 Yrotation Xposition Zrotation Zposition Xrotation Yposition
  JOINT spine
  {
    OFFSET 0 10 0
    CHANNELS 3 Xrotation Yrotation Zrotation
    JOINT head
    {
      OFFSET 0 5 1
      CHANNELS 2 Yposition Zrotation
      End Site
      {
        OFFSET 0 3 0
      }
    }
  }
  JOINT leg
  {
    OFFSET 2 -1 0
    CHANNELS 4 Zposition Yrotation Xrotation Xposition
    JOINT foot
    {
      OFFSET 0 -9 0
      CHANNELS 0
    }
  }
}
ROOT prop
{
  OFFSET 5 0 0
  CHANNELS 1 Xrotation
}
MOTION
Frames: 3
Frame Time: 0.1
10 1 20 3 30 2   5 -15 25   6.5 70   -4 100 -60 1.25   45
-170 -2 190 4 -30 2.5   95 10 -5   7 -120   4 80 60 0.5   -45
185 3 -10 0 89 3   -95 170 35   8 10   0 -100 -90 0   135
"""


# ---- the reference: Euler angles straight to matrices ----------------------------------------
def _axis_matrices(axis: int, degrees: np.ndarray) -> np.ndarray:
    a = np.radians(degrees)
    c, s = np.cos(a), np.sin(a)
    m = np.zeros(a.shape + (3, 3))
    i, j = [(1, 2), (2, 0), (0, 1)][axis]
    m[..., axis, axis] = 1
    m[..., i, i] = c
    m[..., j, j] = c
    m[..., i, j] = -s
    m[..., j, i] = s
    return m


def reference_fk(text: str) -> tuple[list[str], np.ndarray]:
    """Joint names and (frames, joints, 4, 4) model matrices, read from the text by a parser of
    its own: each joint's matrix its parent's times T(offset, positions replacing its axes)
    times the rotation matrices in channel order, binary64."""
    tokens = text.split()
    i = tokens.index("MOTION")
    joints = []      # (name, parent, offset, channels)
    stack, k = [], 0
    while k < i:
        tok = tokens[k]
        if tok in ("ROOT", "JOINT"):
            joints.append([tokens[k + 1], stack[-1] if stack else -1, None, []])
            stack.append(len(joints) - 1)
            k += 3
        elif tok == "OFFSET":
            if stack[-1] is not None:       # an End Site's offset makes no joint
                joints[stack[-1]][2] = np.array(tokens[k + 1:k + 4], float)
            k += 4
        elif tok == "CHANNELS":
            n = int(tokens[k + 1])
            joints[stack[-1]][3] = tokens[k + 2:k + 2 + n]
            k += 2 + n
        elif tok == "End":
            stack.append(None)
            k += 3
        elif tok == "}":
            stack.pop()
            k += 1
        else:
            k += 1
    frames = int(tokens[i + 2])
    data = np.array(tokens[i + 6:], float).reshape(frames, -1)
    out = np.zeros((frames, len(joints), 4, 4))
    col = 0
    for b, (name, parent, offset, channels) in enumerate(joints):
        local = np.tile(np.eye(4), (frames, 1, 1))
        local[:, :3, 3] = offset
        for ch in channels:
            axis = "XYZ".index(ch[0])
            if ch.endswith("position"):
                local[:, axis, 3] = data[:, col]
            else:
                local[:, :3, :3] = local[:, :3, :3] @ _axis_matrices(axis, data[:, col])
            col += 1
        out[:, b] = local if parent < 0 else out[:, parent] @ local
    return [j[0] for j in joints], out


def runtime_fk(imported: BvhImport) -> tuple[np.ndarray, np.ndarray]:
    """Model matrices from the clip the runtime builds, sampled at each frame's time as the
    clip keeps it (k over its rate, the last its end): (frames, joints, 4, 4) composed in
    binary64 from the sampled locals, and (frames, joints, 3, 4) as the runtime composes
    them, in binary32."""
    skeleton = imported.clip_source.skeleton
    clip = rt.Clip.open(rt.build_clip(rt.Builder(), imported.clip_source))
    assert abs(clip.sample_rate * imported.frame_time - 1) < 1e-6
    times = np.arange(imported.frame_count) / clip.sample_rate
    times[-1] = clip.duration
    batch = rt.PoseBatch(skeleton, imported.frame_count)
    clip.sample_batch(skeleton, times, batch)
    batch.compute_model(skeleton)
    locals_ = batch.locals.astype(np.float64)
    x, y, z, w = np.moveaxis(locals_[..., 3:7], -1, 0)
    local = np.zeros(locals_.shape[:2] + (4, 4))
    local[..., :3, :3] = np.stack([
        1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
        2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
        2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1).reshape(x.shape + (3, 3))
    local[..., :3, :3] *= locals_[..., None, 7:10]
    local[..., :3, 3] = locals_[..., :3]
    local[..., 3, 3] = 1
    model = np.zeros_like(local)
    for b in range(skeleton.bone_count):
        p = skeleton.parent(b)
        model[:, b] = local[:, b] if p == rt.NO_BONE else model[:, p] @ local[:, b]
    return model, batch.model.astype(np.float64)


def check_fk(text: str) -> tuple[float, float, float]:
    """The largest position error of the sampled clip's forward kinematics (binary64), of its
    rotations, and of the runtime's own binary32 model positions."""
    imported = read_bvh(text)
    names, want = reference_fk(text)
    assert list(imported.joint_names) == names
    exact, runtime32 = runtime_fk(imported)
    position = np.abs(exact[..., :3, 3] - want[..., :3, 3]).max()
    rotation = np.abs(exact[..., :3, :3] - want[..., :3, :3]).max()
    position32 = np.abs(runtime32[..., 3] - want[..., :3, 3]).max()
    return position, rotation, position32


def test_odd_channel_orders_and_positions_on_any_joint():
    position, rotation, position32 = check_fk(ODD)
    assert position <= POSITION_TOLERANCE and rotation <= ROTATION_TOLERANCE
    assert position32 <= RUNTIME32_TOLERANCE
    imported = read_bvh(ODD)
    assert imported.frame_count == 3 and imported.frame_time == 0.1
    assert imported.joint_names == ("hips", "spine", "head", "leg", "foot", "prop")
    skeleton = imported.clip_source.skeleton
    assert skeleton.bone_count == 6          # End Sites are not bones
    assert [skeleton.parent(b) for b in range(6)] == [rt.NO_BONE, 0, 1, 0, 3, rt.NO_BONE]
    assert np.allclose(skeleton.rest(2)[:3], (0, 5, 1))


def test_reference_catches_a_wrong_order():
    """The comparison can fail: the same angles applied in reverse order move the joints."""
    reversed_text = ODD.replace("CHANNELS 3 Xrotation Yrotation Zrotation",
                                "CHANNELS 3 Zrotation Yrotation Xrotation")
    imported = read_bvh(reversed_text)
    _, want = reference_fk(ODD)
    assert np.abs(runtime_fk(imported)[0][..., :3, 3] - want[..., :3, 3]).max() > 1.0


@pytest.mark.skipif(not FILES, reason="../shared/testdata/mocap is absent (developers' machines only)")
def test_every_staged_file_every_frame():
    assert len(FILES) == 44
    frames = 0
    for path in FILES:
        text = path.read_text()
        position, rotation, position32 = check_fk(text)
        assert position <= POSITION_TOLERANCE, (path.name, position)
        assert rotation <= ROTATION_TOLERANCE, (path.name, rotation)
        assert position32 <= RUNTIME32_TOLERANCE, (path.name, position32)
        imported = load_bvh(path)
        assert len(imported.joint_names) == 22 and imported.frame_time == 0.0333333
        frames += imported.frame_count
    assert frames == 6675


# ---- refusals ---------------------------------------------------------------------------------
def refusal(text):
    with pytest.raises(BvhFormatError) as info:
        read_bvh(text)
    return info.value


@pytest.mark.parametrize("old,new,line,column", [
    ("HIERARCHY", "HIERARCHX", 1, 1),
    ("OFFSET 1 2 3", "OFFSET 1 2 x3", 4, 14),
    ("OFFSET 0 10 0", "OFFSET 0 nan 0", 8, 14),
    ("CHANNELS 3 Xrotation", "CHANNELS 3 Wrotation", 9, 16),
    ("CHANNELS 3 Xrotation Yrotation", "CHANNELS 3 Xrotation Xrotation", 9, 26),
    ("CHANNELS 2 Yposition", "CHANNELS 7 Yposition", 13, 16),
    ("      End Site", "      End Sight", 14, 11),
    ("Frames: 3", "Frames: 0", 37, 9),
    ("Frame Time: 0.1", "Frame Time: -0.1", 38, 13),
    ("Frame Time: 0.1", "Frame Time: 0", 38, 13),
    ("185 3 -10", "185 3 -1e400", 41, 7),
    ("185 3 -10", "185 3 inf", 41, 7),
    ("10 1 20", "10 1 2O", 39, 6),
    ("JOINT leg", "JOINT spine", 20, 9),           # a name given twice
    ("ROOT prop", "ROOT " + "p" * 256, 31, 6),       # a name past MAX_NAME_BYTES
    ("  CHANNELS 1 Xrotation\n}", "  CHANNELS 1 Xrotation\n", 36, 1),
])
def test_refusals_name_the_line_and_column(old, new, line, column):
    assert ODD.count(old) == 1
    text = ODD.replace(old, new)
    e = refusal(text)
    assert (e.line, e.column) == (line, column), str(e)
    assert isinstance(e, rt.FormatError)
    lines = text.split("\n")
    assert e.offset == sum(len(s.encode()) + 1 for s in lines[:line - 1]) + column - 1


def test_frame_counts_that_do_not_fit_the_numbers():
    assert (refusal(ODD + "1\n").line, refusal(ODD + "1\n").column) == (42, 1)
    short = ODD.rsplit(" ", 1)[0] + "\n"
    assert refusal(short).line == 42
    assert refusal(ODD.replace("Frames: 3", "Frames: 99999999")).column == 9


def test_bytes_are_utf8_and_offsets_are_bytes():
    text = ODD.replace("JOINT spine", "JOINT épine")
    assert read_bvh(text.encode()).joint_names[1] == "épine"
    bad = text.encode().replace(b"\xc3\xa9", b"\xc3(")
    e = refusal(bad)
    assert (e.line, e.column, e.offset) == (6, 9, bad.index(b"\xc3("))
    e = refusal(text.replace("OFFSET 0 10 0", "OFFSET 0 1O 0"))
    assert e.offset == text.encode().index(b"OFFSET 0 10 0") + 9 and e.column == 14
    with pytest.raises(rt.FormatError):
        read_bvh(12)


def test_deep_nesting_is_a_limit_not_a_recursion_error():
    deep = "HIERARCHY\nROOT r\n{\nOFFSET 0 0 0\nCHANNELS 0\n" + \
        "JOINT j\n{\nOFFSET 0 1 0\nCHANNELS 0\n" * 2000
    e = refusal(deep)
    assert "more than 1024 joints" in str(e)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_fuzzed_text_is_read_or_refused_with_a_format_error(data):
    """Bytes changed, cut or inserted anywhere: read (and then the clip builds), or a
    FormatError; never another exception."""
    raw = bytearray(ODD.encode())
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(raw) - 1))
        kind = data.draw(st.sampled_from(["set", "cut", "insert"]))
        b = data.draw(st.sampled_from(list(b" \n{}-.e0123456789xXYZ\xff") + [data.draw(st.integers(0, 255))]))
        if kind == "set":
            raw[at] = b
        elif kind == "cut":
            del raw[at:at + data.draw(st.integers(1, 40))]
        else:
            raw[at:at] = bytes([b])
    try:
        imported = read_bvh(bytes(raw))
    except rt.FormatError as e:
        assert isinstance(e, BvhFormatError) and 0 <= e.offset <= len(raw)
        return
    clip = rt.Clip.open(rt.build_clip(rt.Builder(), imported.clip_source))
    assert clip.duration >= 0
