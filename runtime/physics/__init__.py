"""Physics the library does itself: spring bones after VRMC_springBone 1.0, stepped at a
fixed rate whatever the host's (spring, built by spring_build, stepped by kernels); and
ragdoll profiles, data a host maps onto its own engine (ragdoll, built by ragdoll_build,
its moves between poses and bodies in ragdoll_kernels)."""
from .ragdoll import Ragdoll, RagdollBody, RagdollGetUp, RagdollGround
from .ragdoll_build import BodySource, RagdollShape, RagdollSource, build_ragdoll
from .spring import SpringSet, SpringState
from .spring_build import (ColliderShape, ColliderSource, JointSource, SpringLimitKind, LimitSource,
                           SpringSetSource, SpringSource, build_spring_set)

__all__ = ["SpringSet", "SpringState", "ColliderShape", "ColliderSource", "JointSource",
           "SpringLimitKind", "LimitSource", "SpringSetSource", "SpringSource", "build_spring_set",
           "Ragdoll", "RagdollBody", "RagdollGetUp", "RagdollGround", "BodySource",
           "RagdollShape", "RagdollSource", "build_ragdoll"]
