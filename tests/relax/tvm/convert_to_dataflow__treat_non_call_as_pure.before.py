# from tvm.script import ir as I
# from tvm.script import tirx as T
# from tvm.tirx.layout import Axis
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def prim_values() -> T.int64:
        x: T.int64 = 1
        y: T.int64 = 2
        z: T.int64 = 3
        return z

    @R.function
    def shapes() -> R.Shape([7, 8, 9]):
        s1: R.Shape([1, 2, 3]) = R.shape([1, 2, 3])
        s2: R.Shape([4, 5, 6]) = R.shape([4, 5, 6])
        s3: R.Shape([7, 8, 9]) = R.shape([7, 8, 9])
        return s3

    @R.function
    def tuples_and_const(x: R.Tensor, y: R.Tensor) -> R.Tensor((3,), dtype="int32"):
        t1: R.Tuple(R.Tensor, R.Tensor, R.Tensor) = x, y, x
        t2: R.Tuple(R.Tensor, R.Tensor, R.Tensor) = y, y, x
        c: R.Tensor((3,), dtype="int32") = metadata["ir.GenericConst"][0]
        return c

    @R.function
    def main(t: R.Tuple(R.Tensor, R.Tensor)) -> R.Tensor:
        x: R.Tensor = t[0]
        y: R.Tensor = t[1]
        z: R.Tensor = R.add(x, y)
        w: R.Tensor = R.multiply(z, z)
        return w

# Metadata omitted. Use show_meta=True in script() method to show it.