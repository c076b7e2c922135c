"""The product around the battle: the viewer (one Game for a window and headless runs), the
launch run_battle.py calls, the HUD, goldens and the Dear ImGui debugger."""
