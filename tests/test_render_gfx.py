"""The LÖVE-style layer: formats, meshes (one-write updates, vertex maps, draw ranges),
nearest images, canvases read top row first, and the letterbox of the present pass."""
import numpy as np
import pytest

from render_fixtures import gfx  # noqa: F401  (a fixture)
from stadium.render.gfx import VertexFormat
from stadium.paths import SHADERS
from stadium.render.post import Present, letterbox
from stadium.render.voxel3d import FACE_SHADE, FORMAT

FLAT = """#version 330 core
in vec2 position;
in float shade;
out float v_shade;
void main() { v_shade = shade; gl_Position = vec4(position, 0.0, 1.0); }
"""
FLAT_FRAG = """#version 330 core
in float v_shade;
out vec4 colour;
void main() { colour = vec4(v_shade, 0.0, 0.0, 1.0); }
"""


def test_the_voxel_format_is_six_interleaved_floats():
    assert FORMAT.attributes == (("position", 3), ("texcoord", 2), ("shade", 1))
    assert FORMAT.stride == 24


def test_face_shades_are_the_six_values():
    assert FACE_SHADE == {"+y": 1.00, "-y": 0.55, "+x": 0.84, "-x": 0.72,
                          "+z": 0.90, "-z": 0.68}


def test_a_format_rejects_nonsense():
    with pytest.raises(ValueError):
        VertexFormat([("position", 5)])


def _flat_program(gfx):
    return gfx.ctx.program(vertex_shader=FLAT, fragment_shader=FLAT_FRAG)


def _draw(gfx, mesh, program):
    canvas = gfx.new_canvas(8, 8)
    canvas.use()
    canvas.clear()
    mesh.draw(program)
    pixels = canvas.read_into(np.empty((8, 8, 3), np.uint8))
    canvas.release()
    return pixels


def test_a_mesh_skips_attributes_its_program_does_not_read(gfx):
    fmt = VertexFormat([("position", 2), ("unused", 3), ("shade", 1)])
    rows = np.zeros((3, 6), np.float32)
    rows[:, :2] = [(-1, -1), (3, -1), (-1, 3)]
    rows[:, 5] = 0.5
    mesh = gfx.new_mesh(fmt, rows)
    pixels = _draw(gfx, mesh, _flat_program(gfx))
    assert abs(int(pixels[4, 4, 0]) - 128) <= 1
    mesh.release()


def test_set_vertices_rewrites_in_one_write_and_the_map_picks_them(gfx):
    fmt = VertexFormat([("position", 2), ("shade", 1)])
    rows = np.array([[-1, -1, 0.2], [3, -1, 0.2], [-1, 3, 0.2], [9, 9, 0.0]], np.float32)
    mesh = gfx.new_mesh(fmt, rows, usage="dynamic")
    mesh.set_vertex_map(np.array([0, 1, 2], np.uint16))
    program = _flat_program(gfx)
    assert abs(int(_draw(gfx, mesh, program)[0, 0, 0]) - 51) <= 1
    rows[:, 2] = 1.0
    mesh.set_vertices(rows)
    assert _draw(gfx, mesh, program)[0, 0, 0] == 255
    with pytest.raises(ValueError):
        mesh.set_vertices(rows.astype(np.float64))
    with pytest.raises(ValueError):
        mesh.set_vertex_map(np.array([0, 1, 7]))
    mesh.release()


def test_a_draw_range_draws_part_of_the_map(gfx):
    fmt = VertexFormat([("position", 2), ("shade", 1)])
    # two triangles: the left half of the screen, then the right half
    rows = np.array([[-1, -1, 1], [0, -1, 1], [-1, 1, 1], [0, 1, 1],
                     [0, -1, 1], [1, -1, 1], [0, 1, 1], [1, 1, 1]], np.float32)
    mesh = gfx.new_mesh(fmt, rows)
    mesh.set_vertex_map(np.array([0, 1, 2, 1, 3, 2, 4, 5, 6, 5, 7, 6], np.uint32))
    mesh.set_draw_range(6, 6)
    pixels = _draw(gfx, mesh, _flat_program(gfx))
    assert pixels[4, 1, 0] == 0 and pixels[4, 6, 0] == 255
    mesh.set_draw_range()
    assert _draw(gfx, mesh, _flat_program(gfx))[4, 1, 0] == 255
    mesh.release()


def test_images_sample_nearest_and_keep_row_zero_on_top(gfx):
    rgba = np.zeros((2, 2, 4), np.uint8)
    rgba[0, 0] = (255, 0, 0, 255)     # top left red
    rgba[1, 1] = (0, 255, 0, 255)     # bottom right green
    image = gfx.new_image(rgba, repeat=False)
    canvas = gfx.new_canvas(16, 16, depth=False)
    present = Present(gfx)
    canvas.use()
    # the present pass puts texture row 0 at the bottom (GL's origin); reading the
    # canvas back flips it, so an image's top row comes back as the bottom row
    present.draw(image.texture, (0, 0, 16, 16))
    pixels = canvas.read_into(np.empty((16, 16, 3), np.uint8))
    assert tuple(pixels[15, 0]) == (255, 0, 0)
    assert tuple(pixels[0, 15]) == (0, 255, 0)
    # nearest: no blend at the middle of a texel
    colours = {tuple(c) for c in np.unique(pixels.reshape(-1, 3), axis=0).tolist()}
    assert colours <= {(255, 0, 0), (0, 255, 0), (0, 0, 0)}
    for item in (image, canvas, present):
        item.release()


@pytest.mark.parametrize("screen, expected", [
    ((160, 144), (0, 0, 160, 144)),
    ((640, 576), (0, 0, 640, 576)),
    ((800, 600), (80, 12, 640, 576)),
    ((1000, 300), (340, 6, 320, 288)),
    ((100, 100), (-30, -22, 160, 144)),
])
def test_letterbox_scales_by_whole_numbers_and_centres(screen, expected):
    assert letterbox((160, 144), screen) == expected


def test_shaders_are_glsl_330_core_files():
    for path in SHADERS.glob("*.*"):
        assert path.read_text().startswith("#version 330 core"), path.name
