# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main() -> R.Tensor((), dtype="int64"):
        tup: R.Tuple(R.Tensor((), dtype="int64"), R.Tensor((), dtype="int64")) = R.const(0, "int64"), R.const(1, "int64")
        x: R.Tensor((), dtype="int64") = tup[0]
        y: R.Tensor((), dtype="int64") = tup[1]
        z: R.Tensor((), dtype="int64") = R.add(x, y)
        return z
