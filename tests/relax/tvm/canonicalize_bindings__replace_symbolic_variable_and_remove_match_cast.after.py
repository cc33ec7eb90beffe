# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((m, n))) -> R.Tensor((m, n)):
        q: R.Tensor((m, n)) = R.add(x, x)
        gv4: R.Tensor((m, n)) = R.add(q, x)
        return gv4
