"""Binary32 lanes for the pose kernels: a model matrix times a local's block (compose), a
pose row's interpolation (clip sampling).

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


@intrinsic
def parent_times(typingctx, model, b, p, row0, row1, row2):
    """model[b] = model[p] times the local's block, row by row as <4 x float>: row i is
    ((m_i0 r0 + m_i1 r1) + m_i2 r2) + (-0, -0, -0, m_i3), r0..r2 the block's rows (the
    rotation and scale's, the translation last) as 4-tuples of binary32, the order and
    bits of the scalar sum (x + -0 is x, signed zeros and NaN included). model is
    (n, 3, 4), a row's numbers adjacent (a pose's, a batch's); p < b, so the parent's rows
    are read before any is written."""
    if not (isinstance(model, types.Array) and model.dtype == types.float32 and model.ndim == 3
            and model.mutable):
        return None
    sig = types.none(model, b, p, row0, row1, row2)

    def codegen(context, builder, signature, args):
        tys = signature.args
        ary = context.make_array(tys[0])(context, builder, args[0])
        data = builder.bitcast(ary.data, ir.IntType(8).as_pointer())
        strides = [builder.extract_value(ary.strides, d) for d in range(2)]
        f4 = ir.VectorType(_F32, 4).as_pointer()

        def matrix_row(n, i):
            bone = context.cast(builder, args[n], tys[n], types.int64)
            at = builder.add(builder.mul(bone, strides[0]),
                             builder.mul(ir.Constant(_I64, i), strides[1]))
            return builder.bitcast(builder.gep(data, [at]), f4)
        block = []
        for k in range(3):
            v = ir.Constant(ir.VectorType(_F32, 4), ir.Undefined)
            for j in range(4):
                v = builder.insert_element(v, builder.extract_value(args[3 + k], j),
                                           ir.Constant(_I32, j))
            block.append(v)
        parent = [builder.load(matrix_row(2, i), align=4) for i in range(3)]
        zeros = ir.Constant(ir.VectorType(_F32, 4), [-0.0] * 4)
        mask = ir.VectorType(_I32, 4)
        for i in range(3):
            m = parent[i]
            acc = None
            for k in range(3):
                term = builder.fmul(builder.shuffle_vector(m, m, ir.Constant(mask, [k] * 4)),
                                    block[k])
                acc = term if acc is None else builder.fadd(acc, term)
            last = builder.shuffle_vector(zeros, m, ir.Constant(mask, [0, 1, 2, 7]))
            builder.store(builder.fadd(acc, last), matrix_row(1, i), align=4)
        return context.get_dummy_value()
    return sig, codegen
