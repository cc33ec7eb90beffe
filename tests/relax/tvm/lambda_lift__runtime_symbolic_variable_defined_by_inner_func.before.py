# from typing import TypeVar
# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor((4,), dtype="float32")) -> R.Tuple(R.Tensor((4,), dtype="float32"), R.Tensor(dtype="float32", ndim=1)):
        # from typing import TypeVar
        # from tvm.script import relax as R
        
        n = TypeVar("n")
        @R.function
        def from_param(y: R.Tensor((n,), dtype="float32")) -> R.Tensor((n,), dtype="float32"):
            z: R.Tensor((n,), dtype="float32") = R.ones(R.shape([n]), dtype="float32")
            return z

        # from typing import TypeVar
        # from tvm.script import tirx as T
        # from tvm.tirx.layout import Axis
        # from tvm.script import relax as R
        
        @R.function
        def from_match_cast(y: R.Tensor(dtype="float32", ndim=1)) -> R.Tensor(dtype="float32", ndim=1):
            n = T.int64()
            y2: R.Tensor((n,), dtype="float32") = R.match_cast(y, R.Tensor((n,), dtype="float32"))
            z: R.Tensor((n,), dtype="float32") = R.ones(R.shape([n]), dtype="float32")
            return z

        a: R.Tensor((4,), dtype="float32") = from_param(x)
        b: R.Tensor(dtype="float32", ndim=1) = from_match_cast(x)
        return (a, b)