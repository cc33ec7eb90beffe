# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tuple(R.Tensor((m, n)))) -> R.Tensor((m, n)):
        gv3: R.Tensor((m, n)) = x[0]
        gv4: R.Tensor((m, n)) = x[0]
        q: R.Tensor((m, n)) = R.add(gv3, gv4)
        gv6: R.Tensor((m, n)) = x[0]
        gv7: R.Tensor((m, n)) = R.add(q, gv6)
        return gv7
