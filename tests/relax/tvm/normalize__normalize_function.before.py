# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def main(x: R.Tensor((m, n), dtype="float16")) -> R.Tensor(dtype="float16", ndim=2):
        return R.multiply(R.add(x, x), R.add(x, x))
