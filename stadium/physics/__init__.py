"""The product's physics: runtime's ragdoll profiles on a real engine (MuJoCo). Only this
package imports the engine; runtime never simulates (ragdoll_engine)."""
from .ragdoll_engine import RagdollEngine

__all__ = ["RagdollEngine"]
