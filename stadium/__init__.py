"""Stadium: the battle renderer that shows the runtime off (ARCHITECTURE.md). rig: species
packs and the CPU rig; battle: the rules and the battlers on animation graphs; render: the
LÖVE-style layer and the Voxel3D passes; app: the viewer, its window, headless runs and the
debugger."""
