"""Binary32 lanes for the pose kernels: a bone's local block and its model matrix (compose),
a pose row's interpolation (clip sampling).

numba compiles with LLVM's loop vectorizer but not its SLP vectorizer, so a row of numbers
worked column by column stays one scalar operation a column. These intrinsics do the same
IEEE operations in the same order on <4 x float> lanes (no fastmath: no contraction, no
reassociation), so every lane gives the bits its scalar operation gives. Kernels call them;
they are compiled into each caller.
"""
from __future__ import annotations

from llvmlite import ir
from numba import types
from numba.extending import intrinsic

_I32 = ir.IntType(32)
_I64 = ir.IntType(64)
_F32 = ir.FloatType()


def _rows_type(t) -> bool:
    return isinstance(t, types.Array) and t.dtype == types.float32 and t.ndim == 2


def _row(context, builder, ty, value, index):
    """The float* to row `index` of an (n, 10) binary32 array, by its row stride in bytes
    (a batch's poses are rows of one buffer: their locals are not C-contiguous as a whole,
    each pose's are)."""
    ary = context.make_array(ty)(context, builder, value)
    stride = builder.extract_value(ary.strides, 0)
    at = builder.gep(builder.bitcast(ary.data, ir.IntType(8).as_pointer()),
                     [builder.mul(index, stride)])
    return builder.bitcast(at, _F32.as_pointer())


def _splat(builder, value, lanes: int):
    vector = ir.VectorType(_F32, lanes)
    one = builder.insert_element(ir.Constant(vector, ir.Undefined), value, ir.Constant(_I32, 0))
    return builder.shuffle_vector(one, one, ir.Constant(ir.VectorType(_I32, lanes), [0] * lanes))


def _lanes(builder, pointer, start: int, lanes: int):
    """Columns start .. start + lanes - 1 of a row, as a <lanes x float> pointer."""
    at = builder.gep(pointer, [ir.Constant(_I64, start)])
    return builder.bitcast(at, ir.VectorType(_F32, lanes).as_pointer())


@intrinsic
def lerp_row(typingctx, out, k, a, ra, b, rb, f, norm):
    """out[k] = a[ra] + (b[rb] - a[ra]) * f, its rotation (columns 3 to 6) then divided by
    `norm` (binary32 throughout; x / 1 is x, so columns divided by 1 keep their bits, and
    they are results of arithmetic, NaN quiet already). Every array (n, 10) with a row's
    numbers adjacent (4 bytes apart, as in every pose's locals and clip's samples); the
    caller keeps the rows in bounds."""
    if not (_rows_type(out) and _rows_type(a) and _rows_type(b) and out.mutable):
        return None
    sig = types.none(out, k, a, ra, b, rb, f, norm)

    def codegen(context, builder, signature, args):
        tys = signature.args

        def row(n):
            index = context.cast(builder, args[n + 1], tys[n + 1], types.int64)
            return _row(context, builder, tys[n], args[n], index)
        po, pa, pb = row(0), row(2), row(4)
        f32 = context.cast(builder, args[6], tys[6], types.float32)
        n4 = _splat(builder, context.cast(builder, args[7], tys[7], types.float32), 4)
        ones = _splat(builder, ir.Constant(_F32, 1.0), 4)
        mask = ir.VectorType(_I32, 4)
        first = builder.shuffle_vector(ones, n4, ir.Constant(mask, [0, 1, 2, 4]))   # 1 1 1 n
        second = builder.shuffle_vector(n4, ones, ir.Constant(mask, [0, 1, 2, 4]))  # n n n 1
        for start, lanes, divisor in ((0, 4, first), (4, 4, second), (8, 2, None)):
            va = builder.load(_lanes(builder, pa, start, lanes), align=4)
            vb = builder.load(_lanes(builder, pb, start, lanes), align=4)
            v = builder.fadd(va, builder.fmul(builder.fsub(vb, va), _splat(builder, f32, lanes)))
            if divisor is not None:
                v = builder.fdiv(v, divisor)
            builder.store(v, _lanes(builder, po, start, lanes), align=4)
        return context.get_dummy_value()
    return sig, codegen


def _shuffle(builder, a, b, lanes):
    return builder.shuffle_vector(a, b, ir.Constant(ir.VectorType(_I32, 4), lanes))


def _block(builder, row):
    """The local's block from its row's float*: three <4 x float> rows, the rotation's
    homogeneous matrix with column j times s_j, then the translation, each number by the
    scalar kernel's operations in its order: (((ww + xx) - yy) - zz) s_x on the diagonal
    (a - b as a + b (-1), the same bits), (2 (xy - zw)) s_y off it."""
    f4 = ir.VectorType(_F32, 4)
    q = builder.load(_lanes(builder, row, 3, 4), align=4)                          # x y z w
    t = builder.load(_lanes(builder, row, 0, 4), align=4)                          # tx ty tz x
    s = _shuffle(builder, *[builder.load(_lanes(builder, row, 6, 4), align=4)] * 2,
                 [1, 2, 3, 3])                                                   # sx sy sz
    sq = builder.fmul(q, q)
    lane = [_shuffle(builder, sq, sq, [k] * 4) for k in range(4)]               # xx yy zz ww
    signs = [ir.Constant(f4, v) for v in ([1.0, -1.0, -1.0, 1.0], [-1.0, 1.0, -1.0, 1.0],
                                          [-1.0, -1.0, 1.0, 1.0])]
    diagonal = lane[3]
    for k in range(3):
        diagonal = builder.fadd(diagonal, builder.fmul(lane[k], signs[k]))
    products = builder.fmul(_shuffle(builder, q, q, [0, 0, 1, 1]), _shuffle(builder, q, q, [1, 2, 2, 2]))
    others = builder.fmul(_shuffle(builder, q, q, [2, 1, 0, 0]), _shuffle(builder, q, q, [3, 3, 3, 3]))
    two = _splat(builder, ir.Constant(_F32, 2.0), 4)
    minus = builder.fmul(two, builder.fsub(products, others))    # 2(xy - zw) 2(xz - yw) 2(yz - xw)
    plus = builder.fmul(two, builder.fadd(products, others))     # 2(xy + zw) 2(xz + yw) 2(yz + xw)
    rows = (_shuffle(builder, _shuffle(builder, diagonal, minus, [0, 4, 0, 0]), plus, [0, 1, 5, 0]),
            _shuffle(builder, _shuffle(builder, diagonal, minus, [0, 1, 6, 0]), plus, [4, 1, 2, 0]),
            _shuffle(builder, _shuffle(builder, diagonal, minus, [5, 0, 2, 0]), plus, [0, 6, 2, 0]))
    return [_shuffle(builder, builder.fmul(r, s), t, [0, 1, 2, 4 + i]) for i, r in enumerate(rows)]


@intrinsic
def compose_bone(typingctx, locals_, model, b, p):
    """model[b] from the local in row b of locals_: its block where p is no lower bone (a
    root), else model[p] times it row by row, row i ((m_i0 r0 + m_i1 r1) + m_i2 r2) +
    (-0, -0, -0, m_i3) for the block's rows r0..r2, the scalar sum's order and bits (x +
    -0 is x, signed zeros and NaN included). locals_ (n, 10) and model (n, 3, 4), a row's
    numbers adjacent (a pose's, a batch's); p < b, so the parent's rows are read before any
    is written."""
    if not (_rows_type(locals_) and isinstance(model, types.Array) and model.ndim == 3
            and model.dtype == types.float32 and model.mutable):
        return None
    sig = types.none(locals_, model, b, p)

    def codegen(context, builder, signature, args):
        tys = signature.args
        bone = context.cast(builder, args[2], tys[2], types.int64)
        parent = context.cast(builder, args[3], tys[3], types.int64)
        block = _block(builder, _row(context, builder, tys[0], args[0], bone))
        ary = context.make_array(tys[1])(context, builder, args[1])
        data = builder.bitcast(ary.data, ir.IntType(8).as_pointer())
        strides = [builder.extract_value(ary.strides, d) for d in range(2)]

        def matrix_row(index, i):
            at = builder.add(builder.mul(index, strides[0]),
                             builder.mul(ir.Constant(_I64, i), strides[1]))
            return builder.bitcast(builder.gep(data, [at]), ir.VectorType(_F32, 4).as_pointer())
        with builder.if_else(builder.icmp_signed("<", parent, bone)) as (child, root):
            with child:
                above = [builder.load(matrix_row(parent, i), align=4) for i in range(3)]
                zeros = ir.Constant(ir.VectorType(_F32, 4), [-0.0] * 4)
                for i in range(3):
                    m = above[i]
                    acc = builder.fmul(_shuffle(builder, m, m, [0] * 4), block[0])
                    for k in (1, 2):
                        acc = builder.fadd(acc, builder.fmul(_shuffle(builder, m, m, [k] * 4),
                                                             block[k]))
                    last = _shuffle(builder, zeros, m, [0, 1, 2, 7])
                    builder.store(builder.fadd(acc, last), matrix_row(bone, i), align=4)
            with root:
                for i in range(3):
                    builder.store(block[i], matrix_row(bone, i), align=4)
        return context.get_dummy_value()
    return sig, codegen
