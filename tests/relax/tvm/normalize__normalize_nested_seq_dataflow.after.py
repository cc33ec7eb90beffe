# from tvm.script import ir as I
# from tvm.script import relax as R

@I.ir_module
class Module:
    @R.function(private=True)
    def main() -> R.Tensor((), dtype="int32"):
        x: R.Tensor((), dtype="int32") = R.const(1, "int32")
        u: R.Tensor((), dtype="int32") = R.const(2, "int32")
        with R.dataflow():
            w: R.Tensor((), dtype="int32") = u
            u_1: R.Tensor((), dtype="int32") = w
            R.output(u_1)
        z: R.Tensor((), dtype="int32") = u_1
        y: R.Tensor((), dtype="int32") = z
        return y
