# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import relax as R

m = TypeVar("m")
n = TypeVar("n")
@I.ir_module
class Module:
    @R.function(private=True)
    def main_inner(x2: R.Tensor((n, m), dtype="float32"), y2: R.Tensor((n, m), dtype="float32")) -> R.Tensor((n, m), dtype="float32"):
        sum_inner: R.Tensor((n, m), dtype="float32") = R.add(x2, y2)
        return sum_inner

    @R.function
    def main(x1: R.Tensor((n, m), dtype="float32"), y1: R.Tensor((n, m), dtype="float32")) -> R.Tensor((n, m), dtype="float32"):
        cls = Module
        sum_main: R.Tensor((n, m), dtype="float32") = cls.main_inner(x1, y1)
        return sum_main