# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def main(x: R.Tensor((m, n), dtype="float16")) -> R.Tensor((m, n), dtype="float16"):
        gv: R.Tensor((m, n), dtype="float16") = R.add(x, x)
        gv1: R.Tensor((m, n), dtype="float16") = R.add(x, x)
        gv2: R.Tensor((m, n), dtype="float16") = R.multiply(gv, gv1)
        return gv2
