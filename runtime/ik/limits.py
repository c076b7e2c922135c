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
# holds a unit quaternion to about 6e-8 a component, and re-solving a solve's own result
# finds corrections of up to some 1e-6 rad (a nearly straight chain's acos amplifies the
# rounding; 1 case in 10,000 random two-bone problems went past 5e-6): rounding, not
# motion. 1e-5 rad moves a chain's end by 1e-5 of its length.
KEEP_ANGLE = 1e-5
# A two-bone or aim solve reached its goal when the end (the forward line) lies within this
# fraction of the chain's length (of the goal's distance) from it: past what the turns
# KEEP_ANGLE leaves unwritten can leave (two bones' worth).
REACH = 3e-5
