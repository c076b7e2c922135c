"""Physics the library does itself: spring bones after VRMC_springBone 1.0, stepped at a
fixed rate whatever the host's (spring, built by spring_build, stepped by kernels)."""
from .spring import SpringSet, SpringState
from .spring_build import (ColliderShape, ColliderSource, JointSource, SpringLimitKind, LimitSource,
                           SpringSetSource, SpringSource, build_spring_set)

__all__ = ["SpringSet", "SpringState", "ColliderShape", "ColliderSource", "JointSource",
           "SpringLimitKind", "LimitSource", "SpringSetSource", "SpringSource", "build_spring_set"]
