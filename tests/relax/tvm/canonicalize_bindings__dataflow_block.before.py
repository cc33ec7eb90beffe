# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function
    def main(x: R.Tensor) -> R.Tensor((), dtype="int32"):
        with R.dataflow():
            y: R.Tensor((), dtype="int32") = R.const(1, "int32")
            z: R.Tensor((), dtype="int32") = y
            o: R.Tensor((), dtype="int32") = z
            p: R.Tensor((), dtype="int32") = o
            m: R.Tensor((), dtype="int32") = p
            n: R.Tensor((), dtype="int32") = m
            R.output(n)
        return n
