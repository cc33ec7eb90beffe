# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(state: R.Tensor((16,), dtype="float32"), A: R.Tensor((16, 16), dtype="float32"), B: R.Tensor((16, 16), dtype="float32")) -> R.Tuple(R.Tensor((16,), dtype="float32"), R.Tensor((16,), dtype="float32")):
        lhs: R.Tensor((32, 16), dtype="float32") = R.concat((A, B), axis=0)
        proj_concat: R.Tensor((32,), dtype="float32") = R.matmul(lhs, state, out_dtype=None)
        proj_A: R.Tensor((16,), dtype="float32") = R.strided_slice(proj_concat, (0,), (0,), (16,), assume_inbound=False)
        proj_B: R.Tensor((16,), dtype="float32") = R.strided_slice(proj_concat, (0,), (16,), (32,), assume_inbound=False)
        return (proj_A, proj_B)
