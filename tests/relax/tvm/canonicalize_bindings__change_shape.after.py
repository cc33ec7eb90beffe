# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor(ndim=2)) -> R.Tensor(ndim=2):
        o = T.int64()
        p = T.int64()
        z: R.Tensor((o, p)) = R.match_cast(x, R.Tensor((o, p)))
        q: R.Tensor(ndim=2) = R.add(z, x)
        gv4: R.Tensor(ndim=2) = R.add(q, z)
        return gv4
