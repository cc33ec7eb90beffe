# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @T.prim_func(private=True, s_tir=True)
    def product(A: T.Buffer((16, 16), "int32"), B: T.Buffer((16, 16), "int32"), C: T.Buffer((16, 16), "int32")):
        # with T.sblock("root"):
        for iters_0, iters_1 in T.grid(16, 16):
            with T.sblock("compute"):
                i, j = T.axis.remap("SS", [iters_0, iters_1])
                T.reads(A[i, j], B[i, j])
                T.writes(C[i, j])
                C[i, j] = A[i, j] * B[i, j]

    @T.prim_func(private=True, s_tir=True)
    def sum(A: T.Buffer((16, 16), "int32"), B: T.Buffer((16, 16), "int32"), C: T.Buffer((16, 16), "int32")):
        # with T.sblock("root"):
        for iters_0, iters_1 in T.grid(16, 16):
            with T.sblock("compute"):
                i, j = T.axis.remap("SS", [iters_0, iters_1])
                T.reads(A[i, j], B[i, j])
                T.writes(C[i, j])
                C[i, j] = A[i, j] + B[i, j]

    @R.function
    def main(A: R.Tensor((16, 16), dtype="int32"), B: R.Tensor((16, 16), dtype="int32")) -> R.Tuple(R.Tensor((16, 16), dtype="int32"), R.Tensor((16, 16), dtype="int32")):
        cls = Module
        Prod = R.call_tir(cls.product, (A, B), out_ty=R.Tensor((16, 16), dtype="int32"))
        Sum = R.call_tir(cls.sum, (A, B), out_ty=R.Tensor((16, 16), dtype="int32"))
        return (Prod, Sum)