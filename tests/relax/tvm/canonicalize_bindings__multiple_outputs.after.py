# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main() -> R.Tuple(R.Tensor((), dtype="int32"), R.Tensor((), dtype="int32"), R.Tensor((), dtype="int32")):
        with R.dataflow():
            l: R.Tensor((), dtype="int32") = R.const(1, "int32")
            m: R.Tensor((), dtype="int32") = R.const(1, "int32")
            n: R.Tensor((), dtype="int32") = R.const(1, "int32")
            R.output(l, m, n)
        return (l, m, n)
