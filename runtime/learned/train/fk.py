"""Forward kinematics of the Decompressor's poses and its backward pass, for Holden's losses
in model space: every bone's local rotation from its two matrix columns (Gram-Schmidt, as
the model's evaluation rebuilds it), then parent by parent its model-space rotation matrix
and position. Scale is left out: the chain is the rigid one Holden's losses walk.

A pose row is the Decompressor's first 9 * bones outputs (per bone its translation, then
its rotation's first and second columns); `parents` (int64) gives each bone's parent, -1
at a root, every parent before its children. Loops run in one fixed order (core/jit).
"""
from __future__ import annotations

import math

import numpy as np

from ...core.jit import kernel

TINY = 1e-12                # a column's length is never divided by less


@kernel
def forward(pose, parents, local, pos, rot):
    """local (rows, bones, 3, 3) each bone's rotation matrix (its columns x, y, x cross y);
    pos (rows, bones, 3) and rot (rows, bones, 3, 3) its model-space position and rotation."""
    bones = parents.size
    for r in range(pose.shape[0]):
        for b in range(bones):
            o = 9 * b
            na = 0.0
            for i in range(3):
                na += pose[r, o + 3 + i] * pose[r, o + 3 + i]
            na = max(math.sqrt(na), TINY)
            xb = 0.0
            for i in range(3):
                local[r, b, i, 0] = pose[r, o + 3 + i] / na
                xb += local[r, b, i, 0] * pose[r, o + 6 + i]
            nu = 0.0
            for i in range(3):
                u = pose[r, o + 6 + i] - xb * local[r, b, i, 0]
                local[r, b, i, 1] = u
                nu += u * u
            nu = max(math.sqrt(nu), TINY)
            for i in range(3):
                local[r, b, i, 1] /= nu
            x, y = local[r, b, :, 0], local[r, b, :, 1]
            local[r, b, 0, 2] = x[1] * y[2] - x[2] * y[1]
            local[r, b, 1, 2] = x[2] * y[0] - x[0] * y[2]
            local[r, b, 2, 2] = x[0] * y[1] - x[1] * y[0]
            p = parents[b]
            if p < 0:
                for i in range(3):
                    pos[r, b, i] = pose[r, o + i]
                    for j in range(3):
                        rot[r, b, i, j] = local[r, b, i, j]
                continue
            for i in range(3):
                s = pos[r, p, i]
                for k in range(3):
                    s += rot[r, p, i, k] * pose[r, o + k]
                pos[r, b, i] = s
                for j in range(3):
                    s = 0.0
                    for k in range(3):
                        s += rot[r, p, i, k] * local[r, b, k, j]
                    rot[r, b, i, j] = s


@kernel
def backward(pose, parents, local, rot, dpos, drot, dpose):
    """Adds into dpose (rows, 9 * bones) the gradient of sum(dpos * pos + drot * rot);
    dpos and drot are used as scratch (the gradients carried down to each parent)."""
    bones = parents.size
    dl = np.empty((3, 3))
    du = np.empty(3)
    for r in range(pose.shape[0]):
        for b in range(bones - 1, -1, -1):
            o = 9 * b
            p = parents[b]
            if p < 0:
                for i in range(3):
                    dpose[r, o + i] += dpos[r, b, i]
                    for j in range(3):
                        dl[i, j] = drot[r, b, i, j]
            else:
                for k in range(3):
                    s = 0.0
                    for i in range(3):
                        s += rot[r, p, i, k] * dpos[r, b, i]
                    dpose[r, o + k] += s
                    for j in range(3):
                        s = 0.0
                        for i in range(3):
                            s += rot[r, p, i, k] * drot[r, b, i, j]
                        dl[k, j] = s
                for i in range(3):
                    dpos[r, p, i] += dpos[r, b, i]
                    for k in range(3):
                        s = dpos[r, b, i] * pose[r, o + k]
                        for j in range(3):
                            s += drot[r, b, i, j] * local[r, b, k, j]
                        drot[r, p, i, k] += s
            # through z = x cross y, then Gram-Schmidt, to the two columns
            x, y = local[r, b, :, 0], local[r, b, :, 1]
            dz = dl[:, 2]
            dl[0, 0] += y[1] * dz[2] - y[2] * dz[1]
            dl[1, 0] += y[2] * dz[0] - y[0] * dz[2]
            dl[2, 0] += y[0] * dz[1] - y[1] * dz[0]
            dl[0, 1] += dz[1] * x[2] - dz[2] * x[1]
            dl[1, 1] += dz[2] * x[0] - dz[0] * x[2]
            dl[2, 1] += dz[0] * x[1] - dz[1] * x[0]
            na, xb, ydy = 0.0, 0.0, 0.0
            for i in range(3):
                na += pose[r, o + 3 + i] * pose[r, o + 3 + i]
                xb += x[i] * pose[r, o + 6 + i]
                ydy += y[i] * dl[i, 1]
            na = max(math.sqrt(na), TINY)
            nu = 0.0
            for i in range(3):
                u = pose[r, o + 6 + i] - xb * x[i]
                nu += u * u
            nu = max(math.sqrt(nu), TINY)
            xdu = 0.0
            for i in range(3):
                du[i] = (dl[i, 1] - y[i] * ydy) / nu
                xdu += x[i] * du[i]
            xdx = 0.0
            for i in range(3):
                dpose[r, o + 6 + i] += du[i] - x[i] * xdu
                dl[i, 0] += -xb * du[i] - pose[r, o + 6 + i] * xdu
                xdx += x[i] * dl[i, 0]
            for i in range(3):
                dpose[r, o + 3 + i] += (dl[i, 0] - x[i] * xdx) / na
