"""ik.h's documented limits (module attributes of runtime.capi too), chosen once.

MAX_IK_CHAIN_BONES bounds a CCD or FABRIK chain, root and end included: 32 covers a tail, a
tentacle or a spine with neck and head, and keeps a sweep's recomposition of the bones below
each turned one (quadratic in the chain) under a microsecond a bone. MAX_IK_ITERATIONS bounds
any solver's iterations (the full-body solvers share it): past a few hundred a solve that has
not converged will not, and the count only buys time. MAX_AIM_BONES is a look-at's spine,
chest, neck, head and eyes with room to spare. AIM_MAX_CONE is the widest cone there is: a
half-angle of pi lets the forward turn anywhere."""
import math

from ..core.limits import MAX_IK_CHAIN_BONES  # noqa: F401 - retarget chains share it
MAX_IK_ITERATIONS = 256         # MANI_MAX_IK_ITERATIONS
MAX_AIM_BONES = 8               # MANI_MAX_AIM_BONES
AIM_MAX_CONE = math.pi          # MANI_AIM_MAX_CONE, radians

# A turn of a bone under this many radians is not written: the bone keeps its bits. Binary32
# holds a unit quaternion to about 6e-8 a component, so re-solving a solve's own result finds
# corrections of a few 1e-7 rad that are rounding, not motion; 2e-6 rad moves a chain's end
# by 2e-6 of its length, five times finer than REACH.
KEEP_ANGLE = 2e-6
# A two-bone or aim solve reached its goal when the end (the forward line) lies within this
# fraction of the chain's length (of the goal's distance) from it.
REACH = 1e-5
