# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tuple(R.Tensor((m, n)))) -> R.Tensor(ndim=2):
        o = T.int64()
        p = T.int64()
        y: R.Tuple(R.Tensor((m, n))) = x
        z: R.Tuple(R.Tensor((o, p))) = R.match_cast(x, R.Tuple(R.Tensor((o, p))))
        w: R.Tuple(R.Tensor((o, p))) = z
        gv3: R.Tensor((o, p)) = w[0]
        gv4: R.Tensor((m, n)) = y[0]
        q: R.Tensor(ndim=2) = R.add(gv3, gv4)
        gv6: R.Tensor((o, p)) = w[0]
        gv7: R.Tensor(ndim=2) = R.add(q, gv6)
        return gv7
