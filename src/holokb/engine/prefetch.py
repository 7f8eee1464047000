"""A cache-prefetch hint for the compiled kernels (:mod:`.kernels`), imported only when they load.

Defined at module level (not inside :func:`.kernels._define`) so that numba's on-disk cache can
name it: kernels that call an intrinsic made afresh per load missed the cache every time.
"""
from __future__ import annotations

from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def prefetch(typingctx, arr, i):
    """``prefetch(array, i)``: ask the CPU to load ``array[i]`` into the cache (``llvm.prefetch``)."""
    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]], wraparound=False)
        i8p = ir.IntType(8).as_pointer()
        i32 = ir.IntType(32)
        fn = cgutils.get_or_insert_function(builder.module, ir.FunctionType(ir.VoidType(), [i8p, i32, i32, i32]),
                                            "llvm.prefetch.p0")
        # (address, for a write, locality 3 = keep in every cache level, data cache)
        builder.call(fn, [builder.bitcast(ptr, i8p), i32(1), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.void(arr, i), codegen


@njit(inline="always")
def no_prefetch(arr, i):
    """The fallback when this LLVM does not take the intrinsic."""
