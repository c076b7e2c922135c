"""Drawing: the LÖVE-style layer over moderngl (gfx/), the Voxel3D, shadow and post passes, the
diorama and its tiles, the battle camera, the hours of light and the pixel font. It draws
what it is given and knows no battle."""
