"""Roam mode: before the battle the player walks the trainer around the village, its
locomotion chosen by motion matching over the staged mocap (runtime.matching)."""
