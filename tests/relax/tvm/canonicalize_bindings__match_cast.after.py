# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor) -> R.Tensor(ndim=2):
        m = T.int64()
        n = T.int64()
        z: R.Tensor((m, n)) = R.match_cast(x, R.Tensor((m, n)))
        return z
