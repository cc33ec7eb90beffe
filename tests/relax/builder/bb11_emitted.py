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
    def func(n_1: T.int64, m_1: T.int64, x: R.Tensor((n, m), dtype="float32"), y: R.Tensor((m, n), dtype="float32")) -> R.Tuple(R.Tuple(T.int64, T.int64), R.Tensor((n, m), dtype="float32"), R.Tensor((m, n), dtype="float32")):
        gv: R.Tuple(T.int64, T.int64) = n_1, m_1
        return (gv, x, y)
