# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main() -> R.Tensor((), dtype="int32"):
        with R.dataflow():
            x: R.Tensor((), dtype="int32") = R.const(1, "int32")
            R.output()
        z: R.Tensor((), dtype="int32") = R.const(2, "int32")
        with R.dataflow():
            y: R.Tensor((), dtype="int32") = z
            R.output(y)
        return y
